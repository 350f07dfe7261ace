#pragma once
// The test's own answer to the distance queries: every reference's great-circle distance
// by the plain formula of brute_force.hpp, those within the limit sorted with the tie rule
// (1e-12 relative, chained, by index). Plain serial loops, no library code.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "brute_force.hpp"

namespace trident::knn::test {

// Row of observation `o`: the references within `max_distance`, nearest first, ties by
// index. `near_limit` is set when a reference lies within 1e-12 relative of the limit on
// either side, where the library's float64 distance and this one may decide differently.
inline std::vector<std::int64_t> within(const Point& o, const std::vector<Point>& refs, double max_distance,
                                        double radius, std::vector<double>& distances, bool& near_limit) {
  std::vector<double> d(refs.size());
  std::vector<std::int64_t> order;
  near_limit = false;
  for (std::size_t j = 0; j < refs.size(); ++j) {
    d[j] = reference_distance(o, refs[j], radius);
    if (std::fabs(d[j] - max_distance) <= 1e-12 * max_distance) near_limit = true;
    if (d[j] <= max_distance) order.push_back(static_cast<std::int64_t>(j));
  }
  std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return d[a] < d[b] || (d[a] == d[b] && a < b); });
  for (std::size_t start = 0; start < order.size();) {
    std::size_t end = start + 1;
    while (end < order.size() && tie(d[order[end - 1]], d[order[end]])) ++end;
    std::sort(order.begin() + static_cast<std::ptrdiff_t>(start), order.begin() + static_cast<std::ptrdiff_t>(end));
    start = end;
  }
  distances.clear();
  for (std::int64_t j : order) distances.push_back(d[static_cast<std::size_t>(j)]);
  return order;
}

// Rows of k entries (the first k within, padded with -1 and NaN) against the library's:
// indices identical and distances within 1e-12 relative, except in rows near the limit,
// where only the written distances are checked against it. Returns the rows near it.
template <class Indices, class Distances>
int expect_within(const std::vector<Point>& obs, const std::vector<Point>& refs, int k, double max_distance,
                  double radius, const Indices& indices, const Distances& distances) {
  EXPECT_EQ(indices.size(), obs.size() * static_cast<std::size_t>(k));
  int near = 0, shown = 0;
  std::vector<double> d;
  for (std::size_t o = 0; o < obs.size() && indices.size() == obs.size() * static_cast<std::size_t>(k); ++o) {
    bool near_limit = false;
    const std::vector<std::int64_t> want = within(obs[o], refs, max_distance, radius, d, near_limit);
    near += near_limit ? 1 : 0;
    for (int j = 0; j < k; ++j) {
      const std::size_t at = o * static_cast<std::size_t>(k) + static_cast<std::size_t>(j);
      const bool padded = indices[at] < 0;
      EXPECT_EQ(padded, std::isnan(distances[at])) << "observation " << o << ", entry " << j;
      if (!padded) EXPECT_LE(distances[at], max_distance) << "observation " << o << ", entry " << j;
      if (near_limit) continue;
      const bool have = static_cast<std::size_t>(j) < want.size();
      const bool ok = have ? indices[at] == want[static_cast<std::size_t>(j)] &&
                                 std::fabs(distances[at] - d[static_cast<std::size_t>(j)]) <= 1e-12 * d[static_cast<std::size_t>(j)]
                           : padded;
      if (!ok && shown++ < 5)
        ADD_FAILURE() << "observation " << o << ", entry " << j << ": expected "
                      << (have ? std::to_string(want[static_cast<std::size_t>(j)]) : std::string("-1")) << ", got "
                      << indices[at] << " at " << distances[at];
    }
  }
  return near;
}

}  // namespace trident::knn::test
