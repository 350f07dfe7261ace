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

#include "ridge/detail/lsmr_sweep.hpp"

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

// How settled a block's quadratures must be to end its steps early. Each λ's quadrature is
// judged by the mean change over the block's probes in the last kProbeCheckEvery steps. The
// Gauss rule only grows toward its limit, geometrically once it converges, so the steps left
// add a few times what the last few did. That error is weighed against the estimate's own:
// the standard error of the mean of zᵀMz over all the probes (the block's spread over
// √probes). A change of at most kGcvSettledSpread of it leaves an error of about a sixth of
// a standard error (on a 4000² matrix of the tutorial's kind, at the smallest λ, where the
// quadrature converges slowest), which adds about 1 % to the estimate's RMS error: settling
// further would cost steps and buy nothing. A change of at most kGcvSettled of G (2 Δt /
// (rows - t)) also counts as settled (one probe alone has no spread).
inline constexpr double kGcvSettledSpread = 0.03;
inline constexpr double kGcvSettled = 1e-6;

// t(λ) estimated from `probes` probes of at most `steps` steps each, for every λ of
// `lambdas`; the same on every rank of `comm`. `solver` holds this rank's rows, from row
// `first_row` of A's `total_rows`. Each λ group runs its share of the probes, in blocks of
// kProbeWidth, each block's steps ending once its quadratures of the λ marked in `judged`
// have settled (kGcvSettledSpread, kGcvSettled; `judged` empty: every block runs all
// `steps`); the quadratures are summed in probe order.
// `steps_taken`, when given, gets the most steps a block took. Collective.
std::vector<double> estimate_traces(MPI_Comm comm, const SweepLayout& layout, SweepSolver& solver,
                                    std::int64_t first_row, std::int64_t total_rows,
                                    const std::vector<double>& lambdas, std::int64_t probes, std::uint64_t seed,
                                    std::int64_t steps, const std::vector<std::uint8_t>& judged = {},
                                    std::int64_t* steps_taken = nullptr);

}  // namespace trident::ridge
