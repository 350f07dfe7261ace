#pragma once
// The launches of the trip kernel (trip_kernel.hpp) for one form: a trip, and a chain of trips
// in one launch. Each form's instances are compiled in a file of their own
// (trip_form_*.cpp, by TRIDENT_TRIP_FORM_INSTANCES), so that a CUDA build compiles the eight
// forms side by side instead of one after another in trip.cpp.
#include <algorithm>

#include "diffusion/detail/trip.hpp"
#include "diffusion/detail/trip_kernel.hpp"

namespace trident::diffusion::trips {

// Teams that surely run at once (what the rule's waves count).
template <class T, int kSteps, int kForm = 0, bool kChain = false>
int resident_teams(const ExecutionSpace& space) {
  return std::max(1, space.concurrency() / (kOnDevice ? 2048 : 1)) * kTeamsPerMultiprocessor<T, kSteps, kForm, kChain>;
}

// The rule's data into an instance of its form.
template <class T>
void hold_rule(TripNoExtras&, const TripRule<T>&, const Grid<T>&) {}
template <class T>
void hold_rule(TripFoldExtras<false>& x, const TripRule<T>& rule, const Grid<T>&) {
  x.sides = rule.mirror_sides;
}
template <class T>
void hold_rule(TripFoldExtras<true>& x, const TripRule<T>& rule, const Grid<T>&) {
  x.sides = rule.wrap_sides();
}
template <class T>
void hold_rule(TripFollowExtras<T>& x, const TripRule<T>& rule, const Grid<T>&) {
  x.west = rule.west;
  x.east = rule.east;
  x.south = rule.south;
  x.north = rule.north;
}
template <class T>
void hold_rule(TripFieldExtras<T>& x, const TripRule<T>& rule, const Grid<T>& u) {
  if (!faces_fit(rule.faces, u)) Kokkos::abort("trident::diffusion::step_trip: a rule's field is not shaped for u");
  x.faces = rule.faces.data();
}
template <class T>
void hold_rule(TripExtras<T>& x, const TripRule<T>& rule, const Grid<T>& u) {
  const auto shaped_like_u = [&u](const Grid<T>& f) { return f.extent(0) == u.extent(0) && f.extent(1) == u.extent(1); };
  x.cx = rule.cx;
  x.cy = rule.cy;
  x.s = rule.s;
  x.source = rule.source;
  x.faces = rule.op == TripRule<T>::field && faces_fit(rule.faces, u) ? rule.faces.data() : nullptr;
  x.sf = rule.source == 2 && shaped_like_u(rule.sf) ? rule.sf.data() : nullptr;
  if ((rule.op == TripRule<T>::field && x.faces == nullptr) || (rule.source == 2 && x.sf == nullptr))
    Kokkos::abort("trident::diffusion::step_trip: a rule's field is not shaped for u");
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
  kernel.plan = plan_tiles(trip, m, resident_teams<T, kSteps, kForm>(space), shape);
  return kernel;
}

template <class T, int kSteps, int kForm>
void launch_trip(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, T c, std::int64_t step, int m,
                 const Kokkos::View<std::int64_t>& first_bad, const Trip& trip, const TripShape& shape,
                 const TripRule<T>& rule) {
  using Kernel = TripKernel<T, kSteps, kForm>;
  const Kernel kernel = trip_kernel<T, kSteps, kForm>(space, u, next, c, step, m, first_bad, trip, shape, rule);
  const int team = kOnDevice ? kTripColumns : 1;
  const int scratch = Kernel::Scratch::shmem_size(Kernel::template kScratchValues<kOneTrip>);
  const auto policy =
      TripPolicy<T, kSteps, kForm>(space, kernel.plan.tiles, team).set_scratch_size(0, Kokkos::PerTeam(scratch));
  Kokkos::parallel_for("trident::diffusion::step_trip", policy, kernel);
}

// The rows of a chain's tiles by the rule (chain_tile_rows), unless under kChainRows.
template <class T, int kSteps, int kForm = 0>
int chain_rule_rows(const ExecutionSpace& space, const Trip& trip, int m) {
  if (!kOnDevice || trip.keeps != 1) return 0;
  const Box& keep = trip.keep[0];
  const int strips = strips_across(keep, kTripColumns - 2 * m);  // plan_tiles' widest strips
  const int bands = (2 * resident_teams<T, kSteps, kForm, true>(space) + strips - 1) / strips;
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
    const int resident = resident_teams<T, kSteps, kForm, true>(space);
    if (trip.keeps != 1 || shape.tail_rows > 0) return 0;
    if (shape.rows == 0) shape.rows = chain_rule_rows<T, kSteps, kForm>(space, trip, m);
    if (shape.rows == 0) return 0;
    Kernel kernel = trip_kernel<T, kSteps, kForm>(space, u, next, c, step, m, first_bad, trip, shape, rule);
    const TilePlan& plan = kernel.plan;
    if (plan.tail_height > 0 || plan.columns < m || plan.rows < m) return 0;
    // across a wrapped axis the first tiles read m cells into the last ones, which must hold them
    const int last_columns = (trip.keep[0].x1 - trip.keep[0].x0) % plan.columns;
    const int last_rows = (trip.keep[0].y1 - trip.keep[0].y0) % plan.rows;
    if (((rule.wrap_axes & 2u) && last_columns > 0 && last_columns < m) ||
        ((rule.wrap_axes & 1u) && last_rows > 0 && last_rows < m))
      return 0;
    if (static_cast<int>(board.extent(0)) <= plan.tiles)
      board = Kokkos::View<int*>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::chain_board"),
                                 plan.tiles + 1);
    kernel.chain = count;
    kernel.board = board;
    Kokkos::deep_copy(space, Kokkos::subview(board, std::make_pair(0, plan.tiles + 1)), 0);
    const int teams = std::min(resident, count * plan.tiles);
    const int scratch = Kernel::Scratch::shmem_size(Kernel::template kScratchValues<kChainEven>);
    const auto policy = TripPolicy<T, kSteps, kForm, ChainTag>(space, teams, kTripColumns)
                            .set_scratch_size(0, Kokkos::PerTeam(scratch));
    Kokkos::parallel_for("trident::diffusion::step_trips", policy, kernel);
    return plan.rows;
  }
}

}  // namespace trident::diffusion::trips

