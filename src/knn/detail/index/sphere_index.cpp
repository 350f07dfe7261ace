// Building the index on the device: cube keys, a stable sort by key, the references in
// that order, then the balls level by level (see sphere_index.hpp).
#include "knn/detail/index/sphere_index.hpp"

#include <stdexcept>
#include <string>

#include "core/error.hpp"
#include "core/timers.hpp"
#include "knn/detail/index/cube_key.hpp"
#include "knn/detail/index/radix_sort.hpp"

namespace trident::knn {

namespace {

// Nodes over at most this many references get their radius from the references
// themselves (the tightest ball about the centre); nodes above, from their children's
// balls, so that no thread walks millions of references.
constexpr std::int64_t kExactSpan = 1024;

// A computed distance is the exact one within about 6e-16 relative (a subtraction, three
// products, two sums and a square root, each correctly rounded); radii are inflated by
// more than that, so that the balls hold their references whatever the rounding.
constexpr double kRadiusInflation = 1.0 + 2e-15;

std::int64_t span_of(int level) {  // references under a node of `level` (all but the last)
  std::int64_t span = kLeafSize;
  for (int l = 0; l < level; ++l) span *= kFanout;
  return span;
}

// The balls of `level` from its references: centre the mean, radius the farthest.
void exact_balls(const SphereIndexView& ix, int level) {
  const auto sorted = ix.sorted;
  const auto nodes = ix.nodes;
  const int start = ix.level_start[level], n = ix.references;
  const std::int64_t span = span_of(level);
  Kokkos::parallel_for(
      "trident::knn::index::leaf_balls", Kokkos::RangePolicy<ExecSpace>(0, ix.level_count[level]),
      KOKKOS_LAMBDA(int i) {
        const std::int64_t first = i * span, last = first + span < n ? first + span : n;
        double x = 0, y = 0, z = 0;
        for (std::int64_t j = first; j < last; ++j) {
          const Vec4<double> q = sorted(j);
          x += q.x, y += q.y, z += q.z;
        }
        const double count = static_cast<double>(last - first);
        const Vec4<double> c{x / count, y / count, z / count, 0.0};
        double r = 0;
        for (std::int64_t j = first; j < last; ++j) {
          const double d = distance_to(sorted(j), c);
          r = d > r ? d : r;
        }
        nodes(start + i) = Vec4<double>{c.x, c.y, c.z, r * kRadiusInflation};
      });
}

// The balls of `level` from those of its children: centre the mean of theirs weighted by
// their references, radius the farthest child's reach.
void balls_from_children(const SphereIndexView& ix, int level) {
  const auto nodes = ix.nodes;
  const int start = ix.level_start[level], child_start = ix.level_start[level - 1];
  const int children = ix.level_count[level - 1], n = ix.references;
  const std::int64_t child_span = span_of(level - 1);
  Kokkos::parallel_for(
      "trident::knn::index::node_balls", Kokkos::RangePolicy<ExecSpace>(0, ix.level_count[level]),
      KOKKOS_LAMBDA(int i) {
        const int first = i * kFanout, last = first + kFanout < children ? first + kFanout : children;
        double x = 0, y = 0, z = 0, total = 0;
        for (int j = first; j < last; ++j) {
          const std::int64_t refs_left = n - j * child_span;
          const double w = static_cast<double>(refs_left < child_span ? refs_left : child_span);
          const Vec4<double> c = nodes(child_start + j);
          x += w * c.x, y += w * c.y, z += w * c.z, total += w;
        }
        const Vec4<double> c{x / total, y / total, z / total, 0.0};
        double r = 0;
        for (int j = first; j < last; ++j) {
          const Vec4<double> b = nodes(child_start + j);
          const double reach = (distance_to(b, c) * kRadiusInflation + b.w) * kRadiusInflation;
          r = reach > r ? reach : r;
        }
        nodes(start + i) = Vec4<double>{c.x, c.y, c.z, r};
      });
}

}  // namespace

std::size_t SphereIndex::bytes() const {
  return view.sorted.span() * sizeof(Vec4<double>) + view.reference.span() * sizeof(int) +
         view.nodes.span() * sizeof(Vec4<double>) + view.leaf_keys.span() * sizeof(std::uint64_t);
}

std::size_t sphere_index_build_bytes(std::int64_t references) {
  const auto n = static_cast<std::size_t>(references);
  const std::size_t leaves = (n + kLeafSize - 1) / kLeafSize;
  // the nodes above the leaves are fewer than a seventh of them
  const std::size_t index = n * (sizeof(Vec4<double>) + sizeof(int)) +
                            (leaves + leaves / 7 + kMaxLevels) * sizeof(Vec4<double>) + leaves * sizeof(std::uint64_t);
  const std::size_t sort = 2 * n * (sizeof(std::uint64_t) + sizeof(int));
  return n * sizeof(Vec4<double>) + index + sort;
}

SphereIndex build_sphere_index(const std::vector<Vec4<double>>& references, transport::StagedUpload* upload) {
  if (references.empty() || references.size() >= static_cast<std::size_t>(kNoIndex)) {
    throw RunError("knn: the index takes 1 to 2147483646 references, got " + std::to_string(references.size()));
  }
  const double start = wall_seconds();
  const int n = static_cast<int>(references.size());
  const auto no_init = [](const std::string& label) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, label); };
  SphereIndex result;
  SphereIndexView& ix = result.view;
  ix.references = n;
  result.references = PointsView<double>(no_init("trident::knn::index::references"), n);
  transport::StagedUpload own;
  (upload != nullptr ? *upload : own)
      .copy(result.references.data(), references.data(), references.size() * sizeof(Vec4<double>));
  {
    const PointsView<double> refs = result.references;
    index::Keys keys(no_init("trident::knn::index::keys"), n);
    index::Values order(no_init("trident::knn::index::order"), n);
    Kokkos::parallel_for(
        "trident::knn::index::reference_keys", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(int i) {
          keys(i) = index::cube_key(refs(i));
          order(i) = i;
        });
    index::sort_by_key(keys, order);
    ix.reference = order;
    const int leaves = (n + kLeafSize - 1) / kLeafSize;
    ix.leaf_keys = Kokkos::View<std::uint64_t*, DeviceMemory>(no_init("trident::knn::index::leaf_keys"), leaves);
    const auto leaf_keys = ix.leaf_keys;
    const index::Keys sorted_keys = keys;
    Kokkos::parallel_for(
        "trident::knn::index::leaf_keys", Kokkos::RangePolicy<ExecSpace>(0, leaves),
        KOKKOS_LAMBDA(int l) { leaf_keys(l) = sorted_keys(l * kLeafSize); });
    ix.sorted = PointsView<double>(no_init("trident::knn::index::sorted_references"), n);
    const PointsView<double> sorted = ix.sorted;
    Kokkos::parallel_for(
        "trident::knn::index::sort_references", Kokkos::RangePolicy<ExecSpace>(0, n),
        KOKKOS_LAMBDA(int i) { sorted(i) = refs(order(i)); });
  }
  int count = (n + kLeafSize - 1) / kLeafSize, total = 0;
  for (;;) {
    if (ix.levels == kMaxLevels) throw RunError("knn: too many references for the index");
    ix.level_start[ix.levels] = total;
    ix.level_count[ix.levels] = count;
    total += count;
    ++ix.levels;
    if (count == 1) break;
    count = (count + kFanout - 1) / kFanout;
  }
  ix.nodes = Kokkos::View<Vec4<double>*, DeviceMemory>(no_init("trident::knn::index::balls"), total);
  for (int level = 0; level < ix.levels; ++level) {
    if (level == 0 || span_of(level) <= kExactSpan) {
      exact_balls(ix, level);
    } else {
      balls_from_children(ix, level);
    }
  }
  Kokkos::fence();
  result.build_seconds = wall_seconds() - start;
  return result;
}

}  // namespace trident::knn
