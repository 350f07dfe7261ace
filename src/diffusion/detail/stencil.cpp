#include "diffusion/detail/stencil.hpp"

namespace trident::diffusion {

namespace {
// One team per tile of kTileColumns columns by kTileRows rows; each thread owns one
// column of its tile. It loads everything its rows need (the column with one cell above
// and below, and the west and east columns) before it stores anything: the stores to
// `next` could alias `u` as far as the compiler knows, so loads issued after a store
// would wait for it. Loading first keeps 3 * kTileRows + 2 independent loads in flight
// per thread. Consecutive threads take consecutive columns (coalesced).
constexpr int kTileColumns = 128;
#ifndef TRIDENT_DIFFUSION_TILE_ROWS  // a tuning knob for benchmarks: -DTRIDENT_DIFFUSION_TILE_ROWS=8
#define TRIDENT_DIFFUSION_TILE_ROWS 4
#endif
constexpr int kTileRows = TRIDENT_DIFFUSION_TILE_ROWS;
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
// Float: ten teams of a multiprocessor resident at once, registers held to 48 a thread (56
// left room for nine, which was slower at 2000^2: docs/history/diffusion.md). Double: eight
// (64 registers; 48 would spill).
template <class T>
using TilePolicy = Kokkos::TeamPolicy<Kokkos::LaunchBounds<kTileColumns, sizeof(T) == 4 ? 10 : 8>>;
#else
template <class T>
using TilePolicy = Kokkos::TeamPolicy<>;
#endif
template <class T>
using Member = typename TilePolicy<T>::member_type;

struct Tiles {
  int columns, rows;
  template <class T>
  TilePolicy<T> policy(const ExecutionSpace& space) const {
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
    return TilePolicy<T>(space, columns * rows, kTileColumns);
#else
    return TilePolicy<T>(space, columns * rows, 1);  // host: one thread loops over the tile
#endif
  }
};

Tiles tiles(int nx, int ny) {
  return {(nx + kTileColumns - 1) / kTileColumns, (ny + kTileRows - 1) / kTileRows};
}

// L(u) into the block-shaped view (empty: not kept): (j, i) of u's grid is (j - w, i - w)
// there; halo cells, computed in a deep halo, store nothing.
template <class T>
struct BlockLaplacian {
  Grid<T> view;
  int w;
  unsigned ny, nx;
  BlockLaplacian(const Grid<T>& u, const Grid<T>& laplacian)
      : view(laplacian), w(halo_of(u, laplacian)),
        ny(static_cast<unsigned>(laplacian.extent(0))), nx(static_cast<unsigned>(laplacian.extent(1))) {}
  KOKKOS_INLINE_FUNCTION void store(int j, int i, T l) const {
    if (static_cast<unsigned>(j - w) < ny && static_cast<unsigned>(i - w) < nx) view(j - w, i - w) = l;
  }
};
}  // namespace

template <class T>
void step(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, const Grid<T>& laplacian, T c,
          std::int64_t step_index, const Kokkos::View<std::int64_t>& first_bad, const Box& box) {
  if (box.empty()) return;
  const int x0 = box.x0, x1 = box.x1, y0 = box.y0, y1 = box.y1;
  const BlockLaplacian<T> l_block(u, laplacian);
  const Tiles t = tiles(x1 - x0, y1 - y0);
  Kokkos::parallel_for(
      "trident::diffusion::step", t.policy<T>(space), KOKKOS_LAMBDA(const Member<T>& team) {
        const int tile = team.league_rank();
        const int i0 = (tile % t.columns) * kTileColumns + x0;
        const int j0 = (tile / t.columns) * kTileRows + y0;
        for (int column = team.team_rank(); column < kTileColumns; column += team.team_size()) {
          const int i = i0 + column;
          if (i >= x1) break;
          // Rows past the box are clamped to the row after it (valid memory: the box has
          // a valid cell all around); their results are not stored.
          T centre[kTileRows + 2], west[kTileRows], east[kTileRows];
          for (int r = 0; r < kTileRows + 2; ++r) {
            const int j = j0 - 1 + r <= y1 ? j0 - 1 + r : y1;
            centre[r] = u(j, i);
          }
          for (int r = 0; r < kTileRows; ++r) {
            const int j = j0 + r < y1 ? j0 + r : y1 - 1;
            west[r] = u(j, i - 1);
            east[r] = u(j, i + 1);
          }
          for (int r = 0; r < kTileRows; ++r) {
            const int j = j0 + r;
            if (j >= y1) break;
            const T l = laplacian_of(centre[r + 1], west[r], east[r], centre[r], centre[r + 2]);
            const T v = stepped(centre[r + 1], l, c);
            next(j, i) = v;
            l_block.store(j, i, l);
            // v - v is 0 for finite v and NaN otherwise: a compare per cell, and an
            // atomic only once the field is already lost.
            if (!(v - v == T(0))) (void)Kokkos::atomic_fetch_min(&first_bad(), step_index + 1);
          }
        }
      });
}

template <class T>
void step_ring(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, const Grid<T>& laplacian, T c,
               std::int64_t step_index, const Kokkos::View<std::int64_t>& first_bad, const Box& outer, Box inner) {
  if (outer.empty()) return;
  if (inner.empty()) inner = {outer.y0, outer.y0, outer.x0, outer.x0};  // all of `outer` is ring
  const int x0 = outer.x0, y0 = outer.y0;
  const std::int64_t width = outer.x1 - outer.x0;
  const std::int64_t top = std::int64_t(inner.y0 - outer.y0) * width;
  const int side_rows = inner.y1 - inner.y0;
  const int left = inner.x0 - outer.x0, right = outer.x1 - inner.x1;
  const std::int64_t sides = std::int64_t(side_rows) * (left + right);
  const std::int64_t bottom = std::int64_t(outer.y1 - inner.y1) * width;
  const int bottom_y = inner.y1, side_y = inner.y0, right_x = inner.x1;
  const BlockLaplacian<T> l_block(u, laplacian);
  // Strips: rows before `inner` (full width), then the rows beside it (left and right
  // parts), then the rows after it (full width); consecutive k take consecutive columns.
  Kokkos::parallel_for(
      "trident::diffusion::step_edges", Kokkos::RangePolicy<ExecutionSpace>(space, 0, top + sides + bottom),
      KOKKOS_LAMBDA(const std::int64_t k) {
        int j, i;
        if (k < top) {
          j = y0 + static_cast<int>(k / width);
          i = x0 + static_cast<int>(k % width);
        } else if (k < top + sides) {
          const int m = static_cast<int>(k - top), row = m / (left + right), at = m % (left + right);
          j = side_y + row;
          i = at < left ? x0 + at : right_x + (at - left);
        } else {
          const std::int64_t m = k - top - sides;
          j = bottom_y + static_cast<int>(m / width);
          i = x0 + static_cast<int>(m % width);
        }
        const T l = laplacian_of(u(j, i), u(j, i - 1), u(j, i + 1), u(j - 1, i), u(j + 1, i));
        const T v = stepped(u(j, i), l, c);
        next(j, i) = v;
        l_block.store(j, i, l);
        if (!(v - v == T(0))) (void)Kokkos::atomic_fetch_min(&first_bad(), step_index + 1);
      });
}

template <class T>
void laplacian_only(const Grid<T>& u, const Grid<T>& laplacian, const Box& box) {
  // Once per run (the final frame): a plain cell-by-cell form, same arithmetic order.
  const int w = halo_of(u, laplacian);
  Kokkos::parallel_for(
      "trident::diffusion::laplacian",
      Kokkos::MDRangePolicy<Kokkos::Rank<2>>({box.y0, box.x0}, {box.y1, box.x1}), KOKKOS_LAMBDA(const int j, const int i) {
        laplacian(j - w, i - w) = laplacian_of(u(j, i), u(j, i - 1), u(j, i + 1), u(j - 1, i), u(j + 1, i));
      });
}

template <class T>
void copy_interior(const Grid<T>& u, const Kokkos::View<T**, Kokkos::LayoutRight>& interior) {
  const std::int64_t w = halo_of(u, interior);
  Kokkos::parallel_for(
      "trident::diffusion::copy_interior",
      Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {static_cast<std::int64_t>(interior.extent(0)),
                                                      static_cast<std::int64_t>(interior.extent(1))}),
      KOKKOS_LAMBDA(const std::int64_t j, const std::int64_t i) { interior(j, i) = u(j + w, i + w); });
}

