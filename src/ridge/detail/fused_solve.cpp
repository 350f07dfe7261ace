// The fused engine's solve(), step by step: the sweep's device state, a warm-up of every
// kernel, the start of the bidiagonalization, the iterations recorded (CUDA graphs) and
// queued in blocks between looks at the stop flag, and the true residuals at the end.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/comm.hpp"
#include "core/log.hpp"
#include "ridge/detail/fused_engine.hpp"

namespace trident::ridge {

namespace {

// Iterations queued between looks at the stop flag (iterations_per_check): each look idles
// the device for a round trip, so at most kChecksEvery. But the iterations queued after the
// last λ stopped, which skip their products, still schedule their grids, which costs on
// large matrices: a block is cut to about kCheckSeconds of the last block's iterations,
// so that a look costs well under 1 % of the block and at most a block's worth is skipped
// (docs/history/ridge.md, "Blocks of iterations").
constexpr int kChecksEvery = 32;
constexpr double kCheckSeconds = 4e-3;
// The first block, before any has been timed.
constexpr int kFirstCheck = 8;

double seconds_since(const std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int iterations_per_check(const double seconds_per_iteration) {
  if (!(seconds_per_iteration > 0)) return kChecksEvery;  // nothing measured (or a clock too coarse)
  return static_cast<int>(std::clamp(std::ceil(kCheckSeconds / seconds_per_iteration), 1.0, double(kChecksEvery)));
}

namespace fused {

template <class M, class S>
void FusedEngine<M, S>::solve(const std::vector<double>& lambdas, const StoppingRules& rules, bool keep_solutions,
                              const IterationHook& on_iteration, SweepOutcome& out) {
  const int count = static_cast<int>(lambdas.size());
  SweepState<S> s = allocate(count);
  warm_up(s);

  const auto started = std::chrono::steady_clock::now();
  const Start start = start_bidiagonalization(s);
  std::vector<LsmrRecurrence> lam;
  for (int j = 0; j < count; ++j) lam.emplace_back(lambdas[j], start.alpha, start.beta);
  std::int64_t itn = 0, queued = 0;
  if (start.alpha * start.beta == 0) {
    for (auto& l : lam) l.stop_now(kStopZeroSolution, 0);
  } else {
    load_first_iteration(s, start, lam);
    const AdvanceRecurrences advance{s.state,  s.beta2,  s.alpha_beta2, s.recurrences, s.coefficients,
                                     s.normx2, s.status, start.beta,    rules};
    IterationRecordings recordings;
    record_iterations(s, advance, recordings);
    iterate(s, advance, recordings, rules, on_iteration, queued);
    itn = s.status(0);
    auto m = Kokkos::create_mirror_view(s.recurrences);
    Kokkos::deep_copy(m, s.recurrences);
    for (int j = 0; j < count; ++j) lam[j] = m(j);
  }
  Kokkos::fence();
  const auto iterated = std::chrono::steady_clock::now();
  out.shared_iterations = itn;
  out.queued_iterations = queued;
  out.iteration_seconds = std::chrono::duration<double>(iterated - started).count();

  const std::vector<double> residuals = residual_norms(s);
  auto x_host = Kokkos::create_mirror_view(s.x);
  Kokkos::deep_copy(x_host, s.x);
  report_outcomes(out, lam, residuals, x_host, keep_solutions);
  out.residual_seconds = seconds_since(iterated);
}

template <class M, class S>
SweepState<S> FusedEngine<M, S>::allocate(const int count) {
  SweepState<S> s;
  s.count = count;
  s.chunks = UpdateSolutions<S>::chunk_count(columns_);
  s.own_chunks = s.chunks;
  if (rows_comm_ != nullptr) {
    lay_out_buffer(count);
    const std::int64_t rank = rows_comm_->rank(), ranks = rows_comm_->size();
    s.first_chunk = static_cast<int>(rank * s.chunks / ranks);
    s.own_chunks = static_cast<int>((rank + 1) * s.chunks / ranks) - s.first_chunk;
  }
  s.u = Vector<S>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::u"), rows_);
  s.v[0] = Vector<S>("trident::ridge::v0", columns_);
  s.v[1] = Vector<S>("trident::ridge::v1", columns_);
  s.w = Vector<S>("trident::ridge::w", columns_);
  s.h = Block<S>("trident::ridge::h", columns_, count);
  s.hbar = Block<S>("trident::ridge::hbar", columns_, count);
  s.x = Block<S>("trident::ridge::x", columns_, count);
  s.beta2 = Kokkos::View<double, RidgeDevice>("trident::ridge::beta2");
  s.alpha_beta2 = Kokkos::View<double, RidgeDevice>("trident::ridge::alpha_beta2");
  // on several row ranks the all-reduce sums the ranks' shares in place
  s.normx2 =
      rows_comm_ == nullptr ? Kokkos::View<double*, RidgeDevice>("trident::ridge::normx2", count) : normx2_shares_;
  s.chunk_norms = Kokkos::View<double**, RidgeDevice>("trident::ridge::chunk_norms", count, s.chunks);
  s.chunks_done = Kokkos::View<int*, RidgeDevice>("trident::ridge::chunks_done", count);
  s.state = StateView("trident::ridge::state");
  s.recurrences = Kokkos::View<LsmrRecurrence*, RidgeDevice>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::recurrences"), count);
  s.coefficients = Kokkos::View<UpdateCoefficients*, RidgeDevice>("trident::ridge::coefficients", count);
  s.status = Kokkos::View<std::int64_t[2], StatusSpace>("trident::ridge::status");
  s.done = &s.state.data()->done;
  return s;
}

// Every kernel runs once before the clock starts, changing nothing that the sweep reads
// before writing it: the first launch of a kernel loads it, a one-time cost that is not
// part of the sweep.
template <class M, class S>
void FusedEngine<M, S>::warm_up(SweepState<S>& s) {
  BidiagState idle;
  idle.done = 1;
  Kokkos::deep_copy(s.state, idle);
  double ignored = 0;
  Kokkos::parallel_reduce("trident::ridge::norm_b", Kokkos::RangePolicy<RidgeExec>(0, rows_),
                          SquaredNorm<Vector<S>>{s.u}, ignored);
  row_products("trident::ridge::next_w", at_, s.u, NextW<S>{s.w, s.v[0], s.beta2}, products_, s.done);
  Kokkos::parallel_for("trident::ridge::first_v", Kokkos::RangePolicy<RidgeExec>(0, columns_),
                       ScaleInto<S>{s.v[0], s.w, 0.0});
  Kokkos::parallel_for("trident::ridge::start_h", Kokkos::RangePolicy<RidgeExec>(0, columns_),
                       CopyToColumns<Vector<S>, Block<S>>{s.v[0], s.h});
  const auto none = Kokkos::subview(s.recurrences, Kokkos::make_pair(0, 0));
  queue_iteration(s,
                  AdvanceRecurrences{s.state, s.beta2, s.alpha_beta2, none, s.coefficients, s.normx2, s.status, 1,
                                     StoppingRules{0, 0, 0, 1}},
                  0);
  Kokkos::fence();
}

// The start, waiting for the device: u = b (u_scale = beta), beta^2 = ||b||^2; then
// w = A^T u with (alpha beta)^2 = ||w||^2 (v is zero), so v = w / (alpha beta).
template <class M, class S>
Start FusedEngine<M, S>::start_bidiagonalization(SweepState<S>& s) {
  Start start;
  Kokkos::deep_copy(s.u, b_);
  Kokkos::parallel_reduce("trident::ridge::norm_b", Kokkos::RangePolicy<RidgeExec>(0, rows_),
                          SquaredNorm<Vector<S>>{s.u}, start.beta_squared);
  if (rows_comm_ != nullptr) {
    std::vector<double> total{start.beta_squared};
    sum_over_rows(rows_comm_, total);
    start.beta_squared = total[0];
  }
  start.beta = std::sqrt(start.beta_squared);
  if (!(start.beta > 0)) return start;
  Kokkos::deep_copy(s.beta2, start.beta_squared);
  Kokkos::deep_copy(s.state, BidiagState{});
  Kokkos::deep_copy(s.v[0], S(0));
  double alpha_beta_squared = 0;
  if (rows_comm_ == nullptr) {
    alpha_beta_squared = row_products("trident::ridge::next_w", at_, s.u, NextW<S>{s.w, s.v[0], s.beta2}, products_);
  } else {  // v is zero: the sum is ||w||^2
    Kokkos::deep_copy(beta2_share_, start.beta_squared);  // any finite number: only multiplies v = 0 here
    queue_reduced_w(s.u, s.v[0], s.w, s.beta2, s.alpha_beta2, nullptr);
    Kokkos::deep_copy(alpha_beta_squared, s.alpha_beta2);
    Kokkos::deep_copy(s.beta2, start.beta_squared);
  }
  start.alpha = std::sqrt(alpha_beta_squared) / start.beta;
  return start;
}

// v = w / (alpha beta), h = v, the state and every λ's recurrence on the device, and the
// stop flag cleared (the warm-up's advance left it set).
template <class M, class S>
void FusedEngine<M, S>::load_first_iteration(SweepState<S>& s, const Start& start,
                                             const std::vector<LsmrRecurrence>& lambdas) {
  const double alpha = start.alpha, beta = start.beta;
  Kokkos::parallel_for("trident::ridge::first_v", Kokkos::RangePolicy<RidgeExec>(0, columns_),
                       ScaleInto<S>{s.v[0], s.w, 1.0 / (alpha * beta)});
  Kokkos::parallel_for("trident::ridge::start_h", Kokkos::RangePolicy<RidgeExec>(0, columns_),
                       CopyToColumns<Vector<S>, Block<S>>{s.v[0], s.h});
  BidiagState first;
  first.alpha = alpha;
  first.beta2 = start.beta_squared;
  first.u_scale = beta;
  first.v_scale = 1.0 / (alpha * beta);
  first.norms = SharedNorms(alpha);
  Kokkos::deep_copy(s.state, first);
  auto m = Kokkos::create_mirror_view(s.recurrences);
  for (int j = 0; j < s.count; ++j) m(j) = lambdas[j];
  Kokkos::deep_copy(s.recurrences, m);
  s.status(0) = 0;
  s.status(1) = 0;
}

// An iteration depends on the iteration count only through v's parity: recordings (CUDA
// graphs) for each parity replayed in turn launch every kernel of the sweep. On several
// row ranks the all-reduce is recorded with the rest when it is device work alone (the
// sums through peer memory, transport::PeerSum); otherwise the launches before it and those
// after it are recorded apart, and the all-reduce is queued between their replays.
template <class M, class S>
void FusedEngine<M, S>::record_iterations(const SweepState<S>& s, const AdvanceRecurrences& advance,
                                          IterationRecordings& r) {
  const bool whole = rows_comm_ == nullptr || rows_comm_->sum_recordable();
  r.parts = whole ? 1 : 2;
  r.replay = graphs_wanted_;
  for (int parity = 0; r.replay && parity < 2; ++parity)
    for (int part = 0; r.replay && part < r.parts; ++part) {
      std::string why_not;
      r.replay = r.recorded[parity][part].record(
          [&]() {
            if (whole) queue_iteration(s, advance, parity);
            else if (part == 0) queue_before_sums(s, advance, parity);
            else queue_after_sums(s, advance, parity);
          },
          why_not);
      if (!r.replay) log::warning(MPI_COMM_SELF, "ridge: the iterations are queued kernel by kernel: " + why_not);
    }
}

// Blocks of iterations, each followed by one wait for the device and a look at the stop
// flag. Iteration q tests iteration q - 1 (its ||x|| comes from q - 1's update) before it
// advances: iteration max_iterations stops every λ, and none is queued after it.
template <class M, class S>
void FusedEngine<M, S>::iterate(SweepState<S>& s, const AdvanceRecurrences& advance, IterationRecordings& r,
                                const StoppingRules& rules, const IterationHook& on_iteration,
                                std::int64_t& queued) {
  const auto queue = [&](const std::int64_t k) {
    if (!r.replay) return queue_iteration(s, advance, k);
    r.recorded[k % 2][0].replay();
    if (r.parts == 1) return;
    queue_all_reduce();
    r.recorded[k % 2][1].replay();
  };
  int per_check = kFirstCheck;
  while (true) {
    const std::int64_t block = std::min<std::int64_t>(per_check, rules.max_iterations + 1 - queued);
    if (block <= 0) throw std::logic_error("ridge: the iteration limit passed without every λ stopping");
    const auto queued_at = std::chrono::steady_clock::now();
    for (std::int64_t k = 0; k < block; ++k, ++queued) queue(queued);
    RidgeExec().fence();
    // The row ranks form the same state from the same sums; agreeing costs one small
    // all-reduce per block and rules out a rank leaving the all-reduces early. They agree
    // on the next block too (the shortest any rank's clock asks for), so that every rank's
    // iterations and this all-reduce stay in step.
    std::vector<int> agreed = {static_cast<int>(s.status(1)), iterations_per_check(seconds_since(queued_at) / block)};
    if (rows_comm_ != nullptr) mpi::min_over_ranks(rows_comm_->mpi_comm(), agreed);
    per_check = agreed[1];
    if (agreed[0]) break;
    if (on_iteration && !on_iteration(s.status(0))) break;  // stopped: unstopped λ report unfinished
  }
}

// The true residuals ||b - A x_j||, in double from the stored x. Each row rank holds x
// over its own columns, zero elsewhere: the sum over the ranks is x.
template <class M, class S>
std::vector<double> FusedEngine<M, S>::residual_norms(const SweepState<S>& s) {
  if (rows_comm_ != nullptr && s.x.span() > 0) rows_comm_->all_reduce_sum(RidgeExec(), s.x.data(), s.x.span());
  std::vector<double> norms(static_cast<std::size_t>(s.count));
  for (int j = 0; j < s.count; ++j) {
    const auto x_j = Kokkos::subview(s.x, Kokkos::ALL(), j);
    norms[j] = row_products("trident::ridge::residual", a_, x_j, ResidualSquared{b64_}, products_);
  }
  sum_over_rows(rows_comm_, norms);  // this rank's rows' shares
  for (double& r : norms) r = std::sqrt(r);
  return norms;
}

template void FusedEngine<float, float>::solve(const std::vector<double>&, const StoppingRules&, bool,
                                               const IterationHook&, SweepOutcome&);
template void FusedEngine<float, double>::solve(const std::vector<double>&, const StoppingRules&, bool,
                                                const IterationHook&, SweepOutcome&);
template void FusedEngine<double, double>::solve(const std::vector<double>&, const StoppingRules&, bool,
                                                 const IterationHook&, SweepOutcome&);

}  // namespace fused
}  // namespace trident::ridge
