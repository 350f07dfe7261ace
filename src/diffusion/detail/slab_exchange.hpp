#pragma once
// Moving a distributed 2D array between ranks for the slab-decomposed FFT of the jagged
// start field: slabs of rows to slabs of columns (a distributed transpose) and slabs of
// rows to the study's 2D blocks. Device kernels pack and unpack; between ranks the pieces
// travel through a transport::DeviceComm as one exchange with every other rank (exact copies:
// nothing depends on the route), the piece a rank keeps by a device copy. Memory per rank
// grows with its slab, not with the grid.
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "transport/device_comm.hpp"
#include "diffusion/detail/decomposition.hpp"

namespace trident::diffusion {

using Complex = Kokkos::complex<double>;
using ComplexLines = Kokkos::View<Complex*>;  // lines one after the other
using RealLines = Kokkos::View<double*>;

// `in` holds this rank's rows split(rows, P, rank) of a rows x columns array (row-major);
// `out` receives this rank's rows split(columns, P, rank) of its transpose, a columns x
// rows array. Collective over `comm`.
void transpose_slabs(transport::DeviceComm& comm, std::int64_t rows, std::int64_t columns, const ComplexLines& in,
                     const ComplexLines& out);

// `slab` holds this rank's rows split(ny, P, rank) of an ny x nx field; `block` receives
// the cells (y rows from y.offset, x columns from x.offset) of the same field, whatever
// rows other ranks hold them in, converted to T. Each rank names its own block; blocks
// need not tile the grid. Collective over `comm`.
template <class T>
void slabs_to_blocks(transport::DeviceComm& comm, std::int64_t nx, std::int64_t ny, const RealLines& slab, Extent x, Extent y,
                     const Kokkos::View<T**, Kokkos::LayoutRight>& block);

}  // namespace trident::diffusion
