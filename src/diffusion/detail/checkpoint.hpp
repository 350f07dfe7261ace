#pragma once
// Diffusion checkpoints: the field at one step, in its own precision, so that a restart
// continues bit for bit. One HDF5 file, written to FILE.partial and renamed. It also names
// the output it was written beside, so that a resumed run's XDMF can show that output's
// earlier frames with its own as one series.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "diffusion/settings.hpp"
#include "diffusion/detail/decomposition.hpp"

namespace trident::diffusion {

// Writes this rank's interior block (row-major, y.size x x.size) of the field at `step`;
// `output_path` is the run's output (recorded as an absolute path).
template <class T>
void write_checkpoint(MPI_Comm comm, const std::string& path, const DiffusionSettings& settings,
                      std::int64_t step, const Decomposition& decomposition, const std::vector<T>& block,
                      const std::string& output_path);

// Checks that the checkpoint fits the deck (grid, its dx, dy and origin, c, dt, precision,
// step within the run) and returns its step. Throws InputError naming the file and the
// deck key that differs. A checkpoint written before dx, dy and origin were recorded ran
// with their defaults (1, 1, [0, 0]).
std::int64_t checkpoint_step(const std::string& path, const DiffusionSettings& settings);

// The absolute path of the output the checkpoint was written beside; empty for a
// checkpoint that does not record it.
std::string checkpoint_output(const std::string& path);

// This rank's block of the checkpointed field.
template <class T>
std::vector<T> read_checkpoint_block(const std::string& path, const Decomposition& decomposition);

}  // namespace trident::diffusion
