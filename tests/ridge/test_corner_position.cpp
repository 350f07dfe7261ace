// The L-curve's corner can be any interior λ, the first and the last interior ones included:
// a curve that runs straight down in log-log, turns a right angle at point j and runs
// straight on has its only nonzero curvature, and so its corner, at j.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ridge/detail/lcurve.hpp"

namespace trident::ridge {
namespace {

TEST(RidgeCornerPosition, EveryInteriorPointCanBeTheCorner) {
  for (const int n : {3, 4, 5, 8}) {
    for (int j = 1; j + 1 < n; ++j) {
      std::vector<double> lambdas, residual, solution;
      for (int i = 0; i < n; ++i) {
        const double x = i <= j ? 0.0 : i - j, y = i <= j ? n - i : n - j;  // log10 of the norms
        lambdas.push_back(i + 1.0);
        residual.push_back(std::pow(10.0, x));
        solution.push_back(std::pow(10.0, y));
      }
      const Corner corner = find_corner(lambdas, residual, solution);
      EXPECT_EQ(corner.index, j) << n << " points, the turn at " << j;
      EXPECT_EQ(corner.lambda, j + 1.0);
      EXPECT_GT(corner.curvature, 0.0);
    }
  }
}

}  // namespace
}  // namespace trident::ridge
