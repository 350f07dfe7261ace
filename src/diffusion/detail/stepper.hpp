#pragma once
// The schedule of one time step on a block: which cells to update, when halos travel and
// what overlaps what. A halo w cells deep is exchanged once every w steps; in between,
// each step also updates the halo cells that are still valid but one (cells of the
// neighbours' blocks, recomputed here bit for bit as their owners compute them), so the
// valid depth shrinks by one a step. A step that needs an exchange updates the inside of
// the block (the cells that read no halo) while the halos travel, then the strips along
// the edges once they have arrived. A block alone updates its cells with one kernel and
// nothing else: the one-rank path pays for none of this; so does a block with no other block
// whose trips read its periodic axes wrapped (fold_sides), whose halo only serves single steps.
//
// Several steps may go in one trip through memory (trip.hpp): a trip of m steps needs a halo
// valid m cells deep, so it takes at most the halo's valid depth, and a trip that starts with
// an exchange updates the cells whose m-step cone reads no halo while the halos travel, then
// the rest.
#include <cstdint>
#include <memory>
#include <string>

#include "transport/device_comm.hpp"
#include "transport/side_stream.hpp"
#include "diffusion/detail/decomposition.hpp"
#include "diffusion/detail/halo.hpp"
#include "diffusion/detail/scheme.hpp"
#include "diffusion/detail/stencil.hpp"
#include "diffusion/detail/trip.hpp"
#include "diffusion/detail/trip_tuner.hpp"

namespace trident::diffusion {

template <class T>
class Stepper {
 public:
  // `width` from halo_width_for(d, ...). Collective over d.cart() when d is not alone
  // (sets up the transport). A trip takes at most steps_per_trip(...) steps; `trips` is a
  // test's forced shape (study_test_hooks.hpp; {}: the rules), `tiles` when the tiles'
  // heights are timed (trip_tuner.hpp); `peer_memory` (TRIDENT_PEER_MEMORY) whether halos
  // may go through peer memory. `scheme`'s edges set the ghosts beyond the domain's edges,
  // its source is added after each step (its field's halo filled by fill_halo before the
  // first step), its anisotropic step or its field's replaces the c one, in the trips too
  // (trip_rule()).
  Stepper(const Decomposition& d, const core::TransportChoice& transport, int width, const Scheme<T>& scheme = {},
          const TripShape& trips = {}, TripTuner::When tiles = TripTuner::When::automatic,
          core::Switch peer_memory = core::Switch::automatic);

  int width() const { return width_; }
  // The most steps the next trip may take (the valid halo's depth caps it).
  int trip_limit() const;
  // The rule's steps per trip, for the run log.
  int steps_per_trip() const { return trip_steps_; }
  // The block's own cells in a grid with this halo.
  Box interior() const { return interior_; }
  // How halos travel, for the run log.
  std::string describe() const;
  // The tiles' heights, timed at the first trips (trip_tuner.hpp) or a chain's rule, for the
  // run log; empty if none.
  std::string describe_tiles() const;
  // The halos' communicator (the frames use it too); null when the block is alone.
  transport::DeviceComm* comm() const { return comm_.get(); }

  // `steps` steps (1 to trip_limit()) from step `step`, queued on the default instance:
  // `next` <- `u` after them on the block; then the caller swaps `u` and `next`. One step
  // also puts L(u) into `laplacian` when that is not empty (a frame's step); a trip of
  // several keeps no L(u).
  void advance(const Grid<T>& u, const Grid<T>& next, const Grid<T>& laplacian, T c, std::int64_t step,
               const Kokkos::View<std::int64_t>& first_bad, int steps = 1);
  // Up to `span` steps (at least 1) from step `step` with no L(u): trips of trip_limit()
  // steps, several in one chain (trip.hpp's step_trips) where the halo's depth allows, else
  // one trip. Swaps u and next as the trips go, so that u holds the result; returns the
  // steps taken.
  std::int64_t advance_span(Grid<T>& u, Grid<T>& next, T c, std::int64_t step,
                            const Kokkos::View<std::int64_t>& first_bad, std::int64_t span);
  // Makes u's halo at least one cell deep current, and its ghosts (the final Laplacian reads them).
  void refresh(const Grid<T>& u);
  // refresh(u), then L(u) (or the anisotropic step's A(u)) on the block into `laplacian`.
  void laplacian_of(const Grid<T>& u, const Grid<T>& laplacian);
  // The scheme's diffusivity field is whole (halo and ghosts set): its faces for the trips and
  // the one-step kernels (field_faces), once, before the first step.
  void field_complete();
  // Fills the halo of a field that does not change (the source's) from the neighbours.
  void fill_halo(const Grid<T>& field);
  // u was replaced (a restart): its halo holds nothing current.
  void invalidate() { valid_ = 0; }

