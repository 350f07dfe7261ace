#pragma once
// Several steps of the scheme per trip through device memory (temporal blocking), and the
// rule that says how many. One step reads u and writes u_new, 8 bytes a cell in float32: at
// that rate a GPU is held to its memory bandwidth. A trip of m steps reads u once, takes
// each cell through the m steps on chip, and writes the result once.
//
// How: a team takes a strip of kTripColumns columns (the columns it keeps and m more on each
// side, which the neighbouring strips keep: overlapped tiling, the overlap recomputed) and
// streams down the strip's rows. Each row read from memory goes through the m steps one row
// behind the other (the step k value of a row needs the step k - 1 values of the rows above
// and below it): a thread holds its column's last two rows of each step in registers, and the
// neighbouring columns' values go through a small buffer in team scratch (shared) memory,
// one barrier a row. Only the last step's rows are written.
//
// The same bits as m single steps: every cell is computed with its one-step kernel's formula
// (stencil.hpp's, or TripRule's: ghosts that follow their edge cells, a source, the
// anisotropic step, a diffusivity field; trip_kernel.hpp), from
// the same neighbours, and a step updates exactly the cells the one-step kernels update
// there (Trip::first and Trip::shrink; the cells outside keep their values, which matters at
// the domain's edge, where they are zero); the cells of a strip's overlap are recomputed
// from the same values. The first non-finite step is found as the one-step kernels find it:
// from the cells those update, each at its own step (a tile notes only whether any value it
// computed was not finite, and only then is streamed once more with those checks).
#include <cstdint>
#include <string>

#include "diffusion/detail/stencil.hpp"

