#pragma once
// The trace GCV needs, t(λ) = trace(A (A^T A + λ^2 I)^-1 A^T), for every λ at once:
// Hutchinson's estimate (the mean of z^T M z over random sign vectors z) with each z^T M z
// by Lanczos quadrature (Golub & von Matt 1997): a Golub-Kahan bidiagonalization of A
// started from z gives B_k, and z^T A (A^T A + λ^2 I)^-1 A^T z ≈ ||A^T z||^2 e1^T (B_k^T B_k
// + λ^2 I)^-1 e1, the Gauss rule of the spectral measure of A^T z, for any λ from the same B_k.
// The bidiagonalizations run on the device with the sweep's matrices, kProbeWidth probes
// sharing each pass over A (SweepSolver::bidiagonalize_probes, probe_lanczos.hpp), the
// probes split over the λ groups; the quadrature runs on the host, in double.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "ridge/lsmr_sweep.hpp"

namespace trident::ridge {

class SweepLayout;

// One probe's bidiagonal: alpha_1..alpha_k and beta_1 = ||z||, beta_2..beta_{k+1}.
struct ProbeBidiagonal {
  std::vector<double> alpha, beta;
  // z^T A (A^T A + λ^2 I)^-1 A^T z by the Gauss rule of the k steps.
  double quadrature(double lambda) const;
};

// Probe q's bidiagonal from a block's squared norms, cut at its first breakdown: a new
// alpha or beta below 1e-14 of the largest so far is an invariant subspace met (in exact
// arithmetic zero; the rule is then exact), a beta so cut ending it as 0.
ProbeBidiagonal probe_bidiagonal(const ProbeNorms& norms, int q);

// t(λ) estimated from `probes` probes of `steps` steps each, for every λ of `lambdas`;
// the same on every rank of `comm`. `solver` holds this rank's rows, from row `first_row`
// of A's `total_rows`. Each λ group runs its share of the probes, in blocks of
// kProbeWidth; the quadratures are summed in probe order. Collective.
std::vector<double> estimate_traces(MPI_Comm comm, const SweepLayout& layout, SweepSolver& solver,
                                    std::int64_t first_row, std::int64_t total_rows,
                                    const std::vector<double>& lambdas, std::int64_t probes, std::uint64_t seed,
                                    std::int64_t steps);

}  // namespace trident::ridge
