// The L-curve's Menger curvatures, its corner, and the λ that refine it.
#include "ridge/detail/lcurve.hpp"

#include <algorithm>
#include <cmath>

namespace trident::ridge {

std::vector<double> menger_curvatures(const std::vector<double>& residual_norms,
                                      const std::vector<double>& solution_norms) {
  const std::size_t n = std::min(residual_norms.size(), solution_norms.size());
  std::vector<double> kappa(n, 0.0);
  auto point = [&](std::size_t i, double& x, double& y) {
    x = std::log10(residual_norms[i]);
    y = std::log10(solution_norms[i]);
    return std::isfinite(x) && std::isfinite(y);
  };
  for (std::size_t i = 1; i + 1 < n; ++i) {
    double x0, y0, x1, y1, x2, y2;
    if (!point(i - 1, x0, y0) || !point(i, x1, y1) || !point(i + 1, x2, y2)) continue;
    // Twice the triangle's area (the cross product of two of its sides).
    const double cross = (x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1);
    const double a = std::hypot(x1 - x0, y1 - y0), b = std::hypot(x2 - x1, y2 - y1),
                 c = std::hypot(x2 - x0, y2 - y0);
    if (a == 0 || b == 0 || c == 0) continue;
    kappa[i] = 2.0 * std::abs(cross) / (a * b * c);
  }
  return kappa;
}

Corner find_corner(const std::vector<double>& lambdas, const std::vector<double>& residual_norms,
                   const std::vector<double>& solution_norms) {
  Corner corner;
  if (lambdas.size() < 3) return corner;
  const std::vector<double> kappa = menger_curvatures(residual_norms, solution_norms);
  std::size_t best = 1;
  for (std::size_t i = 2; i + 1 < kappa.size(); ++i)
    if (kappa[i] > kappa[best]) best = i;
  corner.index = static_cast<long>(best);
  corner.lambda = lambdas[best];
  corner.curvature = kappa[best];
  return corner;
}

std::vector<double> refinement_lambdas(const std::vector<double>& lambdas, const Corner& corner,
                                       long count) {
  std::vector<double> out;
  if (corner.index < 1 || count <= 0) return out;
  // Half the new values on each side of the corner (the odd one to the left), spaced
  // geometrically strictly inside (λ[i-1], λ[i]) and (λ[i], λ[i+1]).
  const long left = count - count / 2, right = count / 2;
  auto fill = [&](double low, double high, long n) {
    for (long k = 1; k <= n; ++k) out.push_back(low * std::pow(high / low, double(k) / double(n + 1)));
  };
  const std::size_t i = static_cast<std::size_t>(corner.index);
  fill(lambdas[i - 1], lambdas[i], left);
  fill(lambdas[i], lambdas[i + 1], right);
  return out;
}

}  // namespace trident::ridge
