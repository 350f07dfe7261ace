#include "diffusion/detail/stepper.hpp"

#include <mpi.h>

#include <algorithm>
#include <stdexcept>

#include "diffusion/detail/stencil_anisotropic.hpp"
#include "diffusion/detail/stencil_field.hpp"

namespace trident::diffusion {

namespace {
// The kinds of trip whose tiles are timed apart: the block's cells (without an exchange, or
// its inside while the halos travel: nearly the same boxes), and the rest after an exchange.
constexpr int kPlainTrip = 0, kInnerTrip = 0, kRestTrip = 1;
}  // namespace

template <class T>
Stepper<T>::Stepper(const Decomposition& d, const core::TransportChoice& transport, int width, const Scheme<T>& scheme,
                    const TripShape& trips, TripTuner::When tiles, core::Switch peer_memory)
    : d_(d),
      width_(width),
      scheme_(scheme),
      rule_(trip_rule()),
      trip_steps_(diffusion::steps_per_trip(d.alone(), width, trips.steps)),
      shape_(trips),
      tuner_(tiles, trip_steps_),
      alone_(d.alone()) {
  const int nx = static_cast<int>(d.x().size), ny = static_cast<int>(d.y().size);
  interior_ = {width_, width_ + ny, width_, width_ + nx};
  toward_[0] = d.west() != MPI_PROC_NULL;
  toward_[1] = d.east() != MPI_PROC_NULL;
  toward_[2] = d.south() != MPI_PROC_NULL;
  toward_[3] = d.north() != MPI_PROC_NULL;
  fold_sides();
  // Ghosts that follow their edge cells with c's plain update: a trip's tiles along those
  // edges apart, beside the plain kernel's (split_at_following_edges).
  if (alone_ && rule_.follows() && rule_.op == TripRule<T>::isotropic && rule_.source == 0 && trip_steps_ > 1)
    edge_side_ = std::make_unique<transport::SideStream>();
  if (alone_) return;
  // NCCL only if peer memory does not carry the halos (transport::DeviceComm).
  comm_ = std::make_unique<transport::DeviceComm>(d.cart(), transport, transport::DeviceComm::NcclStart::when_needed);
  halo_ = std::make_unique<HaloExchange<T>>(d, *comm_, width_, peer_memory);
  wait_clock_ = std::make_unique<transport::QueueWaitClock>();
  // Periodic axes read wrapped: the block steps as one alone, its halo (its own cells) copied
  // only for the ghosts that a single step reads.
  if (rule_.wrap_axes != 0) {
    alone_ = true;
    std::fill_n(toward_, 4, false);
  }
}

template <class T>
TripRule<T> Stepper<T>::trip_rule() const {
  TripRule<T> rule;
  rule.op = scheme_.field() ? TripRule<T>::field
            : scheme_.anisotropic ? TripRule<T>::anisotropic
                                  : TripRule<T>::isotropic;
  rule.cx = scheme_.cx;
  rule.cy = scheme_.cy;
  const Source<T>& source = scheme_.source;
  rule.source = source.kind == Source<T>::Kind::constant ? 1 : source.kind == Source<T>::Kind::field ? 2 : 0;
  rule.s = source.value;
  rule.sf = source.field;
  for (int k = 0; k < scheme_.edges.lines(); ++k) {
    const auto& line = scheme_.edges.line(k);
    if (line.kind != BoundaryKind::neumann && line.kind != BoundaryKind::convective) continue;
    const bool low = line.ghost < line.edge;
    TripSide<T>& side = line.vertical ? (low ? rule.west : rule.east) : (low ? rule.south : rule.north);
    side.kind = line.kind == BoundaryKind::neumann ? 1 : 2;
    side.edge = line.edge;
    side.ambient = line.value;
    side.ratio = line.ratio;
    side.h = line.h;
  }
  return rule;
}

template <class T>
void Stepper<T>::fold_sides() {
  const Edges<T>& edges = scheme_.edges;
  if (rule_.op != TripRule<T>::isotropic || rule_.source != 0) return;
  // A block with no other block anywhere wraps its periodic axes in its trips, where it is at
  // least two trips' reach across each of them (else none: the halo serves them all). With one
  // step a trip (a host's rule) the halo, exchanged once every `width` steps, costs less than
  // the copy of the ghosts that each single step would then need.
  const int columns = interior_.x1 - interior_.x0, rows = interior_.y1 - interior_.y0;
  unsigned axes = 0;
  if (d_.dims()[0] == 1 && d_.dims()[1] == 1 && trip_steps_ > 1) {
    axes = (d_.periodic()[1] ? 1u : 0u) | (d_.periodic()[0] ? 2u : 0u);
    if (((axes & 1u) && rows < 2 * kMaxTripSteps) || ((axes & 2u) && columns < 2 * kMaxTripSteps)) axes = 0;
  }
  unsigned sides = 0;
  for (int k = 0; k < edges.lines(); ++k) {
    const auto& line = edges.line(k);
    if (line.kind == BoundaryKind::convective) return;
    if (line.kind != BoundaryKind::neumann) continue;
    const int depth = line.vertical ? interior_.x1 - interior_.x0 : interior_.y1 - interior_.y0;
    if (depth < kMaxTripSteps) return;  // the image would reach past the block's far side
    const bool low = line.ghost < line.edge;
    sides |= 1u << ((line.vertical ? 2 : 0) + (low ? 0 : 1));
  }
  rule_.mirror_sides = sides;
  rule_.wrap_axes = sides == 0 ? axes : 0;  // one fold a trip (trip_kernel_parts.hpp): else the halo wraps
  for (TripSide<T>* side : {&rule_.west, &rule_.east, &rule_.south, &rule_.north}) side->kind = 0;
}

template <class T>
void Stepper<T>::field_complete() {
  if (scheme_.field()) rule_.faces = field_faces<T>(scheme_.cf);
}

template <class T>
const Grid<T>& Stepper<T>::faces() const {
  if (rule_.faces.extent(0) == 0) throw std::logic_error("diffusion: a field's step before its faces (field_complete)");
  return rule_.faces;
}

template <class T>
std::string Stepper<T>::describe() const {
  if (alone_)
    return rule_.wrap_axes != 0 ? "not needed (one block, its periodic axes read wrapped by the trips)"
                                : "not needed (one block)";
  return std::to_string(width_) + (width_ == 1 ? " cell deep every step" : " cells deep every " +
                                                       std::to_string(width_) + " steps") +
         ", overlapped with the inside of the block, through " +
         (comm_->transport() == core::Transport::nccl ? comm_->exchanges_route() : comm_->choice().describe());
}

template <class T>
std::string Stepper<T>::describe_tiles() const {
  const int block = tuner_.rows_of(kPlainTrip), rest = tuner_.rows_of(kRestTrip);
  std::string text = block > 0 ? std::to_string(block) + " rows" + (alone_ ? "" : " for the block") : "";
  if (rest > 0) text += (text.empty() ? "" : ", ") + std::to_string(rest) + " rows for its edges after an exchange";
  if (!text.empty()) text += " (the fastest of the heights timed)";
  if (chain_rows_ > 0)
    text += (text.empty() ? "" : "; ") + std::to_string(chain_rows_) + " rows in chains of trips (the rule)";
  return text;
}

template <class T>
Box Stepper<T>::extended(int depth) const {
  return {interior_.y0 - (toward_[2] ? depth : 0), interior_.y1 + (toward_[3] ? depth : 0),
          interior_.x0 - (toward_[0] ? depth : 0), interior_.x1 + (toward_[1] ? depth : 0)};
}

template <class T>
Box Stepper<T>::inside(int depth) const {
  return {interior_.y0 + (toward_[2] ? depth : 0), interior_.y1 - (toward_[3] ? depth : 0),
          interior_.x0 + (toward_[0] ? depth : 0), interior_.x1 - (toward_[1] ? depth : 0)};
}

template <class T>
int Stepper<T>::trip_limit() const {
  if (alone_) return trip_steps_;
  return std::min(trip_steps_, valid_ >= 1 ? valid_ : width_);
}

template <class T>
Trip Stepper<T>::trip_from(int valid) const {
  Trip trip;
  trip.first = extended(valid - 1);
  const int shrink[4] = {toward_[2], toward_[3], toward_[0], toward_[1]};  // y0, y1, x0, x1
  std::copy(shrink, shrink + 4, trip.shrink);
  // the steps update the mirror and wrapped images too, as deep as a trip reads
  const unsigned folded = rule_.mirror_sides | rule_.wrap_sides();
  if (folded & 1u) trip.first.y0 -= kMaxTripSteps;
  if (folded & 2u) trip.first.y1 += kMaxTripSteps;
  if (folded & 4u) trip.first.x0 -= kMaxTripSteps;
  if (folded & 8u) trip.first.x1 += kMaxTripSteps;
  return trip;
}

template <class T>
Trip Stepper<T>::plain_trip(int steps) const {
  Trip trip = trip_from(alone_ ? 1 : valid_);
  trip.add_keep(extended(alone_ ? 0 : valid_ - steps));
  return trip;
}

template <class T>
void Stepper<T>::advance(const Grid<T>& u, const Grid<T>& next, const Grid<T>& laplacian, T c, std::int64_t step,
                         const Kokkos::View<std::int64_t>& first_bad, int steps) {
  steps = std::min(steps, trip_limit());
  if (steps <= 1) {
    step_once(u, next, laplacian, c, step, first_bad);
    return;
  }
  const ExecutionSpace compute;
  if (alone_ || valid_ >= steps) {
    Trip trip = plain_trip(steps);
    if (edge_side_ && split_at_following_edges(u, next, c, step, steps, first_bad, trip)) return;
    const TripShape shape = tuner_.shape_for(kPlainTrip, compute, u, next, c, steps, trip, shape_, rule_);
    step_trip<T>(compute, u, next, c, step, steps, first_bad, trip, shape, rule_);
    if (!alone_) valid_ -= steps;
    return;
  }
  // An exchange first (valid_ is 0): the cells whose cone of `steps` steps stays in the block
  // while the halos travel, then the rest of what the halo's width - `steps` cells allow.
  const Box in = inside(steps), all = extended(width_ - steps);
  Trip trip = trip_from(width_), inner = trip;
  inner.add_keep(in);
  halo_->start(compute, u);
  const TripShape inner_shape = tuner_.shape_for(kInnerTrip, compute, u, next, c, steps, inner, shape_, rule_);
  step_trip<T>(compute, u, next, c, step, steps, first_bad, inner, inner_shape, rule_);
  wait_clock_->begin(compute);
  halo_->finish(compute, u);
  wait_clock_->end(compute);
  trip.add_ring(all, in);
  const TripShape rest_shape = tuner_.shape_for(kRestTrip, compute, u, next, c, steps, trip, shape_, rule_);
  step_trip<T>(compute, u, next, c, step, steps, first_bad, trip, rest_shape, rule_);
  valid_ = width_ - steps;
}

template <class T>
bool Stepper<T>::split_at_following_edges(const Grid<T>& u, const Grid<T>& next, T c, std::int64_t step, int steps,
                                          const Kokkos::View<std::int64_t>& first_bad, const Trip& trip) {
  const Box keep = trip.keep[0];
  const Box inner{keep.y0 + (rule_.south.kind != 0 ? steps : 0), keep.y1 - (rule_.north.kind != 0 ? steps : 0),
                  keep.x0 + (rule_.west.kind != 0 ? steps : 0), keep.x1 - (rule_.east.kind != 0 ? steps : 0)};
  if (trip.keeps != 1 || inner.empty()) return false;
  Trip inside = trip, edges = trip;
  inside.keeps = edges.keeps = 0;
  inside.add_keep(inner);
  edges.add_ring(keep, inner);
  const ExecutionSpace compute;
  const TripRule<T> plain;
  const TripShape shape = tuner_.shape_for(kPlainTrip, compute, u, next, c, steps, inside, shape_, plain);
  edges_start_.record(compute);
  edges_start_.wait_on(edge_side_->space());
  step_trip<T>(edge_side_->space(), u, next, c, step, steps, first_bad, edges, shape_, rule_);
  step_trip<T>(compute, u, next, c, step, steps, first_bad, inside, shape, plain);
  edges_done_.record(edge_side_->space());
  edges_done_.wait_on(compute);
  return true;
}

template <class T>
std::int64_t Stepper<T>::advance_span(Grid<T>& u, Grid<T>& next, T c, std::int64_t step,
                                      const Kokkos::View<std::int64_t>& first_bad, std::int64_t span) {
  const int m = trip_limit();
  // trips of m steps that the span and the valid halo hold (alone: any number); a chain's
  // tickets, trips times tiles, stay well within an int
  const std::int64_t room = alone_ ? span : std::min<std::int64_t>(span, valid_);
  const int count = static_cast<int>(std::min<std::int64_t>(room / m, 4096));
  Trip trip = plain_trip(m);
  const ExecutionSpace compute;
  if (m > 1 && count >= 2 && trips_on_device() && (shape_.rows > 0 || chain_tile_rows<T>(compute, trip, m) > 0)) {
    const int rows = step_trips<T>(compute, u, next, c, step, m, count, first_bad, trip, shape_, chain_board_, rule_);
    if (rows > 0) chain_rows_ = rows;
    if (count % 2 == 1) std::swap(u, next);
    if (!alone_) valid_ -= count * m;
    return std::int64_t(count) * m;
  }
  const int steps = static_cast<int>(std::min<std::int64_t>(m, span));
  advance(u, next, Grid<T>(), c, step, first_bad, steps);
  std::swap(u, next);
  return steps;
}

template <class T>
void Stepper<T>::step_box(const Grid<T>& u, const Grid<T>& next, const Grid<T>& laplacian, T c, std::int64_t step,
                          const Kokkos::View<std::int64_t>& first_bad, const Box& box) {
  const ExecutionSpace compute;
  if (scheme_.field())
    step_field<T>(compute, u, next, laplacian, faces(), step, first_bad, box);
  else if (scheme_.anisotropic)
    step_anisotropic<T>(compute, u, next, laplacian, scheme_.cx, scheme_.cy, step, first_bad, box);
  else
    diffusion::step<T>(compute, u, next, laplacian, c, step, first_bad, box);
}

template <class T>
void Stepper<T>::step_ring(const Grid<T>& u, const Grid<T>& next, const Grid<T>& laplacian, T c, std::int64_t step,
                           const Kokkos::View<std::int64_t>& first_bad, const Box& outer, const Box& inner) {
  if (scheme_.plain_c()) {
    diffusion::step_ring<T>(ExecutionSpace(), u, next, laplacian, c, step, first_bad, outer, inner);
    return;
  }
  if (inner.empty()) {
    step_box(u, next, laplacian, c, step, first_bad, outer);
    return;
  }
  step_box(u, next, laplacian, c, step, first_bad, {outer.y0, inner.y0, outer.x0, outer.x1});  // rows before
  step_box(u, next, laplacian, c, step, first_bad, {inner.y1, outer.y1, outer.x0, outer.x1});  // rows after
  step_box(u, next, laplacian, c, step, first_bad, {inner.y0, inner.y1, outer.x0, inner.x0});  // beside
  step_box(u, next, laplacian, c, step, first_bad, {inner.y0, inner.y1, inner.x1, outer.x1});
}

template <class T>
void Stepper<T>::step_once(const Grid<T>& u, const Grid<T>& next, const Grid<T>& laplacian, T c, std::int64_t step,
                           const Kokkos::View<std::int64_t>& first_bad) {
  const ExecutionSpace compute;
  const Edges<T>& edges = scheme_.edges;
  const Source<T>& source = scheme_.source;
  if (edges.follows()) edges.follow(compute, u);
  if (alone_) {
    if (halo_) halo_->exchange(compute, u);  // periodic axes read wrapped by the trips: their ghosts
    step_box(u, next, laplacian, c, step, first_bad, interior_);
    source.add(compute, next, interior_, step, first_bad);
    return;
  }
  if (valid_ >= 1) {
    step_box(u, next, laplacian, c, step, first_bad, extended(valid_ - 1));
    source.add(compute, next, extended(valid_ - 1), step, first_bad);
    --valid_;
    return;
  }
  // The inside: the block less one cell along each edge that has a neighbour.
  const Box inside = this->inside(1);
  halo_->start(compute, u);
  step_box(u, next, laplacian, c, step, first_bad, inside);
  wait_clock_->begin(compute);
  halo_->finish(compute, u);
  wait_clock_->end(compute);
  if (edges.follows()) edges.follow(compute, u);  // now the ghosts beside the halo too
  step_ring(u, next, laplacian, c, step, first_bad, extended(width_ - 1), inside);
  source.add(compute, next, extended(width_ - 1), step, first_bad);
  valid_ = width_ - 1;
}

template <class T>
void Stepper<T>::refresh(const Grid<T>& u) {
  const ExecutionSpace compute;
  if (halo_ && (alone_ || valid_ < 1)) {  // alone with a halo: axes wrapped, which trips leave stale
    halo_->exchange(compute, u);
    valid_ = width_;
  }
  if (scheme_.edges.follows()) scheme_.edges.follow(compute, u);
}

template <class T>
void Stepper<T>::laplacian_of(const Grid<T>& u, const Grid<T>& laplacian) {
  refresh(u);
  if (scheme_.field())
    applied_field_only<T>(u, laplacian, faces(), interior_);
  else if (scheme_.anisotropic)
    applied_only<T>(u, laplacian, scheme_.cx, scheme_.cy, interior_);
  else
    laplacian_only<T>(u, laplacian, interior_);
}

template <class T>
void Stepper<T>::fill_halo(const Grid<T>& field) {
  if (!halo_) return;
  const ExecutionSpace compute;
  halo_->exchange(compute, field);
  compute.fence();
}

template <class T>
double Stepper<T>::take_halo_wait_seconds() {
  return wait_clock_ ? wait_clock_->take_seconds() : 0.0;
}

template class Stepper<float>;
template class Stepper<double>;

}  // namespace trident::diffusion
