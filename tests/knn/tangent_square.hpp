#pragma once
// A square on the plane tangent to the sphere at a centre, its points projected back to the
// sphere: the clustered sets of the tests (clusters.hpp) and of bench/knn/refs.cpp. Built
// from vectors, so it works at the poles and across the dateline. No test framework here,
// so the benchmark can include it.
#include <cmath>

namespace trident::knn::test {

class TangentSquare {
 public:
  TangentSquare(double lat, double lon, double side_m, double radius)
      : c_{std::cos(lat * kDegree) * std::cos(lon * kDegree), std::cos(lat * kDegree) * std::sin(lon * kDegree),
           std::sin(lat * kDegree)},
        // east and north at the centre (at a pole: any two orthogonal tangents)
        e_{-std::sin(lon * kDegree), std::cos(lon * kDegree), 0.0},
        n_{c_[1] * e_[2] - c_[2] * e_[1], c_[2] * e_[0] - c_[0] * e_[2], c_[0] * e_[1] - c_[1] * e_[0]},
        side_m_(side_m),
        radius_(radius) {}

  // The point at (a, b) of the square, each in [-0.5, 0.5) of its side, in degrees.
  void point(double a, double b, double& lat, double& lon) const {
    a = a * side_m_ / radius_;
    b = b * side_m_ / radius_;
    double v[3];
    for (int i = 0; i < 3; ++i) v[i] = c_[i] + a * e_[i] + b * n_[i];
    const double r = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    lat = std::asin(v[2] / r) / kDegree;
    lon = std::atan2(v[1], v[0]) / kDegree;
  }

 private:
  static constexpr double kDegree = 3.14159265358979323846 / 180.0;
  double c_[3], e_[3], n_[3], side_m_, radius_;
};

}  // namespace trident::knn::test