  // Seconds the device's queue waited for halos since the last call (exchanges that the
  // update of the inside did not hide). Blocks until the device has got that far.
  double take_halo_wait_seconds();

 private:
  Box extended(int depth) const;  // the block and `depth` cells of halo towards each neighbour
  Box inside(int depth) const;    // the block less `depth` cells along each edge with a neighbour
  void step_once(const Grid<T>& u, const Grid<T>& next, const Grid<T>& laplacian, T c, std::int64_t step,
                 const Kokkos::View<std::int64_t>& first_bad);
  // The step on `box`, or on the cells of `outer` outside `inner`: c's kernels or the
  // anisotropic one.
  void step_box(const Grid<T>& u, const Grid<T>& next, const Grid<T>& laplacian, T c, std::int64_t step,
                const Kokkos::View<std::int64_t>& first_bad, const Box& box);
  void step_ring(const Grid<T>& u, const Grid<T>& next, const Grid<T>& laplacian, T c, std::int64_t step,
                 const Kokkos::View<std::int64_t>& first_bad, const Box& outer, const Box& inner);
  Trip trip_from(int valid) const;  // a trip's steps with a halo valid `valid` cells deep
  // A trip of `steps` steps with no exchange: from the halo's valid depth, keeping the block
  // and the halo cells that stay valid after it.
  Trip plain_trip(int steps) const;
  // The scheme in the trips' terms (ghosts that follow, source, operator).
  TripRule<T> trip_rule() const;
  // Where c's plain update is all the trips compute besides them: neumann's sides as the
  // trips' mirrored edges (trip.hpp) where the block is at least a trip's steps deep across
  // each (rule_.mirror_sides, those sides taken out of rule_'s ghosts that follow), and the
  // periodic axes of a block with no other as wrapped ones (rule_.wrap_axes).
  void fold_sides();
  // A block alone whose ghosts follow some edges (c's plain update besides them): `trip`'s
  // cells at least its steps from those edges by the plain kernel, the others by the follow
  // form on edge_side_ at the same time (whose kernel spills and whose tiles run longer: at
  // 2000², where a trip is one wave of tiles, its slowest tile set the trip's time). False
  // (nothing queued) where the trip keeps several boxes or nothing lies that far inside.
  bool split_at_following_edges(const Grid<T>& u, const Grid<T>& next, T c, std::int64_t step, int steps,
                                const Kokkos::View<std::int64_t>& first_bad, const Trip& trip);
  // The field's faces (field_complete's; throws std::logic_error before it).
  const Grid<T>& faces() const;
  const Decomposition& d_;
  int width_;
  Scheme<T> scheme_;
  TripRule<T> rule_;
  int trip_steps_;
  TripShape shape_;
  TripTuner tuner_;
  Box interior_;
  bool alone_;
  bool toward_[4];  // west, east, south, north: a neighbour there
  int valid_ = 0;   // how deep u's halo holds current values
  std::unique_ptr<transport::DeviceComm> comm_;
  std::unique_ptr<HaloExchange<T>> halo_;
  std::unique_ptr<transport::QueueWaitClock> wait_clock_;
  std::unique_ptr<transport::SideStream> edge_side_;  // split_at_following_edges' queue
  transport::QueueMark edges_start_, edges_done_;
  Kokkos::View<int*> chain_board_;  // a chain's counters (trip.hpp), grown by its first launch
  int chain_rows_ = 0;              // the rows of the last chain's tiles
};

}  // namespace trident::diffusion
