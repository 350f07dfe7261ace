// The λ rules on curves whose answer is known: only converged λ count, the discrepancy's
// interpolation is exact on a power law, quasi-optimality's quotient, GCV's least value;
// and GCV's Lanczos quadrature against a dense Cholesky solve.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference.hpp"
#include "ridge/detail/gcv.hpp"
#include "ridge/detail/lcurve.hpp"
#include "ridge/detail/selection.hpp"

namespace trident::ridge {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// The sharp L of test_lcurve.cpp (elbow at index 6, curvature 2 sqrt 2), with a right-angled
// spike at index 3 between neighbours 0.2 apart (curvature 10): marked unconverged, it must
// not be chosen.
TEST(RidgeSelection, TheCornerIgnoresUnconvergedPoints) {
  std::vector<double> lambdas, residuals, norms;
  const double xs[] = {0, 0, 0, 0.1, 0, 0, 0, 0.5, 1, 1.5, 2, 2.5};
  const double ys[] = {3, 2.5, 1.6, 1.5, 1.4, 0.5, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 12; ++i) {
    lambdas.push_back(0.1 * (i + 1));
    residuals.push_back(std::pow(10.0, xs[i]));
    norms.push_back(std::pow(10.0, ys[i]));
  }
  std::vector<std::uint8_t> all(12, 1), some(12, 1);
  EXPECT_EQ(find_corner(lambdas, residuals, norms).index, 3);  // the spike, when it counts
  EXPECT_EQ(corner_choice(lambdas, residuals, norms, all).index, 3);
  some[3] = 0;
  const Choice c = corner_choice(lambdas, residuals, norms, some);
  EXPECT_EQ(c.index, 6);
  EXPECT_DOUBLE_EQ(c.lambda, lambdas[6]);
  // Two converged λ: no corner, and why.
  std::vector<std::uint8_t> two(12, 0);
  two[0] = two[5] = 1;
  const Choice none = corner_choice(lambdas, residuals, norms, two);
  EXPECT_EQ(none.index, -1);
  EXPECT_EQ(none.why_none, "2 converged λ, fewer than 3");
}

// ||b - A x|| = 2 λ^0.5: the log-log interpolation is exact, so the target 10 is met at
// λ = 25 whichever samples bracket it; an unconverged sample inside the bracket is skipped.
TEST(RidgeSelection, DiscrepancyInterpolatesInLogLog) {
  std::vector<double> lambdas = {1, 4, 16, 30, 64, 256}, residuals;
  for (double l : lambdas) residuals.push_back(2 * std::sqrt(l));
  std::vector<std::uint8_t> converged(6, 1);
  std::pair<long, long> bracket;
  Choice c = discrepancy_choice(lambdas, residuals, converged, 10.0, &bracket);
  EXPECT_NEAR(c.lambda, 25.0, 1e-12);
  EXPECT_EQ(bracket, (std::pair<long, long>{2, 3}));
  EXPECT_EQ(c.index, 3);  // 30 is nearer 25 than 16 in log
  EXPECT_DOUBLE_EQ(c.value, residuals[3]);
  converged[3] = 0;
  c = discrepancy_choice(lambdas, residuals, converged, 10.0, &bracket);
  EXPECT_NEAR(c.lambda, 25.0, 1e-12);
  EXPECT_EQ(bracket, (std::pair<long, long>{2, 4}));
  EXPECT_EQ(c.index, 2);  // 16 nearer than 64
  // The refinement fills the bracket geometrically.
  const std::vector<double> extra = bracket_refinement(lambdas, bracket, 3);
  ASSERT_EQ(extra.size(), 3u);
  EXPECT_NEAR(extra[0], 16 * std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(extra[1], 32.0, 1e-12);
  EXPECT_NEAR(extra[2], 32 * std::sqrt(2.0), 1e-12);
  // Targets off the curve: none, and which way to widen the range.
  c = discrepancy_choice(lambdas, residuals, converged, 1.0);
  EXPECT_EQ(c.index, -1);
  EXPECT_NE(c.why_none.find("above"), std::string::npos);
  EXPECT_NE(c.why_none.find("to smaller λ"), std::string::npos);
  c = discrepancy_choice(lambdas, residuals, converged, 100.0);
  EXPECT_NE(c.why_none.find("below"), std::string::npos);
}

TEST(RidgeSelection, QuasiOptimalityDividesByTheLogStep) {
  // λ 1, 2, 4, 5, 10: steps to the next converged λ; λ 5 unconverged, so 4's step goes to 10.
  const std::vector<double> lambdas = {1, 2, 4, 5, 10};
  const std::vector<std::uint8_t> converged = {1, 1, 1, 0, 1};
  const std::vector<double> steps = {0.9, 0.5, 0.8, kNaN, kNaN};
  const std::vector<double> q = quasi_optimality_function(lambdas, steps, converged);
  EXPECT_NEAR(q[0], 0.9 / std::log(2.0), 1e-15);
  EXPECT_NEAR(q[1], 0.5 / std::log(2.0), 1e-15);
  EXPECT_NEAR(q[2], 0.8 / std::log(2.5), 1e-15);
  EXPECT_TRUE(std::isnan(q[3]) && std::isnan(q[4]));
  const Choice c = quasi_optimality_choice(lambdas, steps, converged);
  EXPECT_EQ(c.index, 1);
  EXPECT_DOUBLE_EQ(c.lambda, 2.0);
}

// The quotients 5, 3, 4, 2, 1 (λ doubling): 1 at the end is the least, but the interior
// local minimum 3 is chosen; decreasing throughout, the end is all there is.
TEST(RidgeSelection, QuasiOptimalityPrefersAnInteriorMinimum) {
  const std::vector<double> lambdas = {1, 2, 4, 8, 16, 32};
  const std::vector<std::uint8_t> converged(6, 1);
  std::vector<double> steps = {5, 3, 4, 2, 1, kNaN};
  for (double& s : steps) s *= std::log(2.0);
  EXPECT_EQ(quasi_optimality_choice(lambdas, steps, converged).index, 1);
  steps = {5, 4, 3, 2, 1, kNaN};
  for (double& s : steps) s *= std::log(2.0);
  EXPECT_EQ(quasi_optimality_choice(lambdas, steps, converged).index, 4);
}

TEST(RidgeSelection, GcvTakesTheLeastConvergedValue) {
  const std::vector<double> residuals = {1, 2, 3}, traces = {8, 5, 2};
  const std::vector<double> g = gcv_function(10, residuals, traces);
  EXPECT_DOUBLE_EQ(g[0], 10.0 * 1 / 4);
  EXPECT_DOUBLE_EQ(g[1], 10.0 * 4 / 25);
  EXPECT_DOUBLE_EQ(g[2], 10.0 * 9 / 64);
  EXPECT_EQ(gcv_choice({1, 2, 3}, g, {1, 1, 1}).index, 2);
  EXPECT_EQ(gcv_choice({1, 2, 3}, g, {1, 1, 0}).index, 1);
}

// With as many steps as columns the Gauss rule is exact: z^T A (A^T A + λ^2 I)^-1 A^T z
// against the dense solve of the damped normal equations for A^T z (b = z, so the solve
// gives x_λ and the quadrature is z^T A x_λ).
TEST(RidgeSelection, LanczosQuadratureMatchesADenseSolve) {
  Problem p;
  std::vector<Triplet> entries;
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 12; ++j)
      if ((i * 5 + j * 7) % 3 == 0 || i == j) entries.push_back({i, j, 0.05 * ((i * 13 + j * 11) % 17) - 0.3});
  p.a = csr_from_triplets(40, 12, entries);
  const test::Dense a = test::dense(p.a);
  std::vector<double> z(40);
  for (int i = 0; i < 40; ++i) z[i] = probe_sign(7, 3, i);
  const ProbeBidiagonal b = bidiagonalize_probe(MPI_COMM_NULL, p, 7, 3, 12);
  EXPECT_EQ(b.alpha.size(), 12u);
  for (double lambda : {0.01, 0.3, 1.0, 10.0}) {
    const std::vector<double> x = test::ridge_by_cholesky(a, z, lambda);
    const std::vector<double> ax = test::multiply(a, x);
    double exact = 0;
    for (int i = 0; i < 40; ++i) exact += z[i] * ax[i];
    EXPECT_NEAR(b.quadrature(lambda), exact, 1e-9 * exact) << "λ " << lambda;
  }
  // Fewer steps: a lower bound (the Gauss rule of 1 / (t + λ^2)), approaching the value.
  const ProbeBidiagonal few = bidiagonalize_probe(MPI_COMM_NULL, p, 7, 3, 3);
  EXPECT_LT(few.quadrature(0.3), b.quadrature(0.3));
  EXPECT_GT(few.quadrature(0.3), 0.5 * b.quadrature(0.3));
}

TEST(RidgeSelection, ProbeSignsAreBalancedAndDependOnTheirKey) {
  int plus = 0, same = 0;
  for (int row = 0; row < 4000; ++row) {
    plus += probe_sign(1, 0, row) > 0;
    same += probe_sign(1, 0, row) == probe_sign(1, 1, row);
  }
  EXPECT_NEAR(plus, 2000, 200);  // 6 standard deviations of a fair coin
  EXPECT_NEAR(same, 2000, 200);
}

}  // namespace
}  // namespace trident::ridge
