#include "diffusion/detail/c_field.hpp"

#include <mpi.h>

#include <limits>
#include <string>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "diffusion/detail/boundary.hpp"
#include "diffusion/detail/start_file.hpp"
#include "diffusion/detail/stencil_field.hpp"
#include "io/exact_text.hpp"

namespace trident::diffusion {


template <class T>
Grid<T> read_c_field(const DiffusionSettings& s, const Decomposition& d, int width) {
  const std::int64_t ny = d.y().size, nx = d.x().size;
  Grid<T> cf("trident::diffusion::c_field", ny + 2 * width, nx + 2 * width);
  Kokkos::View<T**, Kokkos::LayoutRight> block("trident::diffusion::c_block", ny, nx);
  StartField file;
  file.kind = StartField::Kind::file;
  file.file = s.c_file;
  file.dataset = s.c_dataset;
  mpi::collective(d.cart(), [&] {
    fill_block_from_file<T>(file, d.nx(), d.ny(), d.x(), d.y(), block, kStartSlabBytes, kCFileRole);
  });
  load_interior<T>(block, cf);
  Kokkos::fence();
  return cf;
}

namespace {
constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();  // no bad cell

// What a domain edge's face passes, by its rule: the edge cell's own c (dirichlet), h
// (convective) or nothing (neumann); periodic sides have a neighbour.
struct EdgeFace {
  bool edge;  // this side of the block is the domain's edge
  int kind;   // 0 dirichlet, 1 neumann, 2 convective
  double h;
};
}  // namespace

template <class T>
void finish_c_field(const Grid<T>& cf, const DiffusionSettings& s, const Decomposition& d, int width) {
  // Ghosts: the edge cells' c, copied as a neumann rule copies u (periodic sides keep the wrap).
  std::array<Boundary, 4> copy;
  for (int side = 0; side < 4; ++side)
    copy[std::size_t(side)].kind = s.boundary[std::size_t(side)].kind == BoundaryKind::periodic ? BoundaryKind::periodic
                                                                                                : BoundaryKind::neumann;
  const Edges<T> ghosts(copy, 1.0, 1.0, d, width);
  ghosts.follow(ExecutionSpace(), cf);
  Kokkos::fence();

  const int neighbour[4] = {d.west(), d.east(), d.south(), d.north()};
  EdgeFace faces[4];
  for (int side = 0; side < 4; ++side) {
    const Boundary& b = s.boundary[std::size_t(side)];
    faces[side] = {neighbour[side] == MPI_PROC_NULL,
                   b.kind == BoundaryKind::neumann ? 1 : b.kind == BoundaryKind::convective ? 2 : 0, b.h};
  }
  const EdgeFace west = faces[0], east = faces[1], south = faces[2], north = faces[3];
  const int w = width, ny = static_cast<int>(d.y().size), nx = static_cast<int>(d.x().size);
  const std::int64_t gx = d.x().offset, gy = d.y().offset, gnx = d.nx(), cells = d.nx() * d.ny();
  // The first bad cell of the block, by its global index y nx + x.
  std::int64_t first = kNone;
  Kokkos::parallel_reduce(
      "trident::diffusion::c_field_check", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({w, w}, {w + ny, w + nx}),
      KOKKOS_LAMBDA(const int j, const int i, std::int64_t& found) {
        const T c = cf(j, i);
        const auto face = [&](const EdgeFace& e, bool at_edge, int jj, int ii) -> double {
          if (e.edge && at_edge) return e.kind == 1 ? 0.0 : e.kind == 2 ? e.h : double(face_c(c, c));
          return double(face_c(c, cf(jj, ii)));
        };
        const double sum = face(west, i == w, j, i - 1) + face(east, i == w + nx - 1, j, i + 1) +
                           face(south, j == w, j - 1, i) + face(north, j == w + ny - 1, j + 1, i);
        const bool convective_without_c = ((west.edge && i == w && west.kind == 2) || (east.edge && i == w + nx - 1 && east.kind == 2) ||
                                           (south.edge && j == w && south.kind == 2) || (north.edge && j == w + ny - 1 && north.kind == 2)) &&
                                          c == T(0);
        // A negative c is named before the unstable cells it makes: its key comes first.
        const std::int64_t at = (gy + j - w) * gnx + (gx + i - w);
        // A sum that is not finite (a c of half the largest value or more: its faces overflow) is
        // unstable too, so every c the steps meet doubles exactly (stencil_field.hpp's face_c).
        const std::int64_t key = c < T(0) ? at : !(sum <= 1.0) || convective_without_c ? at + cells : kNone;
        if (key < found) found = key;
      },
      Kokkos::Min<std::int64_t>(first));
  std::int64_t global = first;
  mpi::min_over_ranks(d.cart(), &global, 1);
  if (global == kNone) return;
  // The owner describes the cell; the words go to every rank, which all throw them.
  std::string what;
  if (first == global) {
    const std::int64_t at = global % cells;
    const int j = static_cast<int>(at / gnx - gy) + w, i = static_cast<int>(at % gnx - gx) + w;
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cf);
    const double c = double(host(j, i));
    const auto face = [&](const EdgeFace& e, bool at_edge, int jj, int ii) {
      if (e.edge && at_edge) return e.kind == 1 ? 0.0 : e.kind == 2 ? e.h : double(face_c<T>(T(c), T(c)));
      return double(face_c<T>(T(c), host(jj, ii)));
    };
    const double sum = face(west, i == w, j, i - 1) + face(east, i == w + nx - 1, j, i + 1) + face(south, j == w, j - 1, i) +
                       face(north, j == w + ny - 1, j + 1, i);
    const std::string cell = "cell (" + std::to_string(at / gnx) + ", " + std::to_string(at % gnx) + ")";
    if (c < 0)
      what = cell + " has c = " + io::exact_text(c) + "; expected c at least 0";
    else if (!(sum <= 1.0))
      what = "the faces of " + cell + " pass " + io::exact_text(sum) +
             " of its value a step (the sum of its four faces' c, harmonic means of neighbouring cells, or h on a "
             "convective edge), more than 1: the scheme is unstable there; lower c";
    else
      what = cell + " lies on a convective edge with c = 0; a convective face needs c > 0 there";
  }
  what = mpi::broadcast(d.cart(), what, static_cast<int>(mpi::max_over_ranks(d.cart(), first == global ? double(mpi::rank(d.cart())) : -1.0)));
  mpi::collective(d.cart(), [&] { throw InputError("diffusion.c: " + s.c_file + ": dataset '" + s.c_dataset + "': " + what); });
}

template Grid<float> read_c_field<float>(const DiffusionSettings&, const Decomposition&, int);
template Grid<double> read_c_field<double>(const DiffusionSettings&, const Decomposition&, int);
template void finish_c_field<float>(const Grid<float>&, const DiffusionSettings&, const Decomposition&, int);
template void finish_c_field<double>(const Grid<double>&, const DiffusionSettings&, const Decomposition&, int);

}  // namespace trident::diffusion
