// The L-curve corner finder on curves whose corner is known.
#include <gtest/gtest.h>

#include <cmath>

#include "ridge/lcurve.hpp"

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

TEST(RidgeCorner, FewerThanThreePointsHaveNoCorner) {
  EXPECT_EQ(find_corner({1, 2}, {1, 2}, {2, 1}).index, -1);
  EXPECT_TRUE(refinement_lambdas({1, 2}, Corner{}, 4).empty());
}

TEST(RidgeCorner, RefinementFillsBothSidesOfTheCorner) {
  const std::vector<double> lambdas = {0.1, 1, 10, 100, 1000};
  Corner corner;
  corner.index = 2;
  corner.lambda = 10;
  const std::vector<double> three = refinement_lambdas(lambdas, corner, 3);
  ASSERT_EQ(three.size(), 3u);  // two in (1, 10), one in (10, 100), none equal to 10
  EXPECT_NEAR(three[0], std::pow(10.0, 1.0 / 3), 1e-12);
  EXPECT_NEAR(three[1], std::pow(10.0, 2.0 / 3), 1e-12);
  EXPECT_NEAR(three[2], std::pow(10.0, 1.5), 1e-12);
  const std::vector<double> four = refinement_lambdas(lambdas, corner, 4);
  ASSERT_EQ(four.size(), 4u);
  for (double l : four) {
    EXPECT_GT(l, 1);
    EXPECT_LT(l, 100);
    EXPECT_GT(std::abs(l - 10), 1);
  }
}

}  // namespace
}  // namespace trident::ridge
