// GCV's trace by Hutchinson probes and Lanczos quadrature (gcv.hpp): the probes'
// bidiagonalizations on the device, their quadrature on the host in double.
#include "ridge/detail/gcv.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/comm.hpp"
#include "ridge/detail/selection.hpp"
#include "ridge/detail/sweep.hpp"

namespace trident::ridge {

namespace {

// B_kᵀB_k's diagonal entry i, alpha_i^2 + beta_{i+1}^2.
double gauss_diagonal(const ProbeBidiagonal& b, const std::size_t i) {
  return b.alpha[i] * b.alpha[i] + b.beta[i + 1] * b.beta[i + 1];
}

// The last Schur complement, from the bottom up, of M + λ² I for the tridiagonal M of `b`'s
// first k rows: diagonal `corner` in its last row, gauss_diagonal above it, off-diagonal
// alpha_{i+1} beta_{i+1}; e1ᵀ (M + λ² I)⁻¹ e1 is its inverse.
double last_pivot(const ProbeBidiagonal& b, const std::size_t k, const double shift, const double corner) {
  double d = corner + shift;
  for (std::size_t i = k - 1; i-- > 0;) {
    const double off = b.alpha[i + 1] * b.beta[i + 1];
    d = gauss_diagonal(b, i) + shift - off * off / d;
  }
  return d;
}

}  // namespace

double ProbeBidiagonal::quadrature(double lambda) const {
  const std::size_t k = alpha.size();
  if (k == 0) return 0.0;
  // e1^T (T + λ^2 I)^-1 e1 for T = B^T B, its Schur complements each positive
  const double atz = alpha[0] * beta[0];  // ||A^T z||
  return atz * atz / last_pivot(*this, k, lambda * lambda, gauss_diagonal(*this, k - 1));
}

double ProbeBidiagonal::upper_bound(const double lambda) const {
  const std::size_t k = alpha.size();
  const double all = beta.empty() ? 0.0 : beta[0] * beta[0];  // g <= 1: zᵀ g(AAᵀ) z <= ||z||²
  if (k == 0) return all;
  const double shift = lambda * lambda, atz = alpha[0] * beta[0];
  // The Gauss rule of AAᵀ's measure: C_kᵀC_k, whose last diagonal is alpha_k^2 alone. Loose
  // while AAᵀ's null space (rows > columns) has no node near 0.
  double best = atz * atz * (1.0 / last_pivot(*this, k, shift, alpha[k - 1] * alpha[k - 1]));
  // The Gauss-Radau rule of AᵀA's measure (of Aᵀz, which has no mass at 0) with a node at 0:
  // B_{k-1}ᵀB_{k-1} bordered by alpha_k beta_k and the corner phi that makes it singular,
  // phi = (alpha_k beta_k)^2 (B_{k-1}ᵀB_{k-1})⁻¹_{k-1,k-1}, whose inverse is the last pivot from
  // the top down.
  if (k >= 2) {
    double top = gauss_diagonal(*this, 0);
    for (std::size_t i = 1; i + 1 < k; ++i) top = gauss_diagonal(*this, i) - std::pow(alpha[i] * beta[i], 2) / top;
    const double phi = std::pow(alpha[k - 1] * beta[k - 1], 2) / top;
    if (top > 0 && std::isfinite(phi)) best = std::min(best, atz * atz * (1.0 / last_pivot(*this, k, shift, phi)));
  }
  return std::min(best, all);
}

ProbeBidiagonal probe_bidiagonal(const ProbeNorms& norms, const int q) {
  ProbeBidiagonal out;
  const double beta0 = std::sqrt(norms.beta2[static_cast<std::size_t>(q)]);
  out.beta.push_back(beta0);
  if (!(beta0 > 0)) return out;
  double largest = 0;
  for (std::int64_t k = 0; k < norms.steps; ++k) {
    const double alpha = std::sqrt(norms.alpha2[static_cast<std::size_t>(k * kProbeWidth + q)]);
    largest = std::max(largest, alpha);
    if (!(alpha > 1e-14 * largest)) break;
    out.alpha.push_back(alpha);
    const double beta = std::sqrt(norms.beta2[static_cast<std::size_t>((k + 1) * kProbeWidth + q)]);
    largest = std::max(largest, beta);
    if (!(beta > 1e-14 * largest)) break;
    out.beta.push_back(beta);
  }
  if (out.beta.size() < out.alpha.size() + 1) out.beta.push_back(0.0);
  return out;
}

namespace {

// ProbeCheck: whether a block's steps can end (GcvSettling), asked every kProbeCheckEvery
// steps; `probes`: all the estimate's probes, whose mean the spread is judged for.
class Settling {
 public:
  Settling(const std::vector<double>& lambdas, const GcvSettling& rule, int count, double rows, std::int64_t probes)
      : lambdas_(lambdas), rule_(rule), count_(count), rows_(rows), probes_(static_cast<double>(probes)),
        runs_(lambdas.size(), 0) {}

