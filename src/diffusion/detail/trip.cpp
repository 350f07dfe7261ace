#include "diffusion/detail/trip.hpp"

#include <algorithm>

#include "diffusion/detail/trip_kernel.hpp"
#include "diffusion/detail/trip_launch.hpp"

// The forms other than the plain one are compiled in trip_form_*.cpp.
TRIDENT_TRIP_FORM_EXTERN(trident::diffusion::trips::kFollow)
TRIDENT_TRIP_FORM_EXTERN(trident::diffusion::trips::kMirror)
TRIDENT_TRIP_FORM_EXTERN(trident::diffusion::trips::kWrap)
TRIDENT_TRIP_FORM_EXTERN(trident::diffusion::trips::kFollow | trident::diffusion::trips::kSource)
TRIDENT_TRIP_FORM_EXTERN(trident::diffusion::trips::kFollow | trident::diffusion::trips::kSource |
                         trident::diffusion::trips::kAnisotropic)
TRIDENT_TRIP_FORM_EXTERN(trident::diffusion::trips::kFollow | trident::diffusion::trips::kSource |
                         trident::diffusion::trips::kField)
TRIDENT_TRIP_FORM_EXTERN(trident::diffusion::trips::kField)

namespace trident::diffusion {

namespace {
using namespace trips;

// f(the instance of `rule`'s form, form_of, as a constant).
template <class T, class F>
auto with_form(const TripRule<T>& rule, F&& f) {
  switch (form_of(rule)) {
    case 0: return f(std::integral_constant<int, 0>());
    case kFollow: return f(std::integral_constant<int, kFollow>());
    case kMirror: return f(std::integral_constant<int, kMirror>());
    case kWrap: return f(std::integral_constant<int, kWrap>());
    case kFollow | kSource: return f(std::integral_constant<int, kFollow | kSource>());
    case kFollow | kSource | kAnisotropic: return f(std::integral_constant<int, kFollow | kSource | kAnisotropic>());
    case kField: return f(std::integral_constant<int, kField>());
    default: return f(std::integral_constant<int, kFollow | kSource | kField>());
  }
}

template <class T, int kSteps>
int chain_in_form(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, T c, std::int64_t step, int m,
                  int count, const Kokkos::View<std::int64_t>& first_bad, const Trip& trip, const TripShape& shape,
                  Kokkos::View<int*>& board, const TripRule<T>& rule) {
  return with_form(rule, [&](auto form) {
    return launch_chain<T, kSteps, decltype(form)::value>(space, u, next, c, step, m, count, first_bad, trip, shape,
                                                          board, rule);
  });
}

}  // namespace

template <class T>
int step_trips(const ExecutionSpace& space, Grid<T> u, Grid<T> next, T c, std::int64_t step, int m, int count,
               const Kokkos::View<std::int64_t>& first_bad, Trip trip, const TripShape& shape,
               Kokkos::View<int*>& board, const TripRule<T>& rule) {
  if (trip.keeps == 0 || count <= 0) return 0;
  if (count > 1 && m > 1) {
    const int rows = m <= kMaxTripSteps / 2 ? chain_in_form<T, kMaxTripSteps / 2>(space, u, next, c, step, m, count,
                                                                                   first_bad, trip, shape, board, rule)
                                            : chain_in_form<T, kMaxTripSteps>(space, u, next, c, step, m, count,
                                                                              first_bad, trip, shape, board, rule);
    if (rows > 0) return rows;
  }
  for (int n = 0; n < count; ++n) {
    step_trip<T>(space, u, next, c, step + std::int64_t(n) * m, m, first_bad, trip, shape, rule);
    std::swap(u, next);
    // the next trip: its steps' boxes and what it keeps shrink by m cells on the sides that shrink
    trip.first = trip.step_box(m);
    trip.keep[0] = trip.shrunk(trip.keep[0], m);
  }
  return 0;
}

template <class T>
int chain_tile_rows(const ExecutionSpace& space, const Trip& trip, int m) {
  return m <= kMaxTripSteps / 2 ? chain_rule_rows<T, kMaxTripSteps / 2>(space, trip, m)
                                : chain_rule_rows<T, kMaxTripSteps>(space, trip, m);
}

template <class T>
int rule_tile_rows(const ExecutionSpace& space, const Trip& trip, int m) {
  const int resident = m <= kMaxTripSteps / 2 ? resident_teams<T, kMaxTripSteps / 2>(space)
                                              : resident_teams<T, kMaxTripSteps>(space);  // as step_trip picks
  return plan_tiles(trip, m, resident, TripShape{}).rows;
}

bool trips_on_device() { return kOnDevice; }

// Two instances a form: short trips hold half the registers.
template <class T>
void step_trip(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, T c, std::int64_t step, int m,
               const Kokkos::View<std::int64_t>& first_bad, const Trip& trip, const TripShape& shape,
               const TripRule<T>& rule) {
  if (trip.keeps == 0) return;
  if (m <= kMaxTripSteps / 2)
    with_form(rule, [&](auto form) {
      launch_trip<T, kMaxTripSteps / 2, decltype(form)::value>(space, u, next, c, step, m, first_bad, trip, shape, rule);
    });
  else
    with_form(rule, [&](auto form) {
      launch_trip<T, kMaxTripSteps, decltype(form)::value>(space, u, next, c, step, m, first_bad, trip, shape, rule);
    });
}

int steps_per_trip(bool alone, int halo_width, int forced_steps) {
  int steps = forced_steps;
  if (steps <= 0) steps = kOnDevice ? kDeviceTripSteps : 1;
  steps = std::min(steps, kMaxTripSteps);
  return alone ? steps : std::min(steps, halo_width);
}

std::string describe_trips(int steps) {
  if (steps == 1) return "1 step per trip through memory (the one-step kernel)";
  return std::to_string(steps) + " steps per trip through memory (" + std::to_string(kTripColumns) +
         "-column strips, " + std::to_string(steps) + " columns of overlap each side)";
}

template int step_trips<float>(const ExecutionSpace&, Grid<float>, Grid<float>, float, std::int64_t, int, int,
                               const Kokkos::View<std::int64_t>&, Trip, const TripShape&, Kokkos::View<int*>&,
                               const TripRule<float>&);
template int step_trips<double>(const ExecutionSpace&, Grid<double>, Grid<double>, double, std::int64_t, int, int,
                                const Kokkos::View<std::int64_t>&, Trip, const TripShape&, Kokkos::View<int*>&,
                                const TripRule<double>&);
template int chain_tile_rows<float>(const ExecutionSpace&, const Trip&, int);
template int chain_tile_rows<double>(const ExecutionSpace&, const Trip&, int);
template int rule_tile_rows<float>(const ExecutionSpace&, const Trip&, int);
template int rule_tile_rows<double>(const ExecutionSpace&, const Trip&, int);
template void step_trip<float>(const ExecutionSpace&, const Grid<float>&, const Grid<float>&, float, std::int64_t,
                               int, const Kokkos::View<std::int64_t>&, const Trip&, const TripShape&,
                               const TripRule<float>&);
template void step_trip<double>(const ExecutionSpace&, const Grid<double>&, const Grid<double>&, double,
                                std::int64_t, int, const Kokkos::View<std::int64_t>&, const Trip&, const TripShape&,
                                const TripRule<double>&);

}  // namespace trident::diffusion
