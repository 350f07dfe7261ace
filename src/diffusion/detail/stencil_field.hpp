#pragma once
// The step with a diffusivity that varies from cell to cell (diffusion.c: {file, dataset}):
//   u_new = u + (((c_W (W - u) + c_E (E - u)) + c_S (S - u)) + c_N (N - u))
// where the face between cells i and j passes c_ij = 2 c_i c_j / (c_i + c_j) (the harmonic
// mean, 0 when both are 0; the same bits either way round, as 2 a is exact while c_field.cpp's
// check holds every c under half the largest value). `cf` holds c on the block, its halo and
// its ghosts (a ghost has its edge cell's c); field_faces makes each face's c once a run, and
// the one-step kernels and the trips (trip_kernel.hpp) read them there, each cell by the same
// formula; the frames keep the operator applied, A(u) = -(the sum above), so u_new = u - A(u)
// to rounding.
#include <cstdint>

#include "diffusion/detail/stencil.hpp"

namespace trident::diffusion {

template <class T>
KOKKOS_INLINE_FUNCTION T face_c(T a, T b) {
  const T sum = a + b;
  return sum == T(0) ? T(0) : T(2) * a * b / sum;
}

// The change of a cell from its neighbours' values and its faces' c (the one formula of the
// one-step kernel and the trips, trip_kernel.hpp, which take the faces from field_faces).
template <class T>
KOKKOS_INLINE_FUNCTION T field_change_of(T centre, T west, T east, T south, T north, T c_west, T c_east, T c_south,
                                         T c_north) {
  return ((c_west * (west - centre) + c_east * (east - centre)) + c_south * (south - centre)) +
         c_north * (north - centre);
}
// The change of cell (j, i) of `u` with its faces' c read from field_faces' planes `faces`
// (the south plane from row u.extent(0) + 1).
template <class T>
KOKKOS_INLINE_FUNCTION T field_change(const Grid<T>& u, const Grid<T>& faces, int j, int i) {
  const int south = static_cast<int>(u.extent(0)) + 1;
  return field_change_of(u(j, i), u(j, i - 1), u(j, i + 1), u(j - 1, i), u(j + 1, i), faces(j, i), faces(j, i + 1),
                         faces(south + j, i), faces(south + j + 1, i));
}
// A convective ghost's h / c with a field: c the face's between the edge cell and its ghost
// (which holds the edge cell's c), face_c(c, c).
template <class T>
KOKKOS_INLINE_FUNCTION T field_ratio(T h, T face) {
  return h / face;
}

// The faces' c of the field `cf` (shaped like u) for the one-step kernels and the trips
// (trip_kernel.hpp), which read them instead of computing each face: two planes of
// (rows + 1) x (columns + 1)
// values, the first holding at (j, i) the face between cells (j, i - 1) and (j, i), the
// second the face between (j - 1, i) and (j, i), by face_c with c zero outside the grid.
template <class T>
Grid<T> field_faces(const Grid<T>& cf);

// The step on the cells of `box` from `u` into `next`, queued on `space`, with the faces of
// field_faces; `laplacian` as in stencil.hpp's step (block-shaped, or empty), receiving A(u).
// A non-finite cell lowers `first_bad` to `step` + 1.
template <class T>
void step_field(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, const Grid<T>& laplacian,
                const Grid<T>& faces, std::int64_t step, const Kokkos::View<std::int64_t>& first_bad, const Box& box);

// A(u) alone on the block's cells `box`, into the block-shaped `laplacian` (the final frame).
template <class T>
void applied_field_only(const Grid<T>& u, const Grid<T>& laplacian, const Grid<T>& faces, const Box& box);

}  // namespace trident::diffusion
