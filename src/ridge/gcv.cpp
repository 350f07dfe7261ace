// GCV's trace by Hutchinson probes and Lanczos quadrature (gcv.hpp): the probes'
// bidiagonalizations on the device, their quadrature on the host in double.
#include "ridge/gcv.hpp"

#include <algorithm>
#include <cmath>

#include "core/comm.hpp"
#include "ridge/sweep.hpp"

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

std::vector<double> estimate_traces(MPI_Comm comm, const SweepLayout& layout, SweepSolver& solver,
                                    const std::int64_t first_row, const std::int64_t total_rows,
                                    const std::vector<double>& lambdas, const std::int64_t probes,
                                    const std::uint64_t seed, const std::int64_t steps) {
  // each probe's quadrature of each λ, from its group's first rank (0 elsewhere: exact sums)
  std::vector<double> each(static_cast<std::size_t>(probes) * lambdas.size(), 0.0);
  const auto [first, last] = rank_block(static_cast<std::size_t>(probes), layout.groups(), layout.group());
  for (std::size_t block = first; block < last; block += kProbeWidth) {
    ProbeStart start;
    start.seed = seed;
    start.first_probe = static_cast<std::int64_t>(block);
    start.count = static_cast<int>(std::min<std::size_t>(kProbeWidth, last - block));
    start.first_row = first_row;
    start.total_rows = total_rows;
    const ProbeNorms norms = solver.bidiagonalize_probes(start, steps);
    if (layout.rank_in_group() != 0) continue;  // the group's other ranks hold the same
    for (int q = 0; q < start.count; ++q) {
      const ProbeBidiagonal b = probe_bidiagonal(norms, q);
      for (std::size_t j = 0; j < lambdas.size(); ++j) each[(block + q) * lambdas.size() + j] = b.quadrature(lambdas[j]);
    }
  }
  mpi::sum_over_ranks(comm, each);
  std::vector<double> sums(lambdas.size(), 0.0);
  for (std::int64_t p = 0; p < probes; ++p)
    for (std::size_t j = 0; j < lambdas.size(); ++j) sums[j] += each[static_cast<std::size_t>(p) * lambdas.size() + j];
  for (double& s : sums) s /= static_cast<double>(probes);
  return sums;
}

}  // namespace trident::ridge