template <class T>
void load_interior(const Kokkos::View<T**, Kokkos::LayoutRight>& interior, const Grid<T>& u) {
  const std::int64_t w = halo_of(u, interior);
  Kokkos::parallel_for(
      "trident::diffusion::load_interior",
      Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {static_cast<std::int64_t>(interior.extent(0)),
                                                      static_cast<std::int64_t>(interior.extent(1))}),
      KOKKOS_LAMBDA(const std::int64_t j, const std::int64_t i) { u(j + w, i + w) = interior(j, i); });
}

#define TRIDENT_STENCIL(T)                                                                              \
  template void step<T>(const ExecutionSpace&, const Grid<T>&, const Grid<T>&, const Grid<T>&, T, std::int64_t, \
                        const Kokkos::View<std::int64_t>&, const Box&);                                 \
  template void step_ring<T>(const ExecutionSpace&, const Grid<T>&, const Grid<T>&, const Grid<T>&, T,        \
                             std::int64_t, const Kokkos::View<std::int64_t>&, const Box&, Box);           \
  template void laplacian_only<T>(const Grid<T>&, const Grid<T>&, const Box&);                            \
  template void copy_interior<T>(const Grid<T>&, const Kokkos::View<T**, Kokkos::LayoutRight>&); \
  template void load_interior<T>(const Kokkos::View<T**, Kokkos::LayoutRight>&, const Grid<T>&);
TRIDENT_STENCIL(float)
TRIDENT_STENCIL(double)
#undef TRIDENT_STENCIL

}  // namespace trident::diffusion
