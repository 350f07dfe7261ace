#pragma once
// A start field read from an HDF5 dataset of shape (ny, nx): each rank reads only its
// block (one hyperslab) in the stored type, copies it to the device and converts it there.
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "deck/diffusion_settings.hpp"
#include "diffusion/decomposition.hpp"

namespace trident::diffusion {

// Throws InputError for a missing file or dataset, a wrong shape, or a non-finite value
// (naming the file, the dataset and the first such cell of the block, as (y, x)).
template <class T>
void fill_block_from_file(const deck::StartField& start, std::int64_t nx, std::int64_t ny, Extent x, Extent y,
                          const Kokkos::View<T**, Kokkos::LayoutRight>& block);

}  // namespace trident::diffusion
