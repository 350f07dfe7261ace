#pragma once
// Clustered point sets for the tests: points spread uniformly over a square of the given
// side (metres) on the plane tangent to the sphere at a centre, projected back to the
// sphere. Works at the poles and across the dateline (the square is built from vectors).
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "brute_force.hpp"

namespace trident::knn::test {

inline std::vector<Point> cluster(std::size_t n, double lat, double lon, double side_m, std::uint64_t seed,
                                  double radius = 6371008.8) {
  const double d = 3.14159265358979323846 / 180.0;
  const double c[3] = {std::cos(lat * d) * std::cos(lon * d), std::cos(lat * d) * std::sin(lon * d), std::sin(lat * d)};
  // east and north at the centre (at a pole: any two orthogonal tangents)
  double e[3] = {-std::sin(lon * d), std::cos(lon * d), 0.0};
  double nv[3] = {c[1] * e[2] - c[2] * e[1], c[2] * e[0] - c[0] * e[2], c[0] * e[1] - c[1] * e[0]};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  std::vector<Point> p(n);
  for (auto& x : p) {
    const double a = u(rng) * side_m / radius, b = u(rng) * side_m / radius;
    double v[3];
    for (int i = 0; i < 3; ++i) v[i] = c[i] + a * e[i] + b * nv[i];
    const double r = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    x = Point{std::asin(v[2] / r) / d, std::atan2(v[1], v[0]) / d};
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
