#pragma once
// Ridge checkpoints: the λ whose LSMR had stopped by its own test when a stop signal came,
// with their outcomes and their solutions. A restart sweeps only the
// other λ, from iteration 0: each λ's result does not depend on which λ share its sweep.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ridge/settings.hpp"
#include "ridge/detail/problem.hpp"
#include "ridge/detail/sweep.hpp"

namespace trident::io {
class OutputFile;
}

namespace trident::ridge {

// Writes `dataset` (λ x columns, λ in the order of curve.lambdas()) from the solution rows
// each rank holds (curve.local_lambdas()), `shift` (the prior x0, when not empty) added to
// each. Collective.
void write_solution_rows(MPI_Comm comm, io::OutputFile& out, const std::string& dataset, const GatheredSweep& curve,
                         std::uint64_t columns, const std::vector<double>& shift = {});

// Writes the finished λ of `finished` (every outcome in it must be finished). Collective.
void write_checkpoint(MPI_Comm comm, const std::string& path, const ridge::RidgeSettings& settings,
                      const Problem& problem, const GatheredSweep& finished);

// The finished λ of a checkpoint, each rank holding the solutions of a contiguous block of
// them, after checking that it was written for this deck and problem. Throws InputError
// naming the file and the deck key that differs. Collective (every rank reads).
GatheredSweep read_checkpoint(MPI_Comm comm, const std::string& path, const ridge::RidgeSettings& settings,
                              const Problem& problem);

}  // namespace trident::ridge