  bool operator()(const ProbeNorms& norms) {
    const std::size_t n = lambdas_.size();
    std::vector<double> now(static_cast<std::size_t>(count_) * n), lower(n, 0.0), upper(n, 0.0);
    spread_.assign(n, 0.0);
    for (int q = 0; q < count_; ++q) {
      const ProbeBidiagonal b = probe_bidiagonal(norms, q);
      for (std::size_t j = 0; j < n; ++j) {
        now[q * n + j] = b.quadrature(lambdas_[j]);
        lower[j] += now[q * n + j] / count_;
        if (!rule_.whole_curve) upper[j] += b.upper_bound(lambdas_[j]) / count_;
      }
    }
    bool all = !previous_.empty();
    for (std::size_t j = 0; j < n; ++j) {
      bool settled = false;
      if (rule_.judged[j] != 0 && !previous_.empty()) {
        double change = 0, squares = 0;  // the block's mean change, and its spread of zᵀMz
        for (int q = 0; q < count_; ++q) {
          change += std::abs(now[q * n + j] - previous_[q * n + j]) / count_;
          squares += std::pow(now[q * n + j] - lower[j], 2);
        }
        const double standard_error = count_ > 1 ? std::sqrt(squares / (count_ - 1) / probes_) : 0.0;
        settled = change <= kGcvSettledSpread * standard_error || 2 * change <= kGcvSettled * (rows_ - lower[j]);
        // how far the mean over all the probes may lie from this block's: none when the
        // block is all of them, unknown (infinite) for a lone probe of several
        spread_[j] = count_ == probes_ ? 0.0
                     : count_ > 1     ? kGcvBlockSpread * std::sqrt(squares / (count_ - 1) / count_)
                                      : HUGE_VAL;
      }
      // twice in a row: a quadrature can stall before its next Ritz value comes near a small
      // singular value
      runs_[j] = settled ? runs_[j] + 1 : 0;
      if (rule_.judged[j] != 0) all = all && runs_[j] >= 2;
    }
    previous_ = std::move(now);
    return all || (!rule_.whole_curve && minimum_decided(lower, upper));
  }

  // Per λ: judged and settled at the last check.
  std::vector<std::uint8_t> settled() const {
    std::vector<std::uint8_t> out(lambdas_.size());
    for (std::size_t j = 0; j < out.size(); ++j) out[j] = rule_.judged[j] != 0 && runs_[j] >= 2 ? 1 : 0;
    return out;
  }

 private:
  // The judged λ of least G (from below) is settled, and every other judged λ's G from below
  // exceeds its G from above, or it is settled too: more steps can only raise the one and
  // lower the other. With the probes in several blocks each t is moved by spread_ first
  // (down for G from below, up for G from above), so that the λ that could be least in the
  // mean over all the blocks are settled in each.
  bool minimum_decided(std::vector<double> lower, std::vector<double> upper) const {
    for (std::size_t j = 0; j < lower.size(); ++j) {
      lower[j] -= spread_[j];
      upper[j] += spread_[j];
    }
    const auto rows = static_cast<std::int64_t>(rows_);
    const std::vector<double> g_low = gcv_function(rows, rule_.residual_norms, lower);
    const std::vector<double> g_high = gcv_function(rows, rule_.residual_norms, upper);
    long least = -1;
    for (std::size_t j = 0; j < g_low.size(); ++j)
      if (rule_.judged[j] != 0 && (least < 0 || g_low[j] < g_low[static_cast<std::size_t>(least)]))
        least = static_cast<long>(j);
    if (least < 0 || runs_[static_cast<std::size_t>(least)] < 2) return false;
    for (std::size_t j = 0; j < g_low.size(); ++j)
      if (rule_.judged[j] != 0 && runs_[j] < 2 && !(g_low[j] > g_high[static_cast<std::size_t>(least)]))
        return false;
    return true;
  }

