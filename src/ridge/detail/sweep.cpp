// Sweeps over ranks: the λ groups and their row communicators, the agreement on a stop
// signal between blocks, and the L-curve points gathered onto every rank.
#include "ridge/detail/sweep.hpp"

#include <algorithm>

#include "core/comm.hpp"
#include "core/progress.hpp"
#include "core/signals.hpp"
#include "core/timers.hpp"

namespace trident::ridge {

std::pair<std::size_t, std::size_t> rank_block(std::size_t count, int ranks, int rank) {
  const std::size_t p = static_cast<std::size_t>(ranks), r = static_cast<std::size_t>(rank);
  return {count * r / p, count * (r + 1) / p};
}

int choose_lambda_groups(int ranks, std::int64_t nonzeros, std::size_t lambdas) {
  if (nonzeros < kRowSplitNonzeros) return ranks;  // one rank holds it all in no time
  int best = 1;
  for (int g = 1; g <= ranks; ++g) {
    if (ranks % g != 0) continue;
    if (static_cast<std::size_t>(g) > std::max<std::size_t>(lambdas, 1)) break;
    best = g;
    if (nonzeros / (ranks / g) >= kRowSplitNonzeros) break;
  }
  return best;
}

GroupPlace group_place(const int ranks, const int me, const int groups) {
  GroupPlace p;
  p.group_size = ranks / groups;
  p.group = me / p.group_size;
  p.rank_in_group = me % p.group_size;
  return p;
}

SweepLayout::SweepLayout(MPI_Comm comm, int groups, const core::TransportChoice& transport,
                         const core::Switch peer_sums)
    : groups_(groups), place_(group_place(mpi::size(comm), mpi::rank(comm), groups)) {
  group_comm_ = mpi::split_comm(comm, place_.group, place_.rank_in_group);
  if (place_.group_size > 1) {
    rows_comm_ = std::make_unique<transport::DeviceComm>(group_comm_, transport, transport::DeviceComm::NcclStart::when_needed);
    rows_comm_->connect_peer_sums(peer_sums);  // the all-reduce of every iteration is small and latency-bound
  }
}

SweepLayout::~SweepLayout() {
  rows_comm_.reset();
  mpi::free_comm(group_comm_);
}

std::vector<double> GatheredSweep::lambdas() const {
  std::vector<double> out;
  for (const auto& o : points_) out.push_back(o.lambda);
  return out;
}

std::vector<double> GatheredSweep::residual_norms() const {
  std::vector<double> out;
  for (const auto& o : points_) out.push_back(o.residual_norm);
  return out;
}

std::vector<double> GatheredSweep::solution_norms() const {
  std::vector<double> out;
  for (const auto& o : points_) out.push_back(o.solution_norm);
  return out;
}

std::int64_t GatheredSweep::total_iterations() const {
  std::int64_t total = 0;
  for (const auto& o : points_) total += o.iterations;
  return total;
}

std::int64_t GatheredSweep::largest_iterations() const {
  std::int64_t most = 0;
  for (const auto& o : points_) most = std::max(most, o.iterations);
  return most;
}

void GatheredSweep::merge(GatheredSweep other) {
  points_.insert(points_.end(), other.points_.begin(), other.points_.end());
  std::sort(points_.begin(), points_.end(),
            [](const LambdaOutcome& a, const LambdaOutcome& b) { return a.lambda < b.lambda; });
  local_lambdas_.insert(local_lambdas_.end(), other.local_lambdas_.begin(), other.local_lambdas_.end());
  local_solutions_.insert(local_solutions_.end(), other.local_solutions_.begin(),
                          other.local_solutions_.end());
  iteration_seconds += other.iteration_seconds;
  residual_seconds += other.residual_seconds;
}

GatheredSweep GatheredSweep::only(const std::function<bool(double)>& keep) const {
  GatheredSweep out;
  out.iteration_seconds = iteration_seconds;
  out.residual_seconds = residual_seconds;
  out.stopped_by = stopped_by;
  for (const auto& o : points_)
    if (keep(o.lambda)) out.points_.push_back(o);
  const std::size_t columns = local_lambdas_.empty() ? 0 : local_solutions_.size() / local_lambdas_.size();
  for (std::size_t j = 0; j < local_lambdas_.size(); ++j) {
    if (!keep(local_lambdas_[j])) continue;
    out.local_lambdas_.push_back(local_lambdas_[j]);
    out.local_solutions_.insert(out.local_solutions_.end(),
                                local_solutions_.begin() + static_cast<std::ptrdiff_t>(j * columns),
                                local_solutions_.begin() + static_cast<std::ptrdiff_t>((j + 1) * columns));
  }
  return out;
}

GatheredSweep GatheredSweep::finished() const {
  std::vector<double> unfinished;
  for (const auto& o : points_)
    if (o.stop_reason == kStopUnfinished) unfinished.push_back(o.lambda);
  return only([&unfinished](double lambda) {
    return std::find(unfinished.begin(), unfinished.end(), lambda) == unfinished.end();
  });
}

GatheredSweep GatheredSweep::from_outcomes(std::vector<LambdaOutcome> outcomes, std::vector<double> local_lambdas,
                                           std::vector<double> local_solutions) {
  GatheredSweep out;
  out.points_ = std::move(outcomes);
  out.local_lambdas_ = std::move(local_lambdas);
  out.local_solutions_ = std::move(local_solutions);
  return out;
}

namespace {

constexpr double kCheckSeconds = 0.5;  // least time between stop checks of a sweeping rank

// The groups sweep their λ blocks independently, so they agree on a stop signal in rounds
// of one MPI_Allreduce: a sweeping rank takes part after its first block of iterations
// and then at most every kCheckSeconds; a rank whose sweep is over (or that has no λ)
// keeps taking part until every rank's sweep is over. Rounds pair up in order, so every
// rank makes the same number of them and all learn the same outcome in the same round.
// The ranks of one group must stop at the same iteration (they share its all-reduces), so
// they decide together, by one MPI_Allreduce in the group per block, when a round is due.
class StopAgreement {
 public:
  StopAgreement(MPI_Comm comm, MPI_Comm group) : comm_(comm), group_(group) {}

