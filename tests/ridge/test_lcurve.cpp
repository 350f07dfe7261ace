// The L-curve corner finder on curves whose corner is known.
#include <gtest/gtest.h>

#include <cmath>

#include "ridge/detail/lcurve.hpp"

namespace trident::ridge {
namespace {

// A sampled curve in log-log space: (log10 residual, log10 norm) = (px(t), py(t)).
struct Curve {
  std::vector<double> lambdas, residuals, norms;
};

Curve sampled(int count, double (*px)(double), double (*py)(double)) {
  Curve c;
  for (int i = 0; i < count; ++i) {
    const double t = double(i) / double(count - 1);
    c.lambdas.push_back(std::pow(10.0, -3 + 6 * t));
    c.residuals.push_back(std::pow(10.0, px(t)));
    c.norms.push_back(std::pow(10.0, py(t)));
  }
  return c;
}

TEST(RidgeCorner, SharpLFindsItsElbow) {
  // Straight down, then straight right: the elbow is the sample at (0, 0), index 6.
  Curve c;
  const double xs[] = {0, 0, 0, 0, 0, 0, 0, 0.5, 1, 1.5, 2, 2.5};
  const double ys[] = {3, 2.5, 2, 1.5, 1, 0.5, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 12; ++i) {
    c.lambdas.push_back(0.1 * (i + 1));
    c.residuals.push_back(std::pow(10.0, xs[i]));
    c.norms.push_back(std::pow(10.0, ys[i]));
  }
  const Corner corner = find_corner(c.lambdas, c.residuals, c.norms);
  EXPECT_EQ(corner.index, 6);
  EXPECT_DOUBLE_EQ(corner.lambda, c.lambdas[6]);
  EXPECT_GT(corner.curvature, 0);
}

TEST(RidgeCorner, HyperbolaCornerIsAtItsVertex) {
  // x = log residual, y = log norm on the hyperbola (x - 1)(y - 1) = 0.01, x, y > 1,
  // sampled symmetrically: maximum curvature at the vertex x = y = 1.1, the middle sample.
  const int n = 41;
  Curve c;
  for (int i = 0; i < n; ++i) {
    const double s = -2.0 + 4.0 * i / (n - 1);  // x - 1 = 0.1 * 10^s... symmetric in s
    const double x = 1 + 0.1 * std::pow(10.0, s / 2), y = 1 + 0.01 / (x - 1);
    c.lambdas.push_back(std::pow(10.0, s));
    c.residuals.push_back(std::pow(10.0, x));
    c.norms.push_back(std::pow(10.0, y));
  }
  const Corner corner = find_corner(c.lambdas, c.residuals, c.norms);
  EXPECT_EQ(corner.index, n / 2);
  // Menger curvature of the vertex of y = a/x (a = 0.01) tends to 1/sqrt(2a) ~ 7.07.
  EXPECT_NEAR(corner.curvature, 1 / std::sqrt(0.02), 0.5);
}

TEST(RidgeCorner, CircleHasConstantCurvature) {
  // A quarter circle of radius 2, traversed from top to right turning left (an L's bend):
  // every interior Menger curvature is 1/2.
  Curve c = sampled(
      9, [](double t) { return 2 - 2 * std::cos(t * M_PI / 2); },
      [](double t) { return 2 - 2 * std::sin(t * M_PI / 2); });
  const std::vector<double> k = menger_curvatures(c.residuals, c.norms);
  EXPECT_EQ(k.front(), 0);
  EXPECT_EQ(k.back(), 0);
  for (std::size_t i = 1; i + 1 < k.size(); ++i) EXPECT_NEAR(k[i], 0.5, 1e-9);
}

TEST(RidgeCorner, MirroredShapeOfAWellPosedProblemFindsItsElbow) {
  // Flat then steep (the tutorial's shape: the residual vanishes at small λ, x at large λ),
  // with a gentle bend (curvature about 0.2) before the sharp elbow at index 4.
  Curve c;
  const double xs[] = {-3, -2, -1, 0, 1, 1, 1, 1};
  const double ys[] = {1.6, 1.4, 1.1, 1, 1, 0, -1, -2};
  for (int i = 0; i < 8; ++i) {
    c.lambdas.push_back(std::pow(10.0, i - 1));
    c.residuals.push_back(std::pow(10.0, xs[i]));
    c.norms.push_back(std::pow(10.0, ys[i]));
  }
  const Corner corner = find_corner(c.lambdas, c.residuals, c.norms);
  EXPECT_EQ(corner.index, 4);
  EXPECT_NEAR(corner.curvature, std::sqrt(2.0), 1e-12);  // right angle, unit sides
  // The same curve traversed as an L (x and y swapped) has the same corner.
  EXPECT_EQ(find_corner(c.lambdas, c.norms, c.residuals).index, 4);
  const std::vector<double> k = menger_curvatures(c.residuals, c.norms);
  for (double v : k) EXPECT_GE(v, 0);
}

// Two right-angle bends with unit legs, one turning each way, and straight runs elsewhere:
// points (log10 residual, log10 norm) = (0,3) (0,2) (1,2) (2,2) (2,1) (2,0). At (0,2) and at
// (2,2) the triangle with the two neighbours has legs 1 and 1 and hypotenuse sqrt(2):
// curvature 4 * (1/2) / (1 * 1 * sqrt(2)) = sqrt(2), the same operations on the same numbers
// in both, so exactly equal; the other interior points are collinear with their neighbours
// (0). The residuals and norms are powers of ten, whose log10 is exact.
TEST(RidgeCorner, TiesGoToTheSmallerLambda) {
  const std::vector<double> residuals = {1, 1, 10, 100, 100, 100};
  const std::vector<double> norms = {1000, 100, 100, 100, 10, 1};
  const std::vector<double> k = menger_curvatures(residuals, norms);
  ASSERT_EQ(k.size(), 6u);
  EXPECT_EQ(k[0], 0);
  EXPECT_DOUBLE_EQ(k[1], 1.4142135623730951);
  EXPECT_EQ(k[2], 0);
  EXPECT_EQ(k[3], k[1]);  // the tie, bit for bit
  EXPECT_EQ(k[4], 0);
  EXPECT_EQ(k[5], 0);
  const Corner ascending = find_corner({0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, residuals, norms);
  EXPECT_EQ(ascending.index, 1);  // not 3: the first of the equal bends, the smaller λ
  EXPECT_EQ(ascending.lambda, 0.2);
  EXPECT_DOUBLE_EQ(ascending.curvature, 1.4142135623730951);
  // A third equal bend after them, (2,1) (2,0) (3,1): legs 1 and sqrt(2), the far side 1,
  // twice the area 1: 2 / (1 * sqrt(2) * 1), the same product as before: a three-way tie.
  std::vector<double> r7 = residuals, n7 = norms;
  r7.push_back(1000);
  n7.push_back(10);
  const std::vector<double> k7 = menger_curvatures(r7, n7);
  EXPECT_EQ(k7[5], k7[1]);
  EXPECT_EQ(find_corner({1, 2, 3, 4, 5, 6, 7}, r7, n7).index, 1);
  // The two bends one place later (a straight start (0,4) first): the first of them again.
  std::vector<double> r_late = residuals, n_late = norms;
  r_late.insert(r_late.begin(), 1);
  n_late.insert(n_late.begin(), 10000);
  EXPECT_EQ(find_corner({1, 2, 3, 4, 5, 6, 7}, r_late, n_late).index, 2);
}

TEST(RidgeCorner, FewerThanThreePointsHaveNoCorner) {
  EXPECT_EQ(find_corner({1, 2}, {1, 2}, {2, 1}).index, -1);
  EXPECT_TRUE(refinement_lambdas({1, 2}, Corner{}, 4).empty());
}

// Where the extra λ go, by hand: k of n values between a and b are a (b/a)^(k/(n+1)), here
// between powers of ten, so 10^(e + k/(n+1)) (decimal values from the exponents, not from
// refinement_lambdas); half of them (the odd one) left of the corner, in ascending order.
void expect_values(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-14 * want[k]) << "value " << k;
}

TEST(RidgeCorner, RefinementFillsBothSidesOfTheCorner) {
  const std::vector<double> lambdas = {0.1, 1, 10, 100, 1000};
  Corner corner;
  corner.index = 2;
  corner.lambda = 10;
  // one: left of the corner, the geometric middle of (1, 10): 10^(1/2)
  expect_values(refinement_lambdas(lambdas, corner, 1), {3.1622776601683795});
  // two: one each side, 10^(1/2) and 10^(3/2)
  expect_values(refinement_lambdas(lambdas, corner, 2), {3.1622776601683795, 31.622776601683793});
  // three: two in (1, 10) at 10^(1/3), 10^(2/3), one in (10, 100) at 10^(3/2)
  expect_values(refinement_lambdas(lambdas, corner, 3), {2.154434690031884, 4.641588833612778, 31.622776601683793});
  // four: 10^(1/3), 10^(2/3) | 10^(4/3), 10^(5/3); none equal to the corner's 10
  expect_values(refinement_lambdas(lambdas, corner, 4),
                {2.154434690031884, 4.641588833612778, 21.544346900318832, 46.4158883361278});
  // a corner at either end of the interior: between its neighbours all the same
  corner.index = 1;
  expect_values(refinement_lambdas(lambdas, corner, 2), {0.31622776601683794, 3.1622776601683795});
  corner.index = 3;
  expect_values(refinement_lambdas(lambdas, corner, 2), {31.622776601683793, 316.22776601683796});
  EXPECT_TRUE(refinement_lambdas(lambdas, corner, 0).empty());
}

}  // namespace
}  // namespace trident::ridge
