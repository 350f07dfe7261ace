#pragma once
// The step with cells longer along one axis than the other (diffusion.D with dx != dy):
//   u_new = (u + c_x ((west + east) - 2u)) + c_y ((south + north) - 2u)
// a kernel of its own, so that the isotropic kernels (stencil.hpp, trip.hpp) keep their
// arithmetic; the trips compute each cell with the same formula (trip_kernel.hpp). Its "Laplacian", kept for frames, is what the step subtracts:
//   A(u) = -(c_x ((west + east) - 2u) + c_y ((south + north) - 2u)), so u_new = u - A(u)
// to rounding. Every cell is computed alike wherever it is computed (owner or deep halo).
#include <cstdint>

#include "diffusion/detail/stencil.hpp"

namespace trident::diffusion {

template <class T>
KOKKOS_INLINE_FUNCTION T stepped_anisotropic(T centre, T west, T east, T south, T north, T cx, T cy) {
  return (centre + cx * ((west + east) - T(2) * centre)) + cy * ((south + north) - T(2) * centre);
}
template <class T>
KOKKOS_INLINE_FUNCTION T applied_anisotropic(T centre, T west, T east, T south, T north, T cx, T cy) {
  return -(cx * ((west + east) - T(2) * centre) + cy * ((south + north) - T(2) * centre));
}

// The step on the cells of `box` from `u` into `next`, queued on `space`; `laplacian` as in
// stencil.hpp's step (block-shaped, or empty), receiving A(u). A non-finite cell lowers
// `first_bad` to `step` + 1.
template <class T>
void step_anisotropic(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, const Grid<T>& laplacian,
                      T cx, T cy, std::int64_t step, const Kokkos::View<std::int64_t>& first_bad, const Box& box);

// A(u) alone on the block's cells `box`, into the block-shaped `laplacian` (the final frame).
template <class T>
void applied_only(const Grid<T>& u, const Grid<T>& laplacian, T cx, T cy, const Box& box);

}  // namespace trident::diffusion
