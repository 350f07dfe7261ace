#pragma once
// The rules that choose λ from a finished sweep, each on the host from the gathered curve
// and only among the converged λ (LSMR's stop reason neither 3, the condition limit, nor 7,
// the iteration limit): the L-curve's corner, the discrepancy principle, quasi-optimality
// and generalized cross-validation. Every rule reports an index into the full (ascending)
// λ list, or -1 with the reason it chose nothing.
#include <cstdint>
#include <string>
#include <vector>

namespace trident::ridge {

// LSMR stopped by its own convergence test (not the condition or iteration limit, and not
// cut short by a stop signal).
bool converged_stop(int stop_reason);

struct Choice {
  long index = -1;       // into the λ list; -1: nothing chosen (see `why_none`)
  double lambda = 0;     // the chosen λ; the discrepancy's is interpolated between samples
  double value = 0;      // the rule's own figure at the choice (curvature, residual, step, G)
  std::string why_none;  // when index is -1: why, in a few words for the log and the output
};

// The corner among the converged λ alone: the maximum Menger curvature of the converged
// points in order (find_corner); none with fewer than 3 of them.
Choice corner_choice(const std::vector<double>& lambdas, const std::vector<double>& residual_norms,
                     const std::vector<double>& solution_norms, const std::vector<std::uint8_t>& converged);

// Discrepancy principle: the λ where ||b - A x_λ|| equals `target` (tau * sigma * sqrt(rows)),
// interpolated linearly in (log λ, log residual) between the two consecutive converged λ
// whose residuals bracket it (the first such pair, λ ascending). `index` is the one of the
// two whose residual lies closer to the target in log; `bracket` (when given) receives the
// pair's indices. None when every converged residual lies on one side of the target.
Choice discrepancy_choice(const std::vector<double>& lambdas, const std::vector<double>& residual_norms,
                          const std::vector<std::uint8_t>& converged, double target,
                          std::pair<long, long>* bracket = nullptr);

// `count` λ spread geometrically strictly inside (lambdas[low], lambdas[high]).
std::vector<double> bracket_refinement(const std::vector<double>& lambdas, std::pair<long, long> bracket,
                                       long count);

// Quasi-optimality: `steps[i]` is ||x_i - x_j|| from converged λ_i to the next converged
// λ_j (NaN where λ_i is not converged or has no converged successor). The rule minimises
// steps[i] / ln(λ_j / λ_i), a difference quotient of ||λ dx/dλ||: on a geometric grid the
// same choice as the plain minimum of ||x_i - x_j||, and not biased by the closer λ that a
// refinement adds. The least interior local minimum of the quotients is taken (one at
// either end of the range says only that x keeps shrinking toward 0 at large λ, or stops
// changing below A's smallest singular value), the least of all when none is interior.
// `value` is the chosen quotient.
Choice quasi_optimality_choice(const std::vector<double>& lambdas, const std::vector<double>& steps,
                               const std::vector<std::uint8_t>& converged);
// The quotients the rule compares (NaN where steps[i] is).
std::vector<double> quasi_optimality_function(const std::vector<double>& lambdas, const std::vector<double>& steps,
                                              const std::vector<std::uint8_t>& converged);

// GCV: G(λ) = rows * ||b - A x_λ||^2 / (rows - t(λ))^2 with t(λ) = trace(A A_λ^#) (estimated,
// gcv.hpp), +inf where rows - t <= 0 (a bound on t from above can reach rows); the converged
// λ of least G.
std::vector<double> gcv_function(std::int64_t rows, const std::vector<double>& residual_norms,
                                 const std::vector<double>& traces);
Choice gcv_choice(const std::vector<double>& lambdas, const std::vector<double>& gcv,
                  const std::vector<std::uint8_t>& converged);

}  // namespace trident::ridge
