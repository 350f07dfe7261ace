#include "diffusion/detail/stencil_anisotropic.hpp"

namespace trident::diffusion {

template <class T>
void step_anisotropic(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, const Grid<T>& laplacian,
                      T cx, T cy, std::int64_t step, const Kokkos::View<std::int64_t>& first_bad, const Box& box) {
  if (box.empty()) return;
  const int w = halo_of(u, laplacian);
  const unsigned ny = static_cast<unsigned>(laplacian.extent(0)), nx = static_cast<unsigned>(laplacian.extent(1));
  Kokkos::parallel_for(
      "trident::diffusion::step_anisotropic",
      Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>>(space, {box.y0, box.x0}, {box.y1, box.x1}),
      KOKKOS_LAMBDA(const int j, const int i) {
        const T centre = u(j, i), west = u(j, i - 1), east = u(j, i + 1), south = u(j - 1, i), north = u(j + 1, i);
        const T v = stepped_anisotropic(centre, west, east, south, north, cx, cy);
        next(j, i) = v;
        if (static_cast<unsigned>(j - w) < ny && static_cast<unsigned>(i - w) < nx)
          laplacian(j - w, i - w) = applied_anisotropic(centre, west, east, south, north, cx, cy);
        if (!(v - v == T(0))) (void)Kokkos::atomic_fetch_min(&first_bad(), step + 1);
      });
}

template <class T>
void applied_only(const Grid<T>& u, const Grid<T>& laplacian, T cx, T cy, const Box& box) {
  const int w = halo_of(u, laplacian);
  Kokkos::parallel_for(
      "trident::diffusion::applied", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({box.y0, box.x0}, {box.y1, box.x1}),
      KOKKOS_LAMBDA(const int j, const int i) {
        laplacian(j - w, i - w) = applied_anisotropic(u(j, i), u(j, i - 1), u(j, i + 1), u(j - 1, i), u(j + 1, i), cx, cy);
      });
}

#define TRIDENT_ANISOTROPIC(T)                                                                                 \
  template void step_anisotropic<T>(const ExecutionSpace&, const Grid<T>&, const Grid<T>&, const Grid<T>&, T, T, \
                                    std::int64_t, const Kokkos::View<std::int64_t>&, const Box&);             \
  template void applied_only<T>(const Grid<T>&, const Grid<T>&, T, T, const Box&);
TRIDENT_ANISOTROPIC(float)
TRIDENT_ANISOTROPIC(double)
#undef TRIDENT_ANISOTROPIC

}  // namespace trident::diffusion
