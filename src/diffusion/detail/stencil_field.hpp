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
#include <cstddef>
#include <cstdint>
#include <utility>

#include "diffusion/detail/stencil.hpp"

namespace trident::diffusion {

template <class T>
KOKKOS_INLINE_FUNCTION T face_c(T a, T b) {
  const T sum = a + b;
  return sum == T(0) ? T(0) : T(2) * a * b / sum;
}

// a * b + c. On a GPU one fused multiply-add, said so: left to itself nvcc fuses a product
// with either of two sums, and a kernel of the trips chose otherwise than the one-step kernel
// (their bits differed). On a host rounded twice, as its compiler leaves a * b + c.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T multiply_add(T a, T b, T c) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 4)
    return __fmaf_rn(a, b, c);
  else
    return __fma_rn(a, b, c);
#else
  return a * b + c;
#endif
}

// The change of a cell from its neighbours' values and its faces' c (the one formula of the
// one-step kernel and the trips, trip_kernel.hpp, which take the faces from field_faces):
// ((c_W (W - u) + c_E (E - u)) + c_S (S - u)) + c_N (N - u).
template <class T>
KOKKOS_INLINE_FUNCTION T field_change_of(T centre, T west, T east, T south, T north, T c_west, T c_east, T c_south,
                                         T c_north) {
  const T west_east = multiply_add(c_east, east - centre, c_west * (west - centre));
  return multiply_add(c_north, north - centre, multiply_add(c_south, south - centre, west_east));
}

// The faces' c of the field `cf` (shaped like u) for the one-step kernels and the trips
// (trip_kernel.hpp), which read them instead of computing each face, each by face_c with c
// zero outside the grid, as face_c(the c of its east or north cell, the other's): so a face
// read from either of its cells has the same bits. Laid out for a trip's step to read a
// cell's faces in few loads (faces_of_cell):
// - float: u's rows of 4 values a column, cell (j, i)'s four faces side by side
//   (kFaceWest...), one 16-byte load;
// - double: rows + 1 rows of 2 values a column + 1, cell (j, i)'s west and south faces side
//   by side, its east and north faces its neighbours' (j, i + 1) west and (j + 1, i) south:
//   half the bytes of four, which a trip's eight rows of faces across 8 steps keep in L1.
constexpr int kFaceWest = 0, kFaceEast = 1, kFaceSouth = 2, kFaceNorth = 3;
template <class T>
constexpr bool kFourFacesACell = sizeof(T) == 4;
template <class T>
Grid<T> field_faces(const Grid<T>& cf);
// The extents (rows, values a row) of field_faces' grid for a field of `rows` x `columns`.
template <class T>
constexpr std::pair<std::int64_t, std::int64_t> faces_extents(const std::int64_t rows, const std::int64_t columns) {
  if constexpr (kFourFacesACell<T>)
    return {rows, 4 * columns};
  else
    return {rows + 1, 2 * (columns + 1)};
}
// Whether `faces` is field_faces' of a field shaped like u.
template <class T>
bool faces_fit(const Grid<T>& faces, const Grid<T>& u) {
  const auto extents = faces_extents<T>(std::int64_t(u.extent(0)), std::int64_t(u.extent(1)));
  return std::int64_t(faces.extent(0)) == extents.first && std::int64_t(faces.extent(1)) == extents.second;
}

// Cell (j, i)'s four faces from field_faces' values `faces` of a grid of nx columns: on a GPU
// in one 16-byte load (float), or one and two of 8 bytes (double).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void faces_of_cell(const T* faces, const std::size_t nx, const std::size_t j,
                                               const std::size_t i, T& west, T& east, T& south, T& north) {
  if constexpr (kFourFacesACell<T>) {
    const T* const q = faces + (j * nx + i) * 4;
#if defined(__CUDA_ARCH__)
    static_assert(sizeof(T) == 4, "four faces a cell are read as one float4");
    const float4 f = __ldg(reinterpret_cast<const float4*>(q));
    west = f.x, east = f.y, south = f.z, north = f.w;
#else
    west = q[kFaceWest], east = q[kFaceEast], south = q[kFaceSouth], north = q[kFaceNorth];
#endif
  } else {
    const std::size_t row = 2 * (nx + 1);
    const T* const q = faces + j * row + 2 * i;
#if defined(__CUDA_ARCH__)
    const double2 f = __ldg(reinterpret_cast<const double2*>(q));
    west = f.x, south = f.y;
    east = __ldg(q + 2), north = __ldg(q + row + 1);
#else
    west = q[0], south = q[1], east = q[2], north = q[row + 1];
#endif
  }
}

// The change of cell (j, i) of `u` with its faces' c read from field_faces' `faces`.
template <class T>
KOKKOS_INLINE_FUNCTION T field_change(const Grid<T>& u, const Grid<T>& faces, int j, int i) {
  T west, east, south, north;
  faces_of_cell(faces.data(), u.extent(1), j, i, west, east, south, north);
  return field_change_of(u(j, i), u(j, i - 1), u(j, i + 1), u(j - 1, i), u(j + 1, i), west, east, south, north);
}
// A convective ghost's h / c with a field: c the face's between the edge cell and its ghost
// (which holds the edge cell's c), face_c(c, c).
template <class T>
KOKKOS_INLINE_FUNCTION T field_ratio(T h, T face) {
  return h / face;
}

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