// The instances of one form's launches: the two trip lengths and precisions, declared
// (TRIDENT_TRIP_FORM_EXTERN, in trip.cpp) or defined (TRIDENT_TRIP_FORM_INSTANCES).
#define TRIDENT_TRIP_FORM_LAUNCHES(PREFIX, T, STEPS, FORM)                                                           \
  PREFIX template void trident::diffusion::trips::launch_trip<T, STEPS, FORM>(                                     \
      const trident::diffusion::ExecutionSpace&, const trident::diffusion::Grid<T>&,                               \
      const trident::diffusion::Grid<T>&, T, std::int64_t, int, const Kokkos::View<std::int64_t>&,                \
      const trident::diffusion::Trip&, const trident::diffusion::TripShape&, const trident::diffusion::TripRule<T>&); \
  PREFIX template int trident::diffusion::trips::launch_chain<T, STEPS, FORM>(                                     \
      const trident::diffusion::ExecutionSpace&, const trident::diffusion::Grid<T>&,                               \
      const trident::diffusion::Grid<T>&, T, std::int64_t, int, int, const Kokkos::View<std::int64_t>&,           \
      const trident::diffusion::Trip&, trident::diffusion::TripShape, Kokkos::View<int*>&,                          \
      const trident::diffusion::TripRule<T>&);
#define TRIDENT_TRIP_FORM_ALL(PREFIX, FORM)                                            \
  TRIDENT_TRIP_FORM_LAUNCHES(PREFIX, float, trident::diffusion::kMaxTripSteps / 2, FORM)  \
  TRIDENT_TRIP_FORM_LAUNCHES(PREFIX, float, trident::diffusion::kMaxTripSteps, FORM)      \
  TRIDENT_TRIP_FORM_LAUNCHES(PREFIX, double, trident::diffusion::kMaxTripSteps / 2, FORM) \
  TRIDENT_TRIP_FORM_LAUNCHES(PREFIX, double, trident::diffusion::kMaxTripSteps, FORM)
#define TRIDENT_TRIP_FORM_EXTERN(FORM) TRIDENT_TRIP_FORM_ALL(extern, FORM)
#define TRIDENT_TRIP_FORM_INSTANCES(FORM) TRIDENT_TRIP_FORM_ALL(, FORM)
