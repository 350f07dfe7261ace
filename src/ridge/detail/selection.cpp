// The rules that choose λ (selection.hpp), on the host, among the converged λ.
#include "ridge/detail/selection.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include "ridge/detail/lcurve.hpp"
#include "ridge/detail/lsmr_sweep.hpp"

namespace trident::ridge {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<std::size_t> converged_indices(const std::vector<std::uint8_t>& converged) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < converged.size(); ++i)
    if (converged[i] != 0) out.push_back(i);
  return out;
}

std::string too_few(std::size_t have, std::size_t need) {
  return std::to_string(have) + " converged λ, fewer than " + std::to_string(need);
}

// The converged index of least `values` (ties to the smaller λ), ignoring NaN.
Choice least(const std::vector<double>& lambdas, const std::vector<double>& values,
             const std::vector<std::uint8_t>& converged) {
  Choice c;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (converged[i] == 0 || !std::isfinite(values[i])) continue;
    if (c.index < 0 || values[i] < c.value) {
      c.index = static_cast<long>(i);
      c.value = values[i];
    }
  }
  if (c.index >= 0) c.lambda = lambdas[static_cast<std::size_t>(c.index)];
  return c;
}

}  // namespace

bool converged_stop(int stop_reason) {
  return stop_reason != kStopConditionLimit && stop_reason != kStopIterationLimit &&
         stop_reason != kStopUnfinished;
}

Choice corner_choice(const std::vector<double>& lambdas, const std::vector<double>& residual_norms,
                     const std::vector<double>& solution_norms, const std::vector<std::uint8_t>& converged) {
  const std::vector<std::size_t> kept = converged_indices(converged);
  Choice c;
  if (kept.size() < 3) {
    c.why_none = too_few(kept.size(), 3);
    return c;
  }
  std::vector<double> l, r, s;
  for (std::size_t i : kept) {
    l.push_back(lambdas[i]);
    r.push_back(residual_norms[i]);
    s.push_back(solution_norms[i]);
  }
  const Corner corner = find_corner(l, r, s);
  c.index = static_cast<long>(kept[static_cast<std::size_t>(corner.index)]);
  c.lambda = corner.lambda;
  c.value = corner.curvature;
  return c;
}

Choice discrepancy_choice(const std::vector<double>& lambdas, const std::vector<double>& residual_norms,
                          const std::vector<std::uint8_t>& converged, double target,
                          std::pair<long, long>* bracket) {
  const std::vector<std::size_t> kept = converged_indices(converged);
  Choice c;
  if (kept.size() < 2) {
    c.why_none = too_few(kept.size(), 2);
    return c;
  }
  const double t = std::log(target);
  for (std::size_t k = 0; k + 1 < kept.size(); ++k) {
    const std::size_t i = kept[k], j = kept[k + 1];
    const double ri = std::log(residual_norms[i]), rj = std::log(residual_norms[j]);
    if (!((ri <= t && t <= rj) || (rj <= t && t <= ri))) continue;
    const double li = std::log(lambdas[i]), lj = std::log(lambdas[j]);
    const double f = rj == ri ? 0.0 : (t - ri) / (rj - ri);
    c.lambda = std::exp(li + f * (lj - li));
    c.index = static_cast<long>(std::abs(rj - t) < std::abs(ri - t) ? j : i);
    c.value = residual_norms[static_cast<std::size_t>(c.index)];
    if (bracket) *bracket = {static_cast<long>(i), static_cast<long>(j)};
    return c;
  }
  bool above = true;
  for (std::size_t i : kept) above = above && residual_norms[i] > target;
  c.why_none = std::string("every converged residual norm is ") + (above ? "above" : "below") +
               " tau * noise_level * sqrt(rows); widen the λ range " + (above ? "to smaller" : "to larger") + " λ";
  return c;
}

std::vector<double> bracket_refinement(const std::vector<double>& lambdas, std::pair<long, long> bracket,
                                       long count) {
  std::vector<double> out;
  if (bracket.first < 0 || count <= 0) return out;
  const double low = lambdas[static_cast<std::size_t>(bracket.first)];
  const double high = lambdas[static_cast<std::size_t>(bracket.second)];
  for (long k = 1; k <= count; ++k) out.push_back(low * std::pow(high / low, double(k) / double(count + 1)));
  return out;
}

std::vector<double> quasi_optimality_function(const std::vector<double>& lambdas, const std::vector<double>& steps,
                                              const std::vector<std::uint8_t>& converged) {
  std::vector<double> q(lambdas.size(), kNaN);
  const std::vector<std::size_t> kept = converged_indices(converged);
  for (std::size_t k = 0; k + 1 < kept.size(); ++k) {
    const std::size_t i = kept[k], j = kept[k + 1];
    q[i] = steps[i] / std::log(lambdas[j] / lambdas[i]);
  }
  return q;
}

Choice quasi_optimality_choice(const std::vector<double>& lambdas, const std::vector<double>& steps,
                               const std::vector<std::uint8_t>& converged) {
  const std::size_t kept = converged_indices(converged).size();
  if (kept < 2) {
    Choice c;
    c.why_none = too_few(kept, 2);
    return c;
  }
  const std::vector<double> q = quasi_optimality_function(lambdas, steps, converged);
  // The quotients in λ order, and which of them are interior local minima.
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < q.size(); ++i)
    if (std::isfinite(q[i])) at.push_back(i);
  std::vector<double> interior(q.size(), kNaN);
  for (std::size_t k = 1; k + 1 < at.size(); ++k)
    if (q[at[k]] <= q[at[k - 1]] && q[at[k]] <= q[at[k + 1]]) interior[at[k]] = q[at[k]];
  const Choice local = least(lambdas, interior, converged);
  return local.index >= 0 ? local : least(lambdas, q, converged);
}

std::vector<double> gcv_function(std::int64_t rows, const std::vector<double>& residual_norms,
                                 const std::vector<double>& traces) {
  std::vector<double> g(residual_norms.size(), kNaN);
  const double m = static_cast<double>(rows);
  for (std::size_t i = 0; i < g.size() && i < traces.size(); ++i) {
    const double left = m - traces[i];
    g[i] = left > 0 ? m * residual_norms[i] * residual_norms[i] / (left * left) : HUGE_VAL;
  }
  return g;
}

Choice gcv_choice(const std::vector<double>& lambdas, const std::vector<double>& gcv,
                  const std::vector<std::uint8_t>& converged) {
  Choice c = least(lambdas, gcv, converged);
  if (c.index < 0) c.why_none = "no converged λ";
  return c;
}

}  // namespace trident::ridge
