#include "diffusion/detail/stencil_field.hpp"

#include <string>

namespace trident::diffusion {

template <class T>
void step_field(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, const Grid<T>& laplacian,
                const Grid<T>& faces, std::int64_t step, const Kokkos::View<std::int64_t>& first_bad, const Box& box) {
  if (box.empty()) return;
  const int w = halo_of(u, laplacian);
  const unsigned ny = static_cast<unsigned>(laplacian.extent(0)), nx = static_cast<unsigned>(laplacian.extent(1));
  Kokkos::parallel_for(
      "trident::diffusion::step_field",
      Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>>(space, {box.y0, box.x0}, {box.y1, box.x1}),
      KOKKOS_LAMBDA(const int j, const int i) {
        const T change = field_change(u, faces, j, i);
        const T v = u(j, i) + change;
        next(j, i) = v;
        if (static_cast<unsigned>(j - w) < ny && static_cast<unsigned>(i - w) < nx) laplacian(j - w, i - w) = -change;
        if (!(v - v == T(0))) (void)Kokkos::atomic_fetch_min(&first_bad(), step + 1);
      });
}

template <class T>
void applied_field_only(const Grid<T>& u, const Grid<T>& laplacian, const Grid<T>& faces, const Box& box) {
  const int w = halo_of(u, laplacian);
  Kokkos::parallel_for(
      "trident::diffusion::applied_field", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({box.y0, box.x0}, {box.y1, box.x1}),
      KOKKOS_LAMBDA(const int j, const int i) { laplacian(j - w, i - w) = -field_change(u, faces, j, i); });
}

template <class T>
Grid<T> field_faces(const Grid<T>& cf) {
  const int ny = static_cast<int>(cf.extent(0)), nx = static_cast<int>(cf.extent(1));
  const auto c_at = [cf, ny, nx] KOKKOS_FUNCTION(int y, int x) {
    return y >= 0 && y < ny && x >= 0 && x < nx ? cf(y, x) : T(0);
  };
  const std::string name = "trident::diffusion::field_faces";
  const auto extents = faces_extents<T>(ny, nx);
  Grid<T> faces(Kokkos::view_alloc(Kokkos::WithoutInitializing, name), extents.first, extents.second);
  if constexpr (kFourFacesACell<T>) {
    Kokkos::parallel_for(
        name, Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {ny, nx}), KOKKOS_LAMBDA(const int j, const int i) {
          faces(j, 4 * i + kFaceWest) = face_c(c_at(j, i), c_at(j, i - 1));
          faces(j, 4 * i + kFaceEast) = face_c(c_at(j, i + 1), c_at(j, i));
          faces(j, 4 * i + kFaceSouth) = face_c(c_at(j, i), c_at(j - 1, i));
          faces(j, 4 * i + kFaceNorth) = face_c(c_at(j + 1, i), c_at(j, i));
        });
  } else {
    Kokkos::parallel_for(
        name, Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {ny + 1, nx + 1}),
        KOKKOS_LAMBDA(const int j, const int i) {
          faces(j, 2 * i) = face_c(c_at(j, i), c_at(j, i - 1));
          faces(j, 2 * i + 1) = face_c(c_at(j, i), c_at(j - 1, i));
        });
  }
  Kokkos::fence();
  return faces;
}

#define TRIDENT_FIELD(T)                                                                                        \
  template void step_field<T>(const ExecutionSpace&, const Grid<T>&, const Grid<T>&, const Grid<T>&, const Grid<T>&, \
                              std::int64_t, const Kokkos::View<std::int64_t>&, const Box&);                    \
  template void applied_field_only<T>(const Grid<T>&, const Grid<T>&, const Grid<T>&, const Box&);  \
  template Grid<T> field_faces<T>(const Grid<T>&);
TRIDENT_FIELD(float)
TRIDENT_FIELD(double)
#undef TRIDENT_FIELD

}  // namespace trident::diffusion
