#include "diffusion/detail/decomposition.hpp"

#include <algorithm>

#include "core/comm.hpp"
#include "core/error.hpp"

namespace trident::diffusion {

// MPI's dims (slowest, fastest) = (ranks along y, along x) for `n` ranks; throws InputError
// when the deck's layout does not match the job or the blocks do not fit the grid.
void block_layout(int n, std::int64_t nx, std::int64_t ny, std::array<std::int64_t, 2> ranks, int dims[2]) {
  if (ranks[0] > 0 && ranks[0] * ranks[1] != n) {
    throw InputError("diffusion.ranks: " + std::to_string(ranks[0]) + " x " +
                     std::to_string(ranks[1]) + " blocks need " + std::to_string(ranks[0] * ranks[1]) +
                     " ranks, but the job has " + std::to_string(n));
  }
  dims[0] = static_cast<int>(ranks[1]);
  dims[1] = static_cast<int>(ranks[0]);
  if (ranks[0] == 0) {
    dims[0] = dims[1] = 0;
    mpi::balanced_dims(n, dims);
    // Give the longer axis the larger count, so blocks stay close to square.
    if ((ny < nx) == (dims[0] > dims[1])) std::swap(dims[0], dims[1]);
  }
  if (dims[1] > nx || dims[0] > ny) {
    throw InputError("diffusion: " + std::to_string(dims[1]) + " x " + std::to_string(dims[0]) +
                     " blocks (ranks along x by y) do not fit a grid of nx = " + std::to_string(nx) +
                     " by ny = " + std::to_string(ny) + " cells; use fewer ranks or set diffusion.ranks");
  }
}

Decomposition::Decomposition(MPI_Comm comm, std::int64_t nx, std::int64_t ny,
                             std::array<std::int64_t, 2> ranks, std::array<bool, 2> periodic)
    : nx_(nx), ny_(ny), periodic_(periodic) {
  const int n = mpi::size(comm);
  int dims[2] = {0, 0};
  // The same on every rank; collective, so that the job ends with one message and exit 2
  // through MPI_Finalize instead of every rank aborting with its own copy.
  mpi::collective(comm, [&] { block_layout(n, nx, ny, ranks, dims); });
  cart_ = mpi::grid_2d(comm, dims);
  int c[2];
  mpi::grid_coords(cart_, c);
  dims_ = {dims[1], dims[0]};
  coords_ = {c[1], c[0]};
  x_ = split(nx, dims_[0], coords_[0]);
  y_ = split(ny, dims_[1], coords_[1]);
  west_ = neighbour(-1, 0);
  east_ = neighbour(1, 0);
  south_ = neighbour(0, -1);
  north_ = neighbour(0, 1);
}

Decomposition::~Decomposition() {
  mpi::free_comm(cart_);
}

int Decomposition::neighbour(int dx, int dy) const {
  int x = coords_[0] + dx, y = coords_[1] + dy;
  if (periodic_[0]) x = (x + dims_[0]) % dims_[0];
  if (periodic_[1]) y = (y + dims_[1]) % dims_[1];
  if (x < 0 || y < 0 || x >= dims_[0] || y >= dims_[1]) return MPI_PROC_NULL;
  const int c[2] = {y, x};  // MPI's order: slowest (y) first
  return mpi::grid_rank(cart_, c);
}

std::int64_t Decomposition::smallest_block_side() const {
  // The last blocks along each axis are the smallest (remainders go to the first ones).
  return std::min(nx_ / dims_[0], ny_ / dims_[1]);
}

bool Decomposition::alone() const {
  return west_ == MPI_PROC_NULL && east_ == MPI_PROC_NULL && south_ == MPI_PROC_NULL &&
         north_ == MPI_PROC_NULL;
}

}  // namespace trident::diffusion
