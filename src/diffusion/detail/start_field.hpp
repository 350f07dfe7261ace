#pragma once
// Start fields for the diffusion study, built on the device, each rank its own block:
// `gaussian` by a kernel, `file` read by hyperslab (start_file.hpp), `jagged` by a
// distributed FFT (jagged_field.hpp). One way in for all of them: fill_start_block.
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

#include "diffusion/settings.hpp"
#include "diffusion/detail/decomposition.hpp"

namespace trident::diffusion {

// Fills `block`, this rank's y.size x x.size cells from (x.offset, y.offset) of the nx x ny
// grid, with the start field the settings describe. Collective over `comm` (every rank
// calls it with its own block). Throws InputError for an unusable start file.
template <class T>
void fill_start_block(MPI_Comm comm, const StartField& start, std::int64_t nx, std::int64_t ny, Extent x,
                      Extent y, const Kokkos::View<T**, Kokkos::LayoutRight>& block);

// Whether any value of `block` is NaN or infinite (a start file in float64 can overflow
// float32, a gaussian's amplitude too).
template <class T>
bool any_not_finite(const Kokkos::View<T**, Kokkos::LayoutRight>& block);

// Device memory that building the start field takes for a while, on each of `ranks`
// ranks, besides the block itself.
std::int64_t start_scratch_bytes(const StartField& start, std::int64_t nx, std::int64_t ny, int ranks);

// This rank's block of the start field as float64 on the host, row-major: for tests and
// benchmarks. Collective over `comm` as fill_start_block.
std::vector<double> start_block(MPI_Comm comm, const StartField& start, std::int64_t nx, std::int64_t ny,
                                Extent x, Extent y);

}  // namespace trident::diffusion
