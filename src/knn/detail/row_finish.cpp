#include "knn/detail/row_finish.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <utility>

#include "core/host_threads.hpp"

namespace trident::knn {

namespace {

// A dropped entry this close to the limit may tie (1e-12 relative, in chains) with a
// reference within it that the tie rule put after the row's k-th: the row is made again.
constexpr double kNearLimit = 1e-9;

bool tied(double a, double b) { return std::fabs(a - b) <= kTieRelative * std::max(a, b); }

}  // namespace

RowFinish::RowFinish(const KnnSettings& settings, std::int64_t count)
    : max_distance_(settings.max_distance),
      radius_(settings.radius),
      k_(static_cast<int>(settings.k)),
      search_k_(static_cast<int>(settings.search_k())),
      exclude_self_(settings.exclude_self),
      limited_(settings.has_max_distance()),
      own_(settings.exclude_self),
      finished_(static_cast<std::size_t>(count), 0) {
  if (own_) allocate_rows(rows_, static_cast<std::size_t>(count * k_));
}

void RowFinish::restored(const ChunkRows& rows) {
  for (std::size_t i = 0; i < finished_.size(); ++i) finished_[i] = rows.done[i];
}

void RowFinish::finish(ChunkRows& rows, const Vec4<double>* observations, const std::vector<Vec4<double>>& references) {
  if (!own_ && !limited_) return;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::mutex totals;
  // rows apart from each other, on the host's threads (2^24 rows of k + 1 entries take
  // about a second on one)
  core::host_parallel_ranges(static_cast<std::int64_t>(finished_.size()), std::int64_t(1) << 14,
                             [&](std::int64_t begin, std::int64_t end) {
    std::int64_t kept_here = 0, short_here = 0;
    for (auto i = static_cast<std::size_t>(begin); i < static_cast<std::size_t>(end); ++i) {
      if (finished_[i] != 0 || rows.done[i] == 0) continue;
      finished_[i] = 1;
      const NeighbourIndex* from_index = rows.neighbours.indices.data() + i * static_cast<std::size_t>(search_k_);
      const double* from_distance = rows.neighbours.distances.data() + i * static_cast<std::size_t>(search_k_);
      NeighbourIndex* index = (own_ ? rows_.indices.data() : rows.neighbours.indices.data()) + i * static_cast<std::size_t>(k_);
      double* distance = (own_ ? rows_.distances.data() : rows.neighbours.distances.data()) + i * static_cast<std::size_t>(k_);
      const std::int64_t self = exclude_self_ ? rows.first + static_cast<std::int64_t>(i) : -1;
      if (own_) {
        // the k + 1 nearest less the point itself are the k nearest others; where the point is
        // not among them (duplicates of lower index fill the row), their first k are
        int kept = 0;
        for (int j = 0; j < search_k_ && kept < k_; ++j) {
          if (from_index[j] == self) continue;
          index[kept] = from_index[j];
          distance[kept++] = from_distance[j];
        }
      }
      if (!limited_) continue;
      const double limit = radii_ != nullptr ? radii_[i] : max_distance_;
      bool near_limit = false;
      for (int j = 0; j < k_; ++j)
        near_limit = near_limit || (index[j] >= 0 && distance[j] > limit && distance[j] <= limit * (1 + kNearLimit));
      if (near_limit) search_row(index, distance, observations[i], references, self, limit);
      // the entries within keep their order (nearest first, ties by index) at the row's front
      int kept = 0;
      for (int j = 0; j < k_; ++j) {
        if (index[j] < 0 || !(distance[j] <= limit)) continue;  // NaN: cut before a restart
        index[kept] = index[j];
        distance[kept++] = distance[j];
      }
      std::fill(index + kept, index + k_, NeighbourIndex(-1));
      std::fill(distance + kept, distance + k_, nan);
      kept_here += kept;
      if (kept < k_) ++short_here;
    }
    const std::lock_guard<std::mutex> hold(totals);
    kept_ += kept_here;
    short_rows_ += short_here;
  });
}

// Rare (a reference within 1e-9 relative beyond the limit): a plain float64 pass over every
// reference with the distance the settling computes, on the host.
void RowFinish::search_row(NeighbourIndex* index, double* distance, const Vec4<double>& observation,
                           const std::vector<Vec4<double>>& references, std::int64_t self, double limit) const {
  std::vector<std::pair<double, NeighbourIndex>> within;
  for (std::size_t r = 0; r < references.size(); ++r) {
    const double angle = great_circle_angle(observation, references[r]);
    if (static_cast<std::int64_t>(r) != self && radius_ * angle <= limit)
      within.push_back({angle, static_cast<NeighbourIndex>(r)});
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
