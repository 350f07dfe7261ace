#pragma once
// The host float64 reference of GCV's probes: the Golub-Kahan bidiagonalization of A (this
// rank's rows, rows_comm joining the others) started from a probe's sign vector, one probe
// at a time, plain loops in double. The device's blocks (SweepSolver::bidiagonalize_probes)
// are held to it.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/comm.hpp"
#include "ridge/detail/gcv.hpp"
#include "ridge/detail/probe_lanczos.hpp"
#include "ridge/detail/problem.hpp"

namespace trident::ridge::test {

inline double probe_sign(std::uint64_t seed, std::int64_t probe, std::int64_t row) {
  return probes::sign(seed, probe, row);
}

inline void sum_rows(MPI_Comm rows_comm, std::vector<double>& values) {
  if (rows_comm != MPI_COMM_NULL && mpi::size(rows_comm) > 1) mpi::sum_over_ranks(rows_comm, values);
}

inline double squared_norm(MPI_Comm rows_comm, const std::vector<double>& x) {
  std::vector<double> s{0.0};
  for (double e : x) s[0] += e * e;
  sum_rows(rows_comm, s);
  return s[0];
}

// `steps` steps from probe `probe` of `seed`, fewer when it breaks down (a new alpha or
// beta below 1e-14 of the largest so far; a beta so cut ends it as 0).
inline ProbeBidiagonal bidiagonalize_probe(MPI_Comm rows_comm, const Problem& problem, std::uint64_t seed,
                                           std::int64_t probe, std::int64_t steps) {
  const HostCsr& a = problem.a;
  const auto rows = static_cast<std::size_t>(a.rows), columns = static_cast<std::size_t>(a.columns);
  ProbeBidiagonal out;
  std::vector<double> u(rows), v(columns, 0.0), w(columns), av(rows);
  for (std::size_t i = 0; i < rows; ++i) u[i] = probe_sign(seed, probe, problem.first_row + std::int64_t(i));
  double beta = std::sqrt(squared_norm(rows_comm, u));
  out.beta.push_back(beta);
  if (beta == 0) return out;
  for (double& e : u) e /= beta;
  double largest = 0;
  for (std::int64_t step = 0; step < steps; ++step) {
    std::fill(w.begin(), w.end(), 0.0);
    for (std::size_t i = 0; i < rows; ++i)
      for (int k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) w[a.col_ind[k]] += a.values[k] * u[i];
    sum_rows(rows_comm, w);
    for (std::size_t j = 0; j < columns; ++j) w[j] -= beta * v[j];
    double alpha = 0;
    for (double e : w) alpha += e * e;
    alpha = std::sqrt(alpha);
    largest = std::max(largest, alpha);
    if (!(alpha > 1e-14 * largest)) break;
    for (std::size_t j = 0; j < columns; ++j) v[j] = w[j] / alpha;
    out.alpha.push_back(alpha);
    for (std::size_t i = 0; i < rows; ++i) {
      double s = 0;
      for (int k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) s += a.values[k] * v[a.col_ind[k]];
      av[i] = s;
    }
    for (std::size_t i = 0; i < rows; ++i) u[i] = av[i] - alpha * u[i];
    beta = std::sqrt(squared_norm(rows_comm, u));
    largest = std::max(largest, beta);
    if (!(beta > 1e-14 * largest)) break;
    for (double& e : u) e /= beta;
    out.beta.push_back(beta);
  }
  if (out.beta.size() < out.alpha.size() + 1) out.beta.push_back(0.0);
  return out;
}

// The reference trace estimate of `probes` probes of `steps` steps on the whole problem.
inline std::vector<double> reference_traces(const Problem& whole, const std::vector<double>& lambdas,
                                            std::int64_t probes, std::uint64_t seed, std::int64_t steps) {
  std::vector<double> sums(lambdas.size(), 0.0);
  for (std::int64_t p = 0; p < probes; ++p) {
    const ProbeBidiagonal b = bidiagonalize_probe(MPI_COMM_NULL, whole, seed, p, steps);
    for (std::size_t j = 0; j < lambdas.size(); ++j) sums[j] += b.quadrature(lambdas[j]);
  }
  for (double& s : sums) s /= static_cast<double>(probes);
  return sums;
}

}  // namespace trident::ridge::test
