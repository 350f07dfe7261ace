#include "knn/distance_limit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

namespace trident::knn {

namespace {

// A dropped entry this close to the limit may tie (1e-12 relative, in chains) with a
// reference within it that the tie rule put after the row's k-th: the row is made again.
constexpr double kNearLimit = 1e-9;

bool tied(double a, double b) { return std::fabs(a - b) <= kTieRelative * std::max(a, b); }

}  // namespace

void DistanceLimit::cut(ChunkRows& rows, const Vec4<double>* observations,
                        const std::vector<Vec4<double>>& references) {
  if (std::isinf(max_distance_)) return;
  cut_.resize(static_cast<std::size_t>(rows.count), 0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t i = 0; i < cut_.size(); ++i) {
    if (cut_[i] != 0 || rows.done[i] == 0) continue;
    cut_[i] = 1;
    NeighbourIndex* index = rows.neighbours.indices.data() + i * static_cast<std::size_t>(k_);
    double* distance = rows.neighbours.distances.data() + i * static_cast<std::size_t>(k_);
    bool near_limit = false;
    for (int j = 0; j < k_; ++j)
      near_limit = near_limit || (index[j] >= 0 && distance[j] > max_distance_ &&
                                  distance[j] <= max_distance_ * (1 + kNearLimit));
    if (near_limit) search_row(index, distance, observations[i], references);
    // the entries within keep their order (nearest first, ties by index) at the row's front
    int kept = 0;
    for (int j = 0; j < k_; ++j) {
      if (index[j] < 0 || !(distance[j] <= max_distance_)) continue;  // NaN: cut before a restart
      index[kept] = index[j];
      distance[kept++] = distance[j];
    }
    std::fill(index + kept, index + k_, NeighbourIndex(-1));
    std::fill(distance + kept, distance + k_, nan);
    kept_ += kept;
    if (kept < k_) ++short_rows_;
  }
}

// Rare (a reference within 1e-9 relative beyond the limit): a plain float64 pass over every
// reference with the distance the settling computes, on the host.
void DistanceLimit::search_row(NeighbourIndex* index, double* distance, const Vec4<double>& observation,
                               const std::vector<Vec4<double>>& references) const {
  std::vector<std::pair<double, NeighbourIndex>> within;
  for (std::size_t r = 0; r < references.size(); ++r) {
    const double angle = great_circle_angle(observation, references[r]);
    if (radius_ * angle <= max_distance_) within.push_back({angle, static_cast<NeighbourIndex>(r)});
  }
  std::sort(within.begin(), within.end());
  for (std::size_t start = 0; start < within.size();) {  // the tie rule, as Order applies it
    std::size_t end = start + 1;
    while (end < within.size() && tied(within[end - 1].first, within[end].first)) ++end;
    std::sort(within.begin() + static_cast<std::ptrdiff_t>(start), within.begin() + static_cast<std::ptrdiff_t>(end),
              [](const auto& a, const auto& b) { return a.second < b.second; });
    start = end;
  }
  for (int j = 0; j < k_; ++j) {
    const bool have = static_cast<std::size_t>(j) < within.size();
    index[j] = have ? within[static_cast<std::size_t>(j)].second : -1;
    distance[j] = have ? radius_ * within[static_cast<std::size_t>(j)].first : std::numeric_limits<double>::quiet_NaN();
  }
}

}  // namespace trident::knn