namespace trident::diffusion {

constexpr int kMaxTripSteps = 8;  // steps a trip may take (registers a thread holds per step)
constexpr int kTripColumns = 128;  // a strip's columns, overlap included (a team's threads on a GPU)

// What a trip of m steps updates. Step k (0-based) updates step_box(k): `first` less k cells
// on each side whose `shrink` is 1 (the sides towards a neighbour's block, where a deep halo
// loses one valid cell a step); the cells of the `keep` boxes receive the values after the
// m steps, and must lie in step_box(m - 1).
struct Trip {
  Box first;
  int shrink[4] = {0, 0, 0, 0};  // y0 (south), y1 (north), x0 (west), x1 (east)
  static constexpr int kMaxKeeps = 4;
  Box keep[kMaxKeeps];
  int keeps = 0;
  KOKKOS_INLINE_FUNCTION Box step_box(int k) const { return shrunk(first, k); }
  // `b` less k cells on each side whose `shrink` is 1.
  KOKKOS_INLINE_FUNCTION Box shrunk(const Box& b, int k) const {
    return {b.y0 + k * shrink[0], b.y1 - k * shrink[1], b.x0 + k * shrink[2], b.x1 - k * shrink[3]};
  }
  void add_keep(const Box& b) {
    if (!b.empty()) keep[keeps++] = b;
  }
  // Keeps the cells of `outer` outside `inner` (inside it, or empty): the rows before `inner`
  // and after it, whole width, then the columns beside it; all of `outer` when `inner` is empty.
  void add_ring(const Box& outer, const Box& inner) {
    if (inner.empty()) {
      add_keep(outer);
      return;
    }
    add_keep({outer.y0, inner.y0, outer.x0, outer.x1});
    add_keep({inner.y1, outer.y1, outer.x0, outer.x1});
    add_keep({inner.y0, inner.y1, outer.x0, inner.x0});
    add_keep({inner.y0, inner.y1, inner.x1, outer.x1});
  }
};

// The tiles of a trip: the columns a strip keeps and the rows a team streams; 0 lets the
// rule choose. The last `tail_bands` bands of each kept box may be tiles of `tail_rows` rows,
// started after all others, so that teams that finish early find short work left (a single
// wave of tiles waits for its slowest team). Tests set them small to cross many tile edges.
struct TripShape {
  int steps = 0;       // the most steps a trip takes; 0: steps_per_trip's rule
  int columns = 0;     // columns a strip keeps, at most kTripColumns - 2 m
  int rows = 0;        // rows a team keeps; set alone (no tail_rows): every tile, no tail
  int tail_rows = 0;   // rows a tail tile keeps
  int tail_bands = 0;  // tail tiles a strip, with tail_rows
};

// A side of the domain whose ghosts follow their edge cells (boundary.hpp's neumann and
// convective rules): a trip sets the ghost beside each edge cell from that cell's value at
// every step, as Edges::follow does before each single step.
template <class T>
struct TripSide {
  int kind = 0;  // 0: the ghosts hold still (dirichlet, periodic, a neighbour); 1 neumann; 2 convective
  int edge = 0;  // the edge cells' column (west, east) or row (south, north), in the grid's indices
  T ambient = T(0), ratio = T(0), h = T(0);  // convective: ghost = edge + ratio (ambient - edge)
};

// Mirrored sides (TripRule::mirror_sides): past such an edge a trip reads the grid's cells
// mirrored (reflected), each as the cell as far inside the edge: neumann's ghost is the edge
// cell itself, and a mirror image m cells deep stays one through m steps when the trip's
// `first` box covers it (kMaxTripSteps cells past the edge), so that the tiles at such an
// edge take c's plain update with no ghost to set. The image's rows add their south and north
// values in the other order (the sum's order mirrored too: trip_kernel.hpp); its columns need
// not (west + east commutes).
//
// Wrapped axes (TripRule::wrap_axes) are read the same way, each cell past the edge as the
// cell as far inside the other edge: a block alone across a periodic axis, whose cells there
// are its own. The images are copies in the sum's order too, so nothing is swapped.
//
// An edge where nothing mirrors (far from any index, and twice it still an int).
constexpr int kNoMirror = 1 << 29;
// The row (or column) index v read at, reflected at the edges lo (a first row or column) and
// hi (one past a last).
KOKKOS_INLINE_FUNCTION int reflected(int v, int lo, int hi) {
  v = v < lo ? 2 * lo - 1 - v : v;
  return v >= hi ? 2 * hi - 1 - v : v;
}
// The same index wrapped: moved by the period hi - lo into [lo, hi) (from less than a period
// outside it).
KOKKOS_INLINE_FUNCTION int wrapped(int v, int lo, int hi) {
  v = v < lo ? v + (hi - lo) : v;
  return v >= hi ? v - (hi - lo) : v;
}

// What a trip's steps compute besides c's isotropic update (the stepper's Scheme), each cell
// with the one-step kernels' formulas (stencil_anisotropic.hpp, stencil_field.hpp, the
// source added after the step, boundary.hpp's ghosts). The default: c's update alone.
template <class T>
struct TripRule {
  enum Operator { isotropic, anisotropic, field };
  Operator op = isotropic;
  T cx = T(0), cy = T(0);  // anisotropic
  Grid<T> faces;           // field: its faces' c on u's grid (field_faces: stencil_field.hpp)
  int source = 0;          // 0 none; 1 the number s; 2 the field sf (on u's grid)
  T s = T(0);
  Grid<T> sf;
  TripSide<T> west, east, south, north;
  // Neumann's sides read mirrored instead (with c's plain update alone; see reflected): bit k
  // for side k in Trip::shrink's order (south, north, west, east).
  unsigned mirror_sides = 0;
  // Periodic axes of a block alone across them read wrapped (with c's plain update alone; see
  // wrapped): bit 0 y (south and north), bit 1 x (west and east).
  unsigned wrap_axes = 0;
  // wrap_axes as sides, in mirror_sides' bits.
  unsigned wrap_sides() const { return (wrap_axes & 1u ? 3u : 0u) | (wrap_axes & 2u ? 12u : 0u); }
  bool follows() const { return west.kind != 0 || east.kind != 0 || south.kind != 0 || north.kind != 0; }
};

// `m` steps (2 <= m <= kMaxTripSteps) from `u` into `next`: next <- the cells of trip.keep
// after m steps, queued on `space`. u must hold valid values on step_box(0) and one cell
// around it, which past a mirrored edge are read reflected and past a wrapped one wrapped (its
// ghosts are never read); cells outside the grid count as zero. A cell that turns non-finite at step
// `step` + k lowers `first_bad` to `step` + k + 1. L(u) is not kept (trips never hold a
// frame's step). `rule`: what the steps compute besides c's update (c is unused where its
// operator is not the isotropic one).
template <class T>
void step_trip(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, T c, std::int64_t step, int m,
               const Kokkos::View<std::int64_t>& first_bad, const Trip& trip, const TripShape& shape = {},
               const TripRule<T>& rule = TripRule<T>());

// `count` trips of m steps from u, each from the last one's result: into next, back into u,
// and so on (the result in u when count is even). Trip n is `trip` moved on by n m steps:
// its steps' boxes and its one kept box shrink by m cells a trip on the sides that shrink
// (a deep halo used up trip by trip). On a device, in one launch (a chain) where the shape
// allows (no tail; tiles at least m cells each way): a team starts a tile of trip n once the
// tiles of trip n - 1 around it are done, so no trip waits for the slowest team of the one
// before. Its tiles' rows are shape's, else chain_tile_rows's; `board` (an int a tile, and
// one) is grown to fit. Returns those rows, or 0 when the trips ran one launch each.
template <class T>
int step_trips(const ExecutionSpace& space, Grid<T> u, Grid<T> next, T c, std::int64_t step, int m, int count,
               const Kokkos::View<std::int64_t>& first_bad, Trip trip, const TripShape& shape,
               Kokkos::View<int*>& board, const TripRule<T>& rule = TripRule<T>());
// A chain's tiles by the rule: the tallest (to 256 rows) whose tiles number twice the teams
// resident at once, so that teams find tiles of the next trip whose neighbours are done
// while the last of a trip run. 0 where a chain does not pay: host back ends, and tiles
// under kChainRows rows (the overlap, 2 m rows a tile, then costs more than the waits save).
// This and rule_tile_rows count the teams of c's plain update; a form that runs fewer teams
// at once (trip_kernel_parts.hpp) plans its launches' own tiles by its own count.
constexpr int kChainRows = 64;
template <class T>
int chain_tile_rows(const ExecutionSpace& space, const Trip& trip, int m);

// The rows of a tile by the rule, when no shape forces them (trip_tiles.hpp's plan_tiles).
template <class T>
int rule_tile_rows(const ExecutionSpace& space, const Trip& trip, int m);
// Whether trips run on a device (teams of kTripColumns threads) rather than a host.
bool trips_on_device();

// The most steps a trip takes: 1 on host back ends (the one-step kernel keeps a CPU's
// caches busy as well; docs/history/diffusion.md), kDeviceTripSteps on a device, and on
// several ranks no more than the halo's width (a w-deep halo serves w steps). `forced_steps`
// (a test's TripShape::steps; 0: none) wins, capped the same way.
constexpr int kDeviceTripSteps = 8;  // the fastest of 1-8 at 2000^2 and 8192^2, both precisions, on an H100
int steps_per_trip(bool alone, int halo_width, int forced_steps = 0);
// The run log's words for it, e.g. "8 steps per trip through device memory".
std::string describe_trips(int steps);

}  // namespace trident::diffusion
