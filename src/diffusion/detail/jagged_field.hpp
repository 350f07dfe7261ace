#pragma once
// The "jagged" start field, built on the device and distributed over the ranks:
//  1. white noise, standard normal, one value per cell from a counter-based hash of
//     (seed, global cell index) (counter_noise.hpp);
//  2. its 2D FFT (real-to-complex along x, complex along y) multiplied by |k|^-exponent,
//     |k| the integer radial wavenumber (k = 0 removed), and transformed back;
//  3. cells farther than radius * min(nx, ny) from the grid's centre set to 0;
//  4. the cells inside the disc scaled to [0, 1] by their minimum and maximum, then those
//     under the `percentile`-th percentile of the inside values (the value at rank
//     floor(percentile / 100 * (count - 1)) in increasing order, exactly) set to 0.
// The FFT runs on slabs of rows, then of columns (batched 1D FFTs through cuFFT or FFTW,
// an all-to-all transpose between them); no rank holds more than its slabs. The result is
// bitwise the same for any rank count and block layout with the same backend.
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "diffusion/settings.hpp"
#include "diffusion/detail/decomposition.hpp"

namespace trident::diffusion {

// Fills this rank's `block` (y.size x x.size cells at x.offset, y.offset) of the nx x ny
// jagged field. Collective over `comm`: every rank calls it with its own block.
template <class T>
void fill_jagged_block(MPI_Comm comm, const StartField& start, std::int64_t nx, std::int64_t ny, Extent x,
                       Extent y, const Kokkos::View<T**, Kokkos::LayoutRight>& block);

// Device memory the jagged field takes for a while on each of `ranks` ranks (its slabs and
// the transposes' buffers), in bytes.
std::int64_t jagged_scratch_bytes(std::int64_t nx, std::int64_t ny, int ranks);

}  // namespace trident::diffusion
