#pragma once
// The trace GCV needs, t(λ) = trace(A (A^T A + λ^2 I)^-1 A^T), for every λ at once:
// Hutchinson's estimate (the mean of z^T M z over random sign vectors z) with each z^T M z
// by Lanczos quadrature (Golub & von Matt 1997): a Golub-Kahan bidiagonalization of A
// started from z gives B_k, and z^T A (A^T A + λ^2 I)^-1 A^T z ≈ ||A^T z||^2 e1^T (B_k^T B_k
// + λ^2 I)^-1 e1, the Gauss rule of the spectral measure of A^T z, for any λ from the same B_k.
// The bidiagonalizations run on the host, in double, over this rank's rows of A (its λ
// group's ranks sum A^T u), the probes dealt to the λ groups in turn.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "ridge/detail/problem.hpp"

namespace trident::ridge {

class SweepLayout;

// One probe's bidiagonal: alpha_1..alpha_k and beta_1 = ||z||, beta_2..beta_{k+1}.
struct ProbeBidiagonal {
  std::vector<double> alpha, beta;
  // z^T A (A^T A + λ^2 I)^-1 A^T z by the Gauss rule of the k steps.
  double quadrature(double lambda) const;
};

// The probe's random signs: entry `row` (of the whole A) of probe `probe` for `seed`, the
// same on any rank count.
double probe_sign(std::uint64_t seed, std::int64_t probe, std::int64_t row);

// `steps` steps of the bidiagonalization of A (this rank's rows, `rows_comm` joining the
// ranks that hold the others; MPI_COMM_NULL or a one-rank comm when `problem` is whole)
// started from probe `probe`; fewer when it breaks down (an invariant subspace: the rule
// is then exact). Collective over rows_comm.
ProbeBidiagonal bidiagonalize_probe(MPI_Comm rows_comm, const Problem& problem, std::uint64_t seed,
                                    std::int64_t probe, std::int64_t steps);

// t(λ) estimated from `probes` probes of `steps` steps each, for every λ of `lambdas`; the
// same on every rank of `comm`. Collective.
std::vector<double> estimate_traces(MPI_Comm comm, const SweepLayout& layout, const Problem& problem,
                                    const std::vector<double>& lambdas, std::int64_t probes, std::uint64_t seed,
                                    std::int64_t steps);

}  // namespace trident::ridge
