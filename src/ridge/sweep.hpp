#pragma once
// A λ sweep spread over the ranks: the ascending λ list is cut into contiguous blocks,
// one per rank (ranks beyond the λ count get none and skip the iterations), each rank
// runs the shared-bidiagonalization LSMR on its block, and the L-curve points are
// gathered onto every rank in ascending λ. Solutions stay on the rank that computed them.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "ridge/lsmr_sweep.hpp"

namespace trident::ridge {

// [first, last) of the λ indices that `rank` of `ranks` solves.
std::pair<std::size_t, std::size_t> rank_block(std::size_t count, int ranks, int rank);

class GatheredSweep {
 public:
  const std::vector<LambdaOutcome>& outcomes() const { return points_; }  // ascending λ
  std::vector<double> lambdas() const;
  std::vector<double> residual_norms() const;
  std::vector<double> solution_norms() const;
  std::int64_t total_iterations() const;
  std::int64_t largest_iterations() const;

  // This rank's solutions: λ values and their rows (row-major, columns each).
  const std::vector<double>& local_lambdas() const { return local_lambdas_; }
  const std::vector<double>& local_solutions() const { return local_solutions_; }

  // Adds the points (and local solutions) of another sweep, keeping λ ascending.
  void merge(GatheredSweep other);

  double iteration_seconds = 0;  // LSMR iterations, slowest rank, summed over sweeps
  double residual_seconds = 0;
  // The stop signal (SIGUSR1, SIGTERM) the ranks agreed on during the sweep, or 0. When
  // set, the λ whose stop_reason is kStopUnfinished were cut short: their outcome and
  // solution mean nothing (see finished()).
  int stopped_by = 0;

  // The λ that stopped by their own test, with their solutions on this rank.
  GatheredSweep finished() const;
  // The λ for which keep(λ) holds, with their solutions on this rank.
  GatheredSweep only(const std::function<bool(double)>& keep) const;

  // A sweep made of given outcomes, e.g. from a checkpoint; `local_lambdas` (a subset
  // of theirs) and `local_solutions` are this rank's share of the solutions.
  static GatheredSweep from_outcomes(std::vector<LambdaOutcome> outcomes, std::vector<double> local_lambdas,
                                     std::vector<double> local_solutions);

  friend GatheredSweep sweep_over_ranks(MPI_Comm comm, SweepSolver& solver,
                                        const std::vector<double>& lambdas,
                                        const LsmrOptions& options, bool keep_solutions,
                                        double progress_seconds);

 private:
  std::vector<LambdaOutcome> points_;
  std::vector<double> local_lambdas_;
  std::vector<double> local_solutions_;
};

// Collective. `lambdas` ascending and the same on every rank. Rank 0 (which holds the
// smallest, slowest λ) prints a progress line every `progress_seconds` (0: never).
// A pending SIGUSR1/SIGTERM ends the sweep on every rank after a block of iterations
// (see stopped_by); the λ that had already stopped keep their outcomes.
GatheredSweep sweep_over_ranks(MPI_Comm comm, SweepSolver& solver, const std::vector<double>& lambdas,
                               const LsmrOptions& options, bool keep_solutions,
                               double progress_seconds = 0);

}  // namespace trident::ridge
