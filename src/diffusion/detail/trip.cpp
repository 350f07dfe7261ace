#include "diffusion/detail/trip.hpp"

#include <algorithm>

#include "diffusion/detail/trip_kernel.hpp"

namespace trident::diffusion {

namespace {
using namespace trips;

// Teams that surely run at once (what the rule's waves count).
template <class T, int kSteps>
int resident_teams(const ExecutionSpace& space) {
  return std::max(1, space.concurrency() / (kOnDevice ? 2048 : 1)) * kTeamsPerMultiprocessor<T, kSteps>;
}

// The rule's data into an instance of its form.
template <class T>
void hold_rule(TripNoExtras&, const TripRule<T>&, const Grid<T>&) {}
template <class T>
void hold_rule(TripExtras<T>& x, const TripRule<T>& rule, const Grid<T>& u) {
  const auto shaped_like_u = [&u](const Grid<T>& f) { return f.extent(0) == u.extent(0) && f.extent(1) == u.extent(1); };
  x.cx = rule.cx;
  x.cy = rule.cy;
  x.s = rule.s;
  x.source = rule.source;
  x.cf = rule.op == TripRule<T>::field && shaped_like_u(rule.cf) ? rule.cf.data() : nullptr;
  x.sf = rule.source == 2 && shaped_like_u(rule.sf) ? rule.sf.data() : nullptr;
  if ((rule.op == TripRule<T>::field && x.cf == nullptr) || (rule.source == 2 && x.sf == nullptr))
    Kokkos::abort("trident::diffusion::step_trip: a rule's field is not shaped like u");
  x.west = rule.west;
  x.east = rule.east;
  x.south = rule.south;
  x.north = rule.north;
}

template <class T, int kSteps, int kForm>
TripKernel<T, kSteps, kForm> trip_kernel(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, T c,
                                         std::int64_t step, int m, const Kokkos::View<std::int64_t>& first_bad,
                                         const Trip& trip, const TripShape& shape, const TripRule<T>& rule) {
  TripKernel<T, kSteps, kForm> kernel;
  hold_rule<T>(kernel, rule, u);
  kernel.u = u;
  kernel.next = next;
  kernel.first_bad = first_bad;
  kernel.c = c;
  kernel.step = step;
  kernel.m = m;
  kernel.ny = static_cast<int>(u.extent(0));
  kernel.nx = static_cast<int>(u.extent(1));
  kernel.trip = trip;
  kernel.plan = plan_tiles(trip, m, resident_teams<T, kSteps>(space), shape);
  return kernel;
}

template <class T, int kSteps, int kForm>
void launch_trip(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, T c, std::int64_t step, int m,
                 const Kokkos::View<std::int64_t>& first_bad, const Trip& trip, const TripShape& shape,
                 const TripRule<T>& rule) {
  using Kernel = TripKernel<T, kSteps, kForm>;
  const Kernel kernel = trip_kernel<T, kSteps, kForm>(space, u, next, c, step, m, first_bad, trip, shape, rule);
  const int team = kOnDevice ? kTripColumns : 1;
  const auto policy = TripPolicy<T, kSteps>(space, kernel.plan.tiles, team)
                          .set_scratch_size(0, Kokkos::PerTeam(Kernel::Scratch::shmem_size(Kernel::kScratchValues)));
  Kokkos::parallel_for("trident::diffusion::step_trip", policy, kernel);
}

// The rows of a chain's tiles by the rule (chain_tile_rows), unless under kChainRows.
template <class T, int kSteps>
int chain_rule_rows(const ExecutionSpace& space, const Trip& trip, int m) {
  if (!kOnDevice || trip.keeps != 1) return 0;
  const Box& keep = trip.keep[0];
  const int strips = strips_across(keep, kTripColumns - 2 * m);  // plan_tiles' widest strips
  const int bands = (2 * resident_teams<T, kSteps>(space) + strips - 1) / strips;
  const int rows = (keep.y1 - keep.y0) / std::max(bands, 1);
  return rows < kChainRows ? 0 : std::min(rows, 256);
}

// A chain of `count` trips in one launch (step_trips), where its plan allows: the rows of its
// tiles, or 0 when it does not.
template <class T, int kSteps, int kForm>
int launch_chain(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, T c, std::int64_t step, int m,
                 int count, const Kokkos::View<std::int64_t>& first_bad, const Trip& trip, TripShape shape,
                 Kokkos::View<int*>& board, const TripRule<T>& rule) {
  if constexpr (!kOnDevice) {
    return 0;
  } else {
    using Kernel = TripKernel<T, kSteps, kForm>;
    const int resident = resident_teams<T, kSteps>(space);
    if (trip.keeps != 1 || shape.tail_rows > 0) return 0;
    if (shape.rows == 0) shape.rows = chain_rule_rows<T, kSteps>(space, trip, m);
    if (shape.rows == 0) return 0;
    Kernel kernel = trip_kernel<T, kSteps, kForm>(space, u, next, c, step, m, first_bad, trip, shape, rule);
    const TilePlan& plan = kernel.plan;
    if (plan.tail_height > 0 || plan.columns < m || plan.rows < m) return 0;
    if (static_cast<int>(board.extent(0)) <= plan.tiles)
      board = Kokkos::View<int*>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::chain_board"),
                                 plan.tiles + 1);
    kernel.chain = count;
    kernel.board = board;
    Kokkos::deep_copy(space, Kokkos::subview(board, std::make_pair(0, plan.tiles + 1)), 0);
    const int teams = std::min(resident, count * plan.tiles);
    const auto policy = TripPolicy<T, kSteps, ChainTag>(space, teams, kTripColumns)
                            .set_scratch_size(0, Kokkos::PerTeam(Kernel::Scratch::shmem_size(Kernel::kScratchValues)));
    Kokkos::parallel_for("trident::diffusion::step_trips", policy, kernel);
    return plan.rows;
  }
}

// f(the instance of `rule`'s form, form_of, as a constant).
template <class T, class F>
auto with_form(const TripRule<T>& rule, F&& f) {
  switch (form_of(rule)) {
    case 0: return f(std::integral_constant<int, 0>());
    case kFollow: return f(std::integral_constant<int, kFollow>());
    case kFollow | kSource: return f(std::integral_constant<int, kFollow | kSource>());
    case kFollow | kSource | kAnisotropic: return f(std::integral_constant<int, kFollow | kSource | kAnisotropic>());
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
