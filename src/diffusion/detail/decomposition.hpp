#pragma once
// The grid split into 2D blocks over a Cartesian communicator, each axis by the balanced
// split (core/balanced_split.hpp): remainders go to the first blocks along each axis, so
// block sizes differ by at most one cell.
#include <Kokkos_Macros.hpp>
#include <mpi.h>

#include <array>
#include <cstdint>

#include "core/balanced_split.hpp"

namespace trident::diffusion {

struct Extent {
  std::int64_t offset = 0;  // first global cell of this block
  std::int64_t size = 0;    // cells in this block
};

// Cells [offset, offset+size) of part `part` of `parts` along an axis of `cells` cells
// (core::balanced_part; core::balanced_owner is its inverse).
KOKKOS_INLINE_FUNCTION Extent split(std::int64_t cells, int parts, int part) {
  const core::BalancedPart p = core::balanced_part(cells, parts, part);
  Extent e;
  e.offset = p.first;
  e.size = p.count;
  return e;
}

// MPI's dims (slowest, fastest) = (ranks along y, along x) for `n` ranks; throws InputError
// when the deck's layout does not match the job or the blocks do not fit the grid.
// Needs no communicator: `validate --ranks N` checks a job it does not run in.
void block_layout(int n, std::int64_t nx, std::int64_t ny, std::array<std::int64_t, 2> ranks, int dims[2]);

class Decomposition {
 public:
  // `ranks` = {along x, along y}; {0, 0} lets MPI_Dims_create choose. Throws InputError
  // (naming diffusion.ranks or diffusion.nx/ny) when the split is impossible. Along a
  // `periodic` axis {x, y} the blocks wrap around: the first block's neighbour before it is
  // the last block (itself when the axis has one block), so halos carry the wrap.
  Decomposition(MPI_Comm comm, std::int64_t nx, std::int64_t ny, std::array<std::int64_t, 2> ranks,
                std::array<bool, 2> periodic = {false, false});
  ~Decomposition();
  Decomposition(const Decomposition&) = delete;
  Decomposition& operator=(const Decomposition&) = delete;

  MPI_Comm cart() const { return cart_; }
  std::int64_t nx() const { return nx_; }
  std::int64_t ny() const { return ny_; }
  const std::array<int, 2>& dims() const { return dims_; }      // ranks along x, y
  const std::array<int, 2>& coords() const { return coords_; }  // this rank's block
  Extent x() const { return x_; }
  Extent y() const { return y_; }
  // Neighbour ranks in `cart()`, MPI_PROC_NULL at the domain's edge (none along a periodic axis).
  int west() const { return west_; }
  int east() const { return east_; }
  int south() const { return south_; }  // lower y
  int north() const { return north_; }  // higher y
  bool alone() const;  // no neighbour at all (not even itself across a periodic axis): no halo exchange
  const std::array<bool, 2>& periodic() const { return periodic_; }
  // The rank whose block lies `dx` blocks east and `dy` blocks north (each -1, 0 or 1),
  // MPI_PROC_NULL past the domain's edge, wrapped along a periodic axis; the diagonal ones
  // feed deep halos' corners.
  int neighbour(int dx, int dy) const;
  // The fewest cells any block has along x or y: a halo can be at most this deep, since
  // it comes from the adjacent block alone.
  std::int64_t smallest_block_side() const;

 private:
  MPI_Comm cart_ = MPI_COMM_NULL;
  std::int64_t nx_, ny_;
  std::array<int, 2> dims_{0, 0}, coords_{0, 0};
  std::array<bool, 2> periodic_{false, false};
  Extent x_, y_;
  int west_ = MPI_PROC_NULL, east_ = MPI_PROC_NULL, south_ = MPI_PROC_NULL, north_ = MPI_PROC_NULL;
};

}  // namespace trident::diffusion
