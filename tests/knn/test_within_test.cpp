// The distance queries' pair test (within_kernels.hpp's WithinTest): the count pass, which
// takes pairs under the inner chord as within without their angle, decides every pair as the
// fill pass does with the angle (else a row's count and its entries would differ), for pairs
// at the limit to 1e-11 relative on either side, at limits from a millimetre to near the
// antipode, and nothing within the limit falls outside the outer chord.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "knn/detail/geometry.hpp"
#include "knn/detail/within_kernels.hpp"

namespace trident::knn {
namespace {

constexpr double kEarth = 6371008.8;
constexpr double kDegree = 3.14159265358979323846 / 180.0;

// The point `angle` radians from (lat, lon) (degrees) along `bearing` (radians): the plain
// spherical destination formula, in degrees.
void destination(double lat, double lon, double bearing, double angle, double& to_lat, double& to_lon) {
  const double p = lat * kDegree, l = lon * kDegree;
  const double sp = std::sin(p) * std::cos(angle) + std::cos(p) * std::sin(angle) * std::cos(bearing);
  const double q = std::asin(std::fmax(-1.0, std::fmin(1.0, sp)));
  const double m = l + std::atan2(std::sin(bearing) * std::sin(angle) * std::cos(p), std::cos(angle) - std::sin(p) * sp);
  to_lat = q / kDegree;
  to_lon = std::remainder(m / kDegree, 360.0);
}

TEST(KnnWithinTest, CountPassDecidesEveryPairAsTheFillPass) {
  std::mt19937_64 rng(20261129);
  std::uniform_real_distribution<double> u(-1.0, 1.0), turn(0.0, 6.283185307179586), near(-1e-11, 1e-11);
  long inside = 0, outside = 0;
  for (const double limit : {1e-3, 1.0, 25e3, 1e6, 1e7, 1.9e7, 2.0e7}) {
    const WithinTest test(kEarth, limit);
    for (int i = 0; i < 4000; ++i) {
      const double lat = std::asin(u(rng)) / kDegree, lon = 180.0 * u(rng);
      // at the limit, a hair either side, or exactly (i % 4 == 0)
      const double angle = limit / kEarth * (i % 4 == 0 ? 1.0 : 1.0 + near(rng));
      double to_lat = 0, to_lon = 0;
      destination(lat, lon, turn(rng), angle, to_lat, to_lon);
      const Vec4<double> p = unit_vector(lat, lon), q = unit_vector(to_lat, to_lon);
      double with_angle = -1, without = -1;
      const bool fill = test.within(p, q, with_angle, true);
      const bool count = test.within(p, q, without, false);
      ASSERT_EQ(count, fill) << "limit " << limit << " pair " << i;
      // the fill's answer is the distance test itself, and the outer chord never hides a pair within
      const bool exact = kEarth * great_circle_angle(p, q) <= limit;
      ASSERT_EQ(fill, exact) << "limit " << limit << " pair " << i;
      (fill ? inside : outside) += 1;
    }
  }
  // the pairs fall on both sides
  EXPECT_GT(inside, 1000);
  EXPECT_GT(outside, 1000);
  // well inside the limit the count pass needs no angle; at a limit of 0 or near the
  // antipode it always does
  const WithinTest test(kEarth, 1e6);
  const Vec4<double> p = unit_vector(10.0, 20.0), q = unit_vector(10.0, 20.5);
  double a = -1;
  EXPECT_TRUE(test.within(p, q, a, false));
  EXPECT_EQ(a, -1);
  EXPECT_LT(WithinTest(kEarth, 0.0).inner, 0.0);
  EXPECT_LT(WithinTest(kEarth, 3.1 * kEarth).inner, 0.0);
}

}  // namespace
}  // namespace trident::knn
