// GCV's trace by Hutchinson probes and Lanczos quadrature (gcv.hpp), on the host in double.
#include "ridge/detail/gcv.hpp"

#include <algorithm>
#include <cmath>

#include "core/comm.hpp"
#include "ridge/detail/sweep.hpp"

namespace trident::ridge {

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Sums `values` over the ranks of `rows_comm` (nothing for one rank or none).
void sum_rows(MPI_Comm rows_comm, std::vector<double>& values) {
  if (rows_comm != MPI_COMM_NULL && mpi::size(rows_comm) > 1) mpi::sum_over_ranks(rows_comm, values);
}

double sum_rows(MPI_Comm rows_comm, double value) {
  if (rows_comm != MPI_COMM_NULL && mpi::size(rows_comm) > 1) return mpi::sum_over_ranks(rows_comm, value);
  return value;
}

// y = A_i v over this rank's rows.
void multiply(const HostCsr& a, const std::vector<double>& v, std::vector<double>& y) {
  for (int i = 0; i < a.rows; ++i) {
    double s = 0;
    for (int k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) s += a.values[k] * v[a.col_ind[k]];
    y[i] = s;
  }
}

// w = A_i^T u over this rank's rows (every column; summed over the ranks by the caller).
void multiply_transposed(const HostCsr& a, const std::vector<double>& u, std::vector<double>& w) {
  std::fill(w.begin(), w.end(), 0.0);
  for (int i = 0; i < a.rows; ++i)
    for (int k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) w[a.col_ind[k]] += a.values[k] * u[i];
}

double squared_norm(const std::vector<double>& x) {
  double s = 0;
  for (double e : x) s += e * e;
  return s;
}

}  // namespace

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

double probe_sign(std::uint64_t seed, std::int64_t probe, std::int64_t row) {
  const std::uint64_t h =
      splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(probe) ^ splitmix64(static_cast<std::uint64_t>(row))));
  return (h >> 63) != 0 ? -1.0 : 1.0;
}

ProbeBidiagonal bidiagonalize_probe(MPI_Comm rows_comm, const Problem& problem, std::uint64_t seed,
                                    std::int64_t probe, std::int64_t steps) {
  const HostCsr& a = problem.a;
  const auto rows = static_cast<std::size_t>(a.rows), columns = static_cast<std::size_t>(a.columns);
  ProbeBidiagonal out;
  std::vector<double> u(rows), v(columns, 0.0), w(columns), av(rows);
  for (std::size_t i = 0; i < rows; ++i) u[i] = probe_sign(seed, probe, problem.first_row + std::int64_t(i));
  double beta = std::sqrt(sum_rows(rows_comm, squared_norm(u)));
  out.beta.push_back(beta);
  if (beta == 0) return out;
  for (double& e : u) e /= beta;
  // The breakdown test: a new alpha or beta below this much of the largest so far is an
  // invariant subspace met (in exact arithmetic zero).
  double largest = 0;
  for (std::int64_t step = 0; step < steps; ++step) {
    // alpha v = A^T u - beta v
    multiply_transposed(a, u, w);
    sum_rows(rows_comm, w);
    for (std::size_t j = 0; j < columns; ++j) w[j] -= beta * v[j];
    const double alpha = std::sqrt(squared_norm(w));
    largest = std::max(largest, alpha);
    if (!(alpha > 1e-14 * largest)) break;
    for (std::size_t j = 0; j < columns; ++j) v[j] = w[j] / alpha;
    out.alpha.push_back(alpha);
    // beta u = A v - alpha u
    multiply(a, v, av);
    for (std::size_t i = 0; i < rows; ++i) u[i] = av[i] - alpha * u[i];
    beta = std::sqrt(sum_rows(rows_comm, squared_norm(u)));
    largest = std::max(largest, beta);
    if (!(beta > 1e-14 * largest)) {
      out.beta.push_back(0.0);
      break;
    }
    for (double& e : u) e /= beta;
    out.beta.push_back(beta);
  }
  if (out.beta.size() < out.alpha.size() + 1) out.beta.push_back(0.0);
  return out;
}

std::vector<double> estimate_traces(MPI_Comm comm, const SweepLayout& layout, const Problem& problem,
                                    const std::vector<double>& lambdas, std::int64_t probes, std::uint64_t seed,
                                    std::int64_t steps) {
  std::vector<double> sums(lambdas.size(), 0.0);
  for (std::int64_t probe = layout.group(); probe < probes; probe += layout.groups()) {
    const ProbeBidiagonal b = bidiagonalize_probe(layout.group_comm(), problem, seed, probe, steps);
    if (layout.rank_in_group() != 0) continue;  // the group's other ranks hold the same
    for (std::size_t j = 0; j < lambdas.size(); ++j) sums[j] += b.quadrature(lambdas[j]);
  }
  mpi::sum_over_ranks(comm, sums);
  for (double& s : sums) s /= static_cast<double>(probes);
  return sums;
}

}  // namespace trident::ridge
