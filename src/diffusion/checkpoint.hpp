#pragma once
// Diffusion checkpoints: the field at one step, in its own precision, so that a restart
// continues bit for bit. One HDF5 file, written to FILE.partial and renamed.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "deck/diffusion_settings.hpp"
#include "diffusion/decomposition.hpp"

namespace trident::diffusion {

// Writes this rank's interior block (row-major, y.size x x.size) of the field at `step`.
template <class T>
void write_checkpoint(MPI_Comm comm, const std::string& path, const deck::DiffusionSettings& settings,
                      std::int64_t step, const Decomposition& decomposition, const std::vector<T>& block);

// Checks that the checkpoint fits the deck (grid, c, dt, precision, step within the run)
// and returns its step. Throws InputError naming the file and the deck key that differs.
std::int64_t checkpoint_step(const std::string& path, const deck::DiffusionSettings& settings);

// This rank's block of the checkpointed field.
template <class T>
std::vector<T> read_checkpoint_block(const std::string& path, const Decomposition& decomposition);

}  // namespace trident::diffusion
