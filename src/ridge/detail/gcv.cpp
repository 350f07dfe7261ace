// GCV's trace by Hutchinson probes and Lanczos quadrature (gcv.hpp): the probes'
// bidiagonalizations on the device, their quadrature on the host in double.
#include "ridge/detail/gcv.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>

#include "core/comm.hpp"
#include "ridge/detail/sweep.hpp"

namespace trident::ridge {

double ProbeBidiagonal::quadrature(double lambda) const {
  const std::size_t k = alpha.size();
  if (k == 0) return 0.0;
  // e1^T (T + λ^2 I)^-1 e1 for T = B^T B (diagonal alpha_i^2 + beta_{i+1}^2, off-diagonal
  // alpha_{i+1} beta_{i+1}) by the Schur complements from the bottom up, each positive.
  const double shift = lambda * lambda;
  double d = 0;
  for (std::size_t i = k; i-- > 0;) {
    const double diagonal = alpha[i] * alpha[i] + beta[i + 1] * beta[i + 1] + shift;
    if (i + 1 == k) {
      d = diagonal;
    } else {
      const double off = alpha[i + 1] * beta[i + 1];
      d = diagonal - off * off / d;
    }
  }
  const double atz = alpha[0] * beta[0];  // ||A^T z||
  return atz * atz / d;
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

// ProbeCheck: whether a block's quadratures of the judged λ have settled (gcv.hpp) since
// the last check; `probes`: all the estimate's probes, whose mean the spread is judged for.
class Settling {
 public:
  Settling(const std::vector<double>& lambdas, const std::vector<std::uint8_t>& judged, int count, double rows,
           std::int64_t probes)
      : lambdas_(lambdas), judged_(judged), count_(count), rows_(rows), probes_(static_cast<double>(probes)) {}

  bool operator()(const ProbeNorms& norms) {
    std::vector<double> now(static_cast<std::size_t>(count_) * lambdas_.size());
    for (int q = 0; q < count_; ++q) {
      const ProbeBidiagonal b = probe_bidiagonal(norms, q);
      for (std::size_t j = 0; j < lambdas_.size(); ++j) now[q * lambdas_.size() + j] = b.quadrature(lambdas_[j]);
    }
    bool settled = !previous_.empty();
    for (std::size_t j = 0; settled && j < lambdas_.size(); ++j) {
      if (judged_[j] == 0) continue;
      double t = 0, change = 0;
      for (int q = 0; q < count_; ++q) {
        t += now[q * lambdas_.size() + j] / count_;
        change += std::abs(now[q * lambdas_.size() + j] - previous_[q * lambdas_.size() + j]) / count_;
      }
      double squares = 0;  // the block's spread of zᵀMz
      for (int q = 0; q < count_; ++q) squares += std::pow(now[q * lambdas_.size() + j] - t, 2);
      const double standard_error = count_ > 1 ? std::sqrt(squares / (count_ - 1) / probes_) : 0.0;
      settled = change <= kGcvSettledSpread * standard_error || 2 * change <= kGcvSettled * (rows_ - t);
    }
    previous_ = std::move(now);
    // twice in a row: a quadrature can stall before its next Ritz value comes near a small
    // singular value
    settled_checks_ = settled ? settled_checks_ + 1 : 0;
    return settled_checks_ >= 2;
  }

 private:
  const std::vector<double>& lambdas_;
  const std::vector<std::uint8_t>& judged_;
  int count_;
  double rows_, probes_;
  std::vector<double> previous_;
  int settled_checks_ = 0;
};

}  // namespace

std::vector<double> estimate_traces(MPI_Comm comm, const SweepLayout& layout, SweepSolver& solver,
                                    const std::int64_t first_row, const std::int64_t total_rows,
                                    const std::vector<double>& lambdas, const std::int64_t probes,
                                    const std::uint64_t seed, const std::int64_t steps,
                                    const std::vector<std::uint8_t>& judged, std::int64_t* steps_taken) {
  // each probe's quadrature of each λ, from its group's first rank (0 elsewhere: exact sums)
  std::vector<double> each(static_cast<std::size_t>(probes) * lambdas.size(), 0.0);
  const auto [first, last] = rank_block(static_cast<std::size_t>(probes), layout.groups(), layout.group());
  double most = 0;
  for (std::size_t block = first; block < last; block += kProbeWidth) {
    ProbeStart start;
    start.seed = seed;
    start.first_probe = static_cast<std::int64_t>(block);
    start.count = static_cast<int>(std::min<std::size_t>(kProbeWidth, last - block));
    start.first_row = first_row;
    start.total_rows = total_rows;
    Settling settling(lambdas, judged, start.count, static_cast<double>(total_rows), probes);
    const ProbeNorms norms =
        solver.bidiagonalize_probes(start, steps, judged.empty() ? ProbeCheck() : ProbeCheck(std::ref(settling)));
    most = std::max(most, static_cast<double>(norms.steps));
    if (layout.rank_in_group() != 0) continue;  // the group's other ranks hold the same
    for (int q = 0; q < start.count; ++q) {
      const ProbeBidiagonal b = probe_bidiagonal(norms, q);
      for (std::size_t j = 0; j < lambdas.size(); ++j)
        each[(block + q) * lambdas.size() + j] = b.quadrature(lambdas[j]);
    }
  }
  mpi::sum_over_ranks(comm, each);
  if (steps_taken != nullptr) *steps_taken = static_cast<std::int64_t>(mpi::max_over_ranks(comm, most));
  std::vector<double> sums(lambdas.size(), 0.0);
  for (std::int64_t p = 0; p < probes; ++p)
    for (std::size_t j = 0; j < lambdas.size(); ++j) sums[j] += each[static_cast<std::size_t>(p) * lambdas.size() + j];
  for (double& s : sums) s /= static_cast<double>(probes);
  return sums;
}

}  // namespace trident::ridge
