#pragma once
// The explicit diffusion step on a block with a halo of w cells:
//   L(u) = 4u - (west + east + south + north),  u_new = u - c L(u).
// Halo cells outside the domain stay zero, which is the scheme's boundary condition.
// Every cell is computed with the same operations in the same order wherever it is
// computed (by its owner or redundantly in a neighbour's deep halo), so results are the
// same bits for any rank layout and halo depth.
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace trident::diffusion {

template <class T>
using Grid = Kokkos::View<T**, Kokkos::LayoutRight>;  // (rows y, columns x), halo included

using ExecutionSpace = Kokkos::DefaultExecutionSpace;

// Rows [y0, y1) and columns [x0, x1) of a grid, in its own indices (halo included).
struct Box {
  int y0 = 0, y1 = 0, x0 = 0, x1 = 0;
  bool empty() const { return y1 <= y0 || x1 <= x0; }
  std::int64_t cells() const { return empty() ? 0 : std::int64_t(y1 - y0) * (x1 - x0); }
};

// The one formula, shared by every kernel (here and in trip.cpp) so that all compute each
// cell alike: L(u) = 4u - (((west + east) + south) + north), then u - c L(u). Its first two
// sums need no north value: double's trips add them up before the step below gives it
// (sides_of, then laplacian_with_north: the same operations in the same order).
template <class T>
KOKKOS_INLINE_FUNCTION T sides_of(T west, T east, T south) {
  return (west + east) + south;
}
template <class T>
KOKKOS_INLINE_FUNCTION T laplacian_with_north(T centre, T sides, T north) {
  return T(4) * centre - (sides + north);
}
template <class T>
KOKKOS_INLINE_FUNCTION T laplacian_of(T centre, T west, T east, T south, T north) {
  return laplacian_with_north(centre, sides_of(west, east, south), north);
}
template <class T>
KOKKOS_INLINE_FUNCTION T stepped(T centre, T laplacian, T c) {
  return centre - c * laplacian;
}
// A convective ghost (boundary.hpp) from its edge cell's value, by Edges::follow before a
// single step and by the trips at each of their steps alike.
template <class T>
KOKKOS_INLINE_FUNCTION T convective_ghost(T edge, T ratio, T ambient) {
  return edge + ratio * (ambient - edge);
}

// The step on the cells of `box`, from `u` into `next`, queued on `space`. The box and
// one cell around it must hold valid values. When `laplacian` has extent > 0 (the runs pass
// it on the steps whose L(u) goes to a frame, and an empty view otherwise) it is the
// block without halo (ny x nx, like the interior copies) and receives L(u) at the box's
// cells of the block; halo cells recomputed in a deep halo store none. Block-shaped, the
// stores of L start on the rows' aligned boundaries (stored one cell off, in a grid with
// u's halo, they made the step slower: docs/history/diffusion.md). A cell that turns
// non-finite lowers `first_bad` to `step + 1`, the step at which the field stopped being
// finite.
// The halo width of `u` around a block-shaped view (an interior copy or the Laplacian): the
// view's (j, i) is u's (j + w, i + w). 0 for an empty view (a Laplacian not kept).
template <class T>
int halo_of(const Grid<T>& u, const Grid<T>& block) {
  if (block.extent(0) == 0) return 0;
  return static_cast<int>((static_cast<std::int64_t>(u.extent(0)) - static_cast<std::int64_t>(block.extent(0))) / 2);
}

template <class T>
void step(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, const Grid<T>& laplacian, T c,
          std::int64_t step, const Kokkos::View<std::int64_t>& first_bad, const Box& box);

// The same on the cells of `outer` that are not in `inner` (the strips along the edges,
// which wait for the halos while `inner` is updated), in one kernel. `inner` lies in
// `outer` or is empty.
template <class T>
void step_ring(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, const Grid<T>& laplacian, T c,
               std::int64_t step, const Kokkos::View<std::int64_t>& first_bad, const Box& outer, Box inner);

// L(u) alone on the cells of `box` (the block's own), into the block-shaped `laplacian`, for
// the Laplacian of the final frame.
template <class T>
void laplacian_only(const Grid<T>& u, const Grid<T>& laplacian, const Box& box);

// Copies the interior of `u` (without its halo, whatever its depth) into a contiguous
// (ny x nx) view, and back.
template <class T>
void copy_interior(const Grid<T>& u, const Kokkos::View<T**, Kokkos::LayoutRight>& interior);
template <class T>
void load_interior(const Kokkos::View<T**, Kokkos::LayoutRight>& interior, const Grid<T>& u);

}  // namespace trident::diffusion
