#pragma once
// Clustered point sets for the tests: points spread uniformly over a square of the given
// side (metres) on the plane tangent to the sphere at a centre, projected back to the
// sphere (tangent_square.hpp). Works at the poles and across the dateline.
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "brute_force.hpp"
#include "tangent_square.hpp"

namespace trident::knn::test {

inline std::vector<Point> cluster(std::size_t n, double lat, double lon, double side_m, std::uint64_t seed,
                                  double radius = 6371008.8) {
  const TangentSquare square(lat, lon, side_m, radius);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  std::vector<Point> p(n);
  for (auto& x : p) {
    const double a = u(rng), b = u(rng);
    square.point(a, b, x.lat, x.lon);
  }
  return p;
}

// Points as CSV text with the columns lat and lon, every digit kept.
inline std::string csv_text(const std::vector<Point>& points) {
  std::string text = "lat,lon\n";
  char row[64];
  for (const auto& p : points) {
    std::snprintf(row, sizeof row, "%.17g,%.17g\n", p.lat, p.lon);
    text += row;
  }
  return text;
}

inline std::vector<Point> joined(std::vector<Point> a, const std::vector<Point>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace trident::knn::test
