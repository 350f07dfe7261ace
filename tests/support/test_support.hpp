#pragma once
// Helpers shared by the test suites: scratch folders and source paths.
#include <mpi.h>

#include <functional>
#include <string>

#include "core/runtime.hpp"

namespace trident::test {

// This rank's host and device, as the runtime finds them: core::choose_transport picks NCCL
// only where each rank drives a GPU of its own (so 3 or 4 ranks on a 2-GPU machine, or 2
// on one GPU, fall back to MPI).
DeviceBinding this_rank_binding();

// A fresh folder under the build tree's scratch area, the same name on every rank
// (rank 0 creates it; collective).
std::string scratch_folder(MPI_Comm comm, const std::string& name);

bool file_exists(const std::string& path);
void write_text(const std::string& path, const std::string& text);

// The message of the InputError that `work` throws, or "no error".
std::string input_error_message(const std::function<void()>& work);

// Path of a file in the source tree (inputs/, tests/...).
std::string source_path(const std::string& relative);

}  // namespace trident::test
