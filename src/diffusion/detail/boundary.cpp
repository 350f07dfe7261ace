#include "diffusion/detail/boundary.hpp"

#include <mpi.h>

#include "diffusion/detail/stencil_field.hpp"

namespace trident::diffusion {


template <class T>
Edges<T>::Edges(const std::array<Boundary, 4>& rules, double cx, double cy, const Decomposition& d, int width)
    : width_(width) {
  const int w = width, nx = static_cast<int>(d.x().size), ny = static_cast<int>(d.y().size);
  const bool toward[4] = {d.west() != MPI_PROC_NULL, d.east() != MPI_PROC_NULL, d.south() != MPI_PROC_NULL,
                          d.north() != MPI_PROC_NULL};
  for (const Boundary& b : rules)
    follows_ |= b.kind == BoundaryKind::neumann || b.kind == BoundaryKind::convective;
  for (int side = 0; side < 4; ++side) {
    const Boundary& b = rules[static_cast<std::size_t>(side)];
    if (toward[side] || b.kind == BoundaryKind::periodic) continue;  // a halo from a neighbour
    if (b.kind == BoundaryKind::dirichlet && b.value == 0.0) continue;  // zero already
    Line line{};
    line.kind = b.kind;
    line.vertical = side == kWest || side == kEast;
    const int n = line.vertical ? nx : ny;
    const bool high = side == kEast || side == kNorth;
    line.ghost = high ? w + n : w - 1;
    line.edge = high ? w + n - 1 : w;
    // Along the line: the block's cells and the halo toward a neighbour on either end (cells
    // of its block that deep halos recompute here read these ghosts too).
    const int along = line.vertical ? ny : nx;
    const int before = line.vertical ? kSouth : kWest;
    line.first = toward[before] ? 0 : w;
    line.last = toward[before + 1] ? along + 2 * w : w + along;
    line.value = static_cast<T>(b.value);
    line.h = static_cast<T>(b.h);
    const double c = line.vertical ? cx : cy;  // 0 with a diffusivity field: use_field's c then
    line.ratio = b.kind == BoundaryKind::convective && c > 0 ? static_cast<T>(b.h / c) : T(0);
    lines_[count_++] = line;
  }
}

template <class T>
void Edges<T>::set_fixed(const Grid<T>& grid) const {
  for (int k = 0; k < count_; ++k) {
    const Line line = lines_[k];
    if (line.kind != BoundaryKind::dirichlet) continue;
    // The whole strip of ghosts `width` deep, all along the grid: no step writes it.
    const int w = width_;
    const int g0 = line.ghost < line.edge ? 0 : line.ghost, g1 = g0 + w;
    const int along = static_cast<int>(line.vertical ? grid.extent(0) : grid.extent(1));
    Kokkos::parallel_for(
        "trident::diffusion::boundary_fixed",
        Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, g0}, {along, g1}), KOKKOS_LAMBDA(const int a, const int g) {
          if (line.vertical)
            grid(a, g) = line.value;
          else
            grid(g, a) = line.value;
        });
  }
  Kokkos::fence();
}

template <class T>
void Edges<T>::follow(const ExecutionSpace& space, const Grid<T>& u) const {
  for (int k = 0; k < count_; ++k) {
    const Line line = lines_[k];
    if (line.kind == BoundaryKind::dirichlet) continue;
    const Grid<T> cf = cf_;
    const bool field = cf.extent(0) > 0;
    Kokkos::parallel_for(
        "trident::diffusion::boundary_follow", Kokkos::RangePolicy<ExecutionSpace>(space, line.first, line.last),
        KOKKOS_LAMBDA(const int a) {
          const T edge = line.vertical ? u(a, line.edge) : u(line.edge, a);
          T ratio = line.ratio;
          if (field) {  // h over the face's c, the edge cell's (its ghost holds the same)
            const T c = line.vertical ? cf(a, line.edge) : cf(line.edge, a);
            ratio = field_ratio(line.h, face_c(c, c));
          }
          const T ghost = line.kind == BoundaryKind::neumann ? edge : convective_ghost(edge, ratio, line.value);
          if (line.vertical)
            u(a, line.ghost) = ghost;
          else
            u(line.ghost, a) = ghost;
        });
  }
}

template class Edges<float>;
template class Edges<double>;

}  // namespace trident::diffusion
