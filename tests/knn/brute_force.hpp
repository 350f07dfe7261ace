#pragma once
// The test's own answer: every pair's great-circle distance as R*atan2(|p x q|, p.q) in
// long double (cross product by Kahan's difference of products), all references sorted,
// ties (1e-12 relative) to the lower index. Plain serial loops, no library code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace trident::knn::test {

struct Point {
  double lat, lon;
};

// The same formula the library uses for float64 unit vectors (the answer is defined on them).
inline void unit(const Point& p, double v[3]) {
  const double lat = p.lat * (3.14159265358979323846 / 180.0);
  const double lon = p.lon * (3.14159265358979323846 / 180.0);
  const double c = std::cos(lat);
  v[0] = c * std::cos(lon);
  v[1] = c * std::sin(lon);
  v[2] = std::sin(lat);
}

inline long double difference_of_products(long double a, long double b, long double c, long double d) {
  const long double w = c * d;
  const long double e = std::fma(-c, d, w);
  const long double f = std::fma(a, b, -w);
  return f + e;
}

inline double reference_distance(const Point& a, const Point& b, double radius) {
  double p[3], q[3];
  unit(a, p);
  unit(b, q);
  const long double x = difference_of_products(p[1], q[2], p[2], q[1]);
  const long double y = difference_of_products(p[2], q[0], p[0], q[2]);
  const long double z = difference_of_products(p[0], q[1], p[1], q[0]);
  const long double dot = (long double)p[0] * q[0] + (long double)p[1] * q[1] + (long double)p[2] * q[2];
  return static_cast<double>(radius * std::atan2(std::sqrt(x * x + y * y + z * z), dot));
}

struct Answer {
  std::vector<std::int64_t> indices;  // n_obs x k
  std::vector<double> distances;
};

inline bool tie(double a, double b) { return std::fabs(a - b) <= 1e-12 * std::max(a, b); }

inline Answer brute_force(const std::vector<Point>& obs, const std::vector<Point>& refs, int k,
                          double radius) {
  Answer answer;
  std::vector<double> d(refs.size());
  std::vector<std::int64_t> order(refs.size());
  for (const Point& o : obs) {
    for (std::size_t j = 0; j < refs.size(); ++j) d[j] = reference_distance(o, refs[j], radius);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
      return d[a] < d[b] || (d[a] == d[b] && a < b);
    });
    // the tie rule: a run of neighbours each within 1e-12 relative of the next is one tie
    // group, ordered by reference index
    for (std::size_t start = 0; start < order.size();) {
      std::size_t end = start + 1;
      while (end < order.size() && tie(d[order[end - 1]], d[order[end]])) ++end;
      std::sort(order.begin() + start, order.begin() + end);
      start = end;
    }
    for (int i = 0; i < k; ++i) {
      answer.indices.push_back(order[i]);
      answer.distances.push_back(d[order[i]]);
    }
  }
  return answer;
}

// Indices identical, distances within 1e-12 relative (`indices` and `distances`: vectors of
// std::int64_t and double, with any allocator).
template <class Indices, class Distances>
void expect_same(const Answer& want, const Indices& indices, const Distances& distances, int k, double radius) {
  ASSERT_EQ(want.indices.size(), indices.size());
  int shown = 0;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const bool index_ok = want.indices[i] == indices[i];
    const bool distance_ok = std::fabs(want.distances[i] - distances[i]) <=
                             1e-12 * std::fabs(want.distances[i]) + 0.0 * radius;
    if ((!index_ok || !distance_ok) && shown++ < 5) {
      ADD_FAILURE() << "observation " << i / k << ", neighbour " << i % k << ": expected index "
                    << want.indices[i] << " at " << want.distances[i] << " m, got "
                    << indices[i] << " at " << distances[i] << " m";
    }
  }
  EXPECT_EQ(shown, 0);
}

inline std::vector<Point> random_points(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), l(-180.0, 180.0);
  std::vector<Point> p(n);
  for (auto& x : p) x = Point{std::asin(u(rng)) * 180.0 / 3.14159265358979323846, l(rng)};
  return p;
}

}  // namespace trident::knn::test
