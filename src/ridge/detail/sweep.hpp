#pragma once
// A λ sweep spread over the ranks. The ranks form groups of consecutive ranks; the
// ascending λ list is cut into contiguous blocks, one per group (groups beyond the λ count
// get none and skip the iterations); each group runs the shared-bidiagonalization LSMR on
// its block with the rows of A split over its ranks (one all-reduce per iteration within
// the group); and the L-curve points are gathered onto every rank in ascending λ.
// Solutions stay on the first rank of the group that computed them.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "transport/device_comm.hpp"
#include "ridge/detail/lsmr_sweep.hpp"

namespace trident::ridge {

// [first, last) of the λ indices that `rank` of `ranks` solves.
std::pair<std::size_t, std::size_t> rank_block(std::size_t count, int ranks, int rank);

// Below this many nonzeros per rank a product takes about as long on a GPU as an
// all-reduce's latency (a few microseconds): more ranks then go to λ groups instead.
constexpr std::int64_t kRowSplitNonzeros = std::int64_t(1) << 20;

// The λ groups a run uses when the deck leaves ridge.lambda_groups at 0: the smallest
// divisor g of `ranks` whose groups hold at least kRowSplitNonzeros nonzeros per rank
// (nonzeros * g / ranks), but no more groups than λ (the largest divisor up to the λ count
// when even that falls short). So a large matrix splits its rows over every rank (g = 1),
// and a small one splits λ as far as the λ go. A matrix of fewer than kRowSplitNonzeros
// nonzeros is not split at all: every rank its own group (the λ split alone, ranks beyond
// the λ count idle), as splitting it would cost more in all-reduces than it saves.
int choose_lambda_groups(int ranks, std::int64_t nonzeros, std::size_t lambdas);

// Where rank `me` of `ranks` falls when the ranks form `groups` groups of consecutive ranks
// (`groups` divides `ranks`): known without a communicator, so a rank can read its rows
// before the device and its communicators exist.
struct GroupPlace {
  int group_size = 1, group = 0, rank_in_group = 0;
};
GroupPlace group_place(int ranks, int me, int groups);

// How the ranks of `comm` split a sweep: `groups` groups of consecutive ranks. Collective.
class SweepLayout {
 public:
  // `groups` divides the rank count. The device communicator of each group (for the
  // per-iteration all-reduce) is built with `transport` when a group has several ranks,
  // its small sums through peer memory where `peer_sums` (TRIDENT_PEER_MEMORY) allows.
  SweepLayout(MPI_Comm comm, int groups, const core::TransportChoice& transport = core::mpi_transport(),
              core::Switch peer_sums = core::Switch::automatic);
  ~SweepLayout();
  SweepLayout(const SweepLayout&) = delete;
  SweepLayout& operator=(const SweepLayout&) = delete;

  int groups() const { return groups_; }
  int group() const { return place_.group; }
  int group_size() const { return place_.group_size; }
  int rank_in_group() const { return place_.rank_in_group; }
  MPI_Comm group_comm() const { return group_comm_; }
  // The group's device communicator; null when the group is one rank.
  transport::DeviceComm* rows_comm() const { return rows_comm_.get(); }

 private:
  int groups_ = 1;
  GroupPlace place_;
  MPI_Comm group_comm_ = MPI_COMM_NULL;
  std::unique_ptr<transport::DeviceComm> rows_comm_;
};

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

  friend GatheredSweep sweep_over_ranks(MPI_Comm comm, const SweepLayout& layout, SweepSolver& solver,
                                        const std::vector<double>& lambdas,
                                        const LsmrOptions& options, bool keep_solutions,
                                        double progress_seconds);

 private:
  std::vector<LambdaOutcome> points_;
  std::vector<double> local_lambdas_;
  std::vector<double> local_solutions_;
};

// Collective. `lambdas` ascending and the same on every rank; `solver` holds this rank's
// rows of its group's split (built with layout.rows_comm()). Rank 0 (which holds the
// smallest, slowest λ) prints a progress line every `progress_seconds` (0: never).
// A pending SIGUSR1/SIGTERM ends the sweep on every rank after a block of iterations
// (see stopped_by); the λ that had already stopped keep their outcomes.
GatheredSweep sweep_over_ranks(MPI_Comm comm, const SweepLayout& layout, SweepSolver& solver,
                               const std::vector<double>& lambdas, const LsmrOptions& options, bool keep_solutions,
                               double progress_seconds = 0);
// The λ split alone: every rank its own group, holding the whole problem.
GatheredSweep sweep_over_ranks(MPI_Comm comm, SweepSolver& solver, const std::vector<double>& lambdas,
                               const LsmrOptions& options, bool keep_solutions,
                               double progress_seconds = 0);

}  // namespace trident::ridge
