#pragma once
// The trace GCV needs, t(λ) = trace(A (A^T A + λ^2 I)^-1 A^T), for every λ at once:
// Hutchinson's estimate (the mean of z^T M z over random sign vectors z) with each z^T M z
// by Lanczos quadrature (Golub & von Matt 1997): a Golub-Kahan bidiagonalization of A
// started from z gives B_k, and z^T A (A^T A + λ^2 I)^-1 A^T z ≈ ||A^T z||^2 e1^T (B_k^T B_k
// + λ^2 I)^-1 e1, the Gauss rule of the spectral measure of A^T z, for any λ from the same B_k.
// The bidiagonalizations run on the device with the sweep's matrices, kProbeWidth probes
// sharing each pass over A (SweepSolver::bidiagonalize_probes, probe_lanczos.hpp), the
// blocks shared out over the λ groups; the quadrature runs on the host, in double.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "ridge/detail/lsmr_sweep.hpp"

namespace trident::ridge {

class SweepLayout;

// One probe's bidiagonal: alpha_1..alpha_k and beta_1 = ||z||, beta_2..beta_{k+1}.
// zᵀ A (AᵀA + λ²I)⁻¹ Aᵀ z = zᵀ g(AAᵀ) z for g(x) = x / (x + λ²), whose even derivatives are
// negative and odd ones positive: rules of the k steps bracket it (Golub & von Matt).
struct ProbeBidiagonal {
  std::vector<double> alpha, beta;
  // From below: ||Aᵀz||² e1ᵀ (B_kᵀB_k + λ²I)⁻¹ e1, B_k the (k+1) x k lower bidiagonal; the
  // Gauss rule of AᵀA's measure (the Gauss-Radau rule of AAᵀ's, its node at 0). Grows with k.
  double quadrature(double lambda) const;
  // From above: the lesser of the same with beta_{k+1} dropped (C_k, B_k's first k rows: the
  // Gauss rule of AAᵀ's measure, loose while a null space of Aᵀ has no node near 0) and the
  // Gauss-Radau rule of AᵀA's measure with a node at 0 (of Aᵀz, which has no mass there), and
  // ||z||². Falls with k.
  double upper_bound(double lambda) const;
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
// (rows - t)) also counts as settled (one probe alone has no spread). A λ is settled when
// this held at two checks in a row.
inline constexpr double kGcvSettledSpread = 0.03;
inline constexpr double kGcvSettled = 1e-6;
// With the probes in several blocks, each ending on its own, a block's mean of t may lie
// off the mean over all the probes: by about its standard error (the block's spread over
// √its probes). `minimum` settles every λ whose G could be least within this many of them.
inline constexpr double kGcvBlockSpread = 3;

// When a block's steps end (ridge.gcv_settle).
struct GcvSettling {
  // The λ judged (LSMR converged there: only they can be chosen); empty: every block runs
  // all the steps.
  std::vector<std::uint8_t> judged;
  // false (`minimum`): once the judged λ of least G is settled and every other judged λ's G
  // from below exceeds its G from above, so that no further step can change the choice
  // (Golub & von Matt), G from ||b - A x_λ|| (`residual_norms`) and the block's bounds on t.
  // With several blocks, every λ whose G could be least in the mean over all of them
  // (kGcvBlockSpread) is settled too. true (`all`): once every judged λ is settled.
  bool whole_curve = true;
  std::vector<double> residual_norms;  // per λ, with whole_curve false
};

// t(λ) for every λ, bracketed by the probes' quadratures: `lower` (the estimate: it is what
// the steps converge to from below) and `upper`, each the mean over the probes.
struct TraceEstimate {
  std::vector<double> lower, upper;
  // Per λ: judged and settled in every block (a block that ran all its steps counts as
  // settled: the steps are more than enough, add_gcv).
  std::vector<std::uint8_t> settled;
  std::int64_t steps = 0;  // the most steps a block took
};

// t(λ) estimated from `probes` probes of at most `steps` steps each, for every λ of
// `lambdas`; the same on every rank of `comm`. `solver` holds this rank's rows, from row
// `first_row` of A's `total_rows`. The probes run in blocks of kProbeWidth, block b on λ
// group b mod groups, each block's steps ending as `settling` says; the quadratures are
// summed in probe order. Collective.
TraceEstimate estimate_traces(MPI_Comm comm, const SweepLayout& layout, SweepSolver& solver, std::int64_t first_row,
                              std::int64_t total_rows, const std::vector<double>& lambdas, std::int64_t probes,
                              std::uint64_t seed, std::int64_t steps, const GcvSettling& settling = {});

}  // namespace trident::ridge