  const std::vector<double>& lambdas_;
  const GcvSettling& rule_;
  int count_;
  double rows_, probes_;
  std::vector<double> previous_;
  std::vector<int> runs_;       // per λ: checks in a row at which it was settled
  std::vector<double> spread_;  // per λ: the margin minimum_decided gives t
};

}  // namespace

TraceEstimate estimate_traces(MPI_Comm comm, const SweepLayout& layout, SweepSolver& solver,
                              const std::int64_t first_row, const std::int64_t total_rows,
                              const std::vector<double>& lambdas, const std::int64_t probes, const std::uint64_t seed,
                              const std::int64_t steps, const GcvSettling& settling) {
  const std::size_t n = lambdas.size();
  // each probe's quadratures of each λ from below and above, and each λ's blocks not
  // settled, from its group's first rank (0 elsewhere: exact sums)
  std::vector<double> each(static_cast<std::size_t>(probes) * n, 0.0), each_upper(each.size(), 0.0);
  std::vector<double> unsettled(n, 0.0);
  // whole blocks to the λ groups in turn, so that the default 8 probes are one block on any
  // layout (a block of fewer costs about as much where the products are bound by A's bytes)
  const auto total = static_cast<std::size_t>(probes), width = static_cast<std::size_t>(kProbeWidth);
  double most = 0;
  for (std::size_t block = width * static_cast<std::size_t>(layout.group()); block < total;
       block += width * static_cast<std::size_t>(layout.groups())) {
    ProbeStart start;
    start.seed = seed;
    start.first_probe = static_cast<std::int64_t>(block);
    start.count = static_cast<int>(std::min(width, total - block));
    start.first_row = first_row;
    start.total_rows = total_rows;
    const bool judging = !settling.judged.empty();
    Settling check(lambdas, settling, start.count, static_cast<double>(total_rows), probes);
    bool ended = false;  // by `check`, before the last step
    const ProbeNorms norms = solver.bidiagonalize_probes(
        start, steps, judging ? ProbeCheck([&](const ProbeNorms& so_far) { return ended = check(so_far); })
                              : ProbeCheck());
    most = std::max(most, static_cast<double>(norms.steps));
    if (layout.rank_in_group() != 0) continue;  // the group's other ranks hold the same
    const std::vector<std::uint8_t> settled = ended ? check.settled() : settling.judged;
    for (std::size_t j = 0; j < n; ++j)
      if (judging && settled[j] == 0) unsettled[j] += 1;
    for (int q = 0; q < start.count; ++q) {
      const ProbeBidiagonal b = probe_bidiagonal(norms, q);
      for (std::size_t j = 0; j < n; ++j) {
        each[(block + q) * n + j] = b.quadrature(lambdas[j]);
        each_upper[(block + q) * n + j] = b.upper_bound(lambdas[j]);
      }
    }
  }
  mpi::sum_over_ranks(comm, each);
  mpi::sum_over_ranks(comm, each_upper);
  mpi::sum_over_ranks(comm, unsettled);
  TraceEstimate out;
  out.steps = static_cast<std::int64_t>(mpi::max_over_ranks(comm, most));
  out.lower.assign(n, 0.0);
  out.upper.assign(n, 0.0);
  for (std::int64_t p = 0; p < probes; ++p)
    for (std::size_t j = 0; j < n; ++j) {
      out.lower[j] += each[static_cast<std::size_t>(p) * n + j];
      out.upper[j] += each_upper[static_cast<std::size_t>(p) * n + j];
    }
  for (std::size_t j = 0; j < n; ++j) {
    out.lower[j] /= static_cast<double>(probes);
    out.upper[j] /= static_cast<double>(probes);
    out.settled.push_back(unsettled[j] == 0 && (settling.judged.empty() || settling.judged[j] != 0) ? 1 : 0);
  }
  return out;
}

}  // namespace trident::ridge