  // From a sweeping rank between blocks: false when the ranks agreed to stop.
  bool keep_going() {
    const double now = wall_seconds();
    int due = !checked_ || now - last_ >= kCheckSeconds;
    if (mpi::size(group_) > 1) mpi::max_over_ranks(group_, &due, 1);
    if (!due) return true;
    checked_ = true;
    last_ = now;
    return !round(1);
  }

  // Once this rank's sweep is over: rounds until every rank's is (a signal then is moot)
  // or the ranks agree to stop.
  void finish() {
    while (!done_ && signal_ == 0) round(0);
  }

  int signal() const { return signal_; }

 private:
  // True when the ranks stop now.
  bool round(std::int64_t sweeping) {
    std::int64_t agreed[2] = {signals::pending(), sweeping};
    mpi::max_over_ranks(comm_, agreed, 2);
    if (agreed[1] == 0) done_ = true;
    else if (agreed[0] != 0) signal_ = static_cast<int>(agreed[0]);
    return signal_ != 0;
  }

  MPI_Comm comm_, group_;
  bool checked_ = false, done_ = false;
  double last_ = 0;
  int signal_ = 0;
};

}  // namespace

GatheredSweep sweep_over_ranks(MPI_Comm comm, SweepSolver& solver, const std::vector<double>& lambdas,
                               const LsmrOptions& options, bool keep_solutions, double progress_seconds) {
  const SweepLayout alone(comm, mpi::size(comm));
  return sweep_over_ranks(comm, alone, solver, lambdas, options, keep_solutions, progress_seconds);
}

GatheredSweep sweep_over_ranks(MPI_Comm comm, const SweepLayout& layout, SweepSolver& solver,
                               const std::vector<double>& lambdas, const LsmrOptions& options, bool keep_solutions,
                               double progress_seconds) {
  const int ranks = mpi::size(comm), groups = layout.groups();
  const bool speaks_for_group = layout.rank_in_group() == 0;
  const auto block = rank_block(lambdas.size(), groups, layout.group());
  const std::vector<double> mine(lambdas.begin() + static_cast<std::ptrdiff_t>(block.first),
                                 lambdas.begin() + static_cast<std::ptrdiff_t>(block.second));
  SweepOutcome local;
  StopAgreement stop(comm, layout.group_comm());
  if (!mine.empty()) {
    const std::int64_t most =
        options.max_iterations > 0 ? options.max_iterations
                                   : std::min(solver.rows(), solver.columns());
    Progress progress(comm, "ridge: LSMR sweep (ends once every λ has stopped),", 0, most,
                      progress_seconds);
    local = solver.solve(mine, options, keep_solutions, [&progress, &stop](std::int64_t itn) {
      progress.update(itn);
      return stop.keep_going();
    });
  }
  stop.finish();

  // Five numbers per λ: λ, iterations, stop reason, residual norm, solution norm; from the
  // first rank of each group (its other ranks hold the same).
  constexpr int kFields = 5;
  std::vector<double> packed;
  if (speaks_for_group)
    for (const auto& o : local.lambdas) {
      packed.insert(packed.end(), {o.lambda, double(o.iterations), double(o.stop_reason),
                                   o.residual_norm, o.solution_norm});
    }
  std::vector<int> counts(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    const int g = r / layout.group_size();
    const auto b = rank_block(lambdas.size(), groups, g);
    counts[r] = r % layout.group_size() == 0 ? static_cast<int>((b.second - b.first) * kFields) : 0;
    offsets[r] = static_cast<int>(b.first * kFields);
  }
  std::vector<double> all(lambdas.size() * kFields);
  mpi::all_gather(comm, packed.data(), static_cast<int>(packed.size()), all.data(), counts, offsets);

  GatheredSweep out;
  for (std::size_t j = 0; j < lambdas.size(); ++j) {
    const double* f = &all[j * kFields];
    LambdaOutcome o;
    o.lambda = f[0];
    o.iterations = static_cast<std::int64_t>(f[1]);
    o.stop_reason = static_cast<int>(f[2]);
    o.residual_norm = f[3];
    o.solution_norm = f[4];
    out.points_.push_back(o);
  }
  if (speaks_for_group) {
    out.local_lambdas_ = mine;
    out.local_solutions_ = std::move(local.solutions);
  }
  out.iteration_seconds = mpi::max_over_ranks(comm, local.iteration_seconds);
  out.residual_seconds = mpi::max_over_ranks(comm, local.residual_seconds);
  out.stopped_by = stop.signal();
  return out;
}

}  // namespace trident::ridge
