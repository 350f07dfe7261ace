#pragma once
// A start field read from an HDF5 dataset of shape (ny, nx): each rank reads only its
// block (hyperslabs of whole block rows, kStartSlabBytes at a time) in the stored type,
// copies it to the device (on a GPU, each slab while the next is read) and converts it there.
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "diffusion/settings.hpp"
#include "diffusion/detail/decomposition.hpp"

namespace trident::diffusion {

// File bytes read at a time: small enough that two page-locked slab buffers cost little
// to allocate, large enough that each HDF5 read runs at the file's speed.
constexpr std::size_t kStartSlabBytes = std::size_t(8) << 20;

// What the messages call the file: the start field's, or another field's of the same shape
// read the same way (diffusion.source).
constexpr const char* kStartFileRole = "start field file (diffusion.start.file)";
constexpr const char* kSourceFileRole = "source file (diffusion.source.file)";

// Opens the file and checks that the dataset exists with shape (ny, nx), reading no cell:
// InputError naming the file and the dataset otherwise, the words fill_block_from_file uses.
void check_start_file(const StartField& start, std::int64_t nx, std::int64_t ny,
                      const char* role = kStartFileRole);

// The `units` attribute (text) of the start file's dataset, "" when it has none: the unit
// of the field, which the output's /diffusion/field (and laplacian) carry.
std::string start_file_units(const StartField& start);

// Throws InputError for a missing file or dataset, a wrong shape, or a non-finite value
// (naming the file, the dataset and the first such cell of the block, as (y, x)).
template <class T>
void fill_block_from_file(const StartField& start, std::int64_t nx, std::int64_t ny, Extent x, Extent y,
                          const Kokkos::View<T**, Kokkos::LayoutRight>& block,
                          std::size_t slab_bytes = kStartSlabBytes, const char* role = kStartFileRole);

}  // namespace trident::diffusion
