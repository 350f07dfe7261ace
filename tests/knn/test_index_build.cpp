// The index's parts: the device radix sort against std::stable_sort, the Hilbert curve's
// adjacency, and a built index's invariants (a permutation in key order, every ball holding
// every reference under it, the memory bound).
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "clusters.hpp"
#include "knn/detail/index/cube_key.hpp"
#include "knn/detail/index/radix_sort.hpp"
#include "knn/detail/index/sphere_index.hpp"
#include "search_cases.hpp"

namespace trident::knn {
namespace {

using test::vectors;

// Sorts the keys on the device and checks them and their values against a stable sort.
void check_sort(const std::vector<std::uint64_t>& keys) {
  const int n = static_cast<int>(keys.size());
  index::Keys d_keys("keys", n);
  index::Values d_values("values", n);
  auto h_keys = Kokkos::create_mirror_view(d_keys);
  auto h_values = Kokkos::create_mirror_view(d_values);
  for (int i = 0; i < n; ++i) h_keys(i) = keys[i], h_values(i) = i;
  Kokkos::deep_copy(d_keys, h_keys);
  Kokkos::deep_copy(d_values, h_values);
  index::sort_by_key(d_keys, d_values);
  ASSERT_EQ(static_cast<int>(d_keys.extent(0)), n);
  Kokkos::deep_copy(h_keys, d_keys);
  Kokkos::deep_copy(h_values, d_values);
  std::vector<std::pair<std::uint64_t, int>> want;
  for (int i = 0; i < n; ++i) want.emplace_back(keys[i], i);
  std::stable_sort(want.begin(), want.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += h_keys(i) != want[i].first || h_values(i) != want[i].second;
  EXPECT_EQ(wrong, 0);
}

TEST(KnnIndexBuild, RadixSortIsAStableSort) {
  std::mt19937_64 rng(7);
  std::vector<std::uint64_t> random(5000), few(3000), shared(4100);
  for (auto& k : random) k = rng();
  for (auto& k : few) k = rng() % 5 << 40 | rng() % 3;  // many equal keys: stability shows
  for (auto& k : shared) k = 0xabcd000000000000ULL | (rng() & 0xff00ff);  // passes skipped
  for (const auto& keys : {random, few, shared, std::vector<std::uint64_t>(2000, 42), std::vector<std::uint64_t>{9},
                           std::vector<std::uint64_t>{}}) {
    check_sort(keys);
  }
}

TEST(KnnIndexBuild, HilbertCurveStepsToNeighbouringCells) {
  // over a 64 x 64 face every position is taken once, and consecutive positions are cells
  // that share a side: a run of the curve is one compact patch
  constexpr int bits = 6, side = 1 << bits;
  std::vector<std::pair<int, int>> cell(side * side, {-1, -1});
  for (int x = 0; x < side; ++x) {
    for (int y = 0; y < side; ++y) {
      const std::uint64_t d = index::hilbert_position(x, y, bits);
      ASSERT_LT(d, static_cast<std::uint64_t>(side * side));
      EXPECT_EQ(cell[d].first, -1);
      cell[d] = {x, y};
    }
  }
  for (int d = 1; d < side * side; ++d) {
    EXPECT_EQ(std::abs(cell[d].first - cell[d - 1].first) + std::abs(cell[d].second - cell[d - 1].second), 1);
  }
}

TEST(KnnIndexBuild, CubeKeysNameTheFaces) {
  const Vec4<double> axes[] = {{1, 0, 0, 0}, {-1, 0, 0, 0}, {0, 1, 0, 0}, {0, -1, 0, 0}, {0, 0, 1, 0}, {0, 0, -1, 0}};
  for (int f = 0; f < 6; ++f) EXPECT_EQ(index::cube_key(axes[f]) >> (2 * index::kFaceBits), static_cast<std::uint64_t>(f));
}

// Every ball holds every reference under it, the sorted references are the input in key
// order, and the index takes at most the references' own bytes again (38 bytes a reference).
void check_index(const std::vector<Vec4<double>>& refs) {
  const SphereIndex index = build_sphere_index(refs);
  const SphereIndexView& ix = index.view;
  const int n = static_cast<int>(refs.size());
  ASSERT_EQ(ix.references, n);
  // (a ball a level more: a handful of references have a whole path of nodes)
  EXPECT_LE(index.bytes(), (2 * refs.size() + ix.levels) * sizeof(Vec4<double>));
  const auto sorted = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ix.sorted);
  const auto reference = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ix.reference);
  const auto nodes = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ix.nodes);
  std::vector<int> seen(n, 0);
  for (int i = 0; i < n; ++i) {
    ASSERT_GE(reference(i), 0);
    ASSERT_LT(reference(i), n);
    ++seen[reference(i)];
    const Vec4<double>& q = refs[reference(i)];
    EXPECT_TRUE(sorted(i).x == q.x && sorted(i).y == q.y && sorted(i).z == q.z);
    if (i > 0) EXPECT_LE(index::cube_key(refs[reference(i - 1)]), index::cube_key(q));
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), n);
  // each leaf's key is its first reference's, and a key's leaf (leaf_of, on the device) is
  // the last that starts at or before it on the curve
  const auto leaf_keys = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ix.leaf_keys);
  ASSERT_EQ(static_cast<int>(leaf_keys.extent(0)), ix.level_count[0]);
  for (int l = 0; l < ix.level_count[0]; ++l) EXPECT_EQ(leaf_keys(l), index::cube_key(sorted(l * kLeafSize)));
  index::Keys probes("probes", 3 * n + 2);
  auto h_probes = Kokkos::create_mirror_view(probes);
  for (int i = 0; i < n; ++i) {
    const std::uint64_t key = index::cube_key(sorted(i));
    h_probes(3 * i) = key, h_probes(3 * i + 1) = key - 1, h_probes(3 * i + 2) = key + 1;
  }
  h_probes(3 * n) = 0, h_probes(3 * n + 1) = ~std::uint64_t(0);
  Kokkos::deep_copy(probes, h_probes);
  index::Values leaf("leaf", probes.extent(0));
  Kokkos::parallel_for(
      "leaf_of", Kokkos::RangePolicy<ExecSpace>(0, static_cast<int>(probes.extent(0))),
      KOKKOS_LAMBDA(int i) { leaf(i) = ix.leaf_of(probes(i)); });
  const auto h_leaf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), leaf);
  int misplaced = 0;
  for (std::size_t i = 0; i < probes.extent(0); ++i) {
    const int l = h_leaf(i);
    const std::uint64_t key = h_probes(i);
    misplaced += l < 0 || l >= ix.level_count[0] || (l > 0 && leaf_keys(l) > key) ||
                 (l + 1 < ix.level_count[0] && leaf_keys(l + 1) <= key);
  }
  EXPECT_EQ(misplaced, 0);
  EXPECT_EQ(ix.level_count[ix.levels - 1], 1);
  std::int64_t span = kLeafSize;
  int outside = 0;
  for (int level = 0; level < ix.levels; ++level, span *= kFanout) {
    EXPECT_EQ(ix.level_count[level], static_cast<int>((n + span - 1) / span));
    for (int i = 0; i < ix.level_count[level]; ++i) {
      const Vec4<double> ball = nodes(ix.level_start[level] + i);
      for (std::int64_t j = i * span; j < std::min<std::int64_t>(n, (i + 1) * span); ++j) {
        const Vec4<double> q = sorted(j);
        const long double dx = (long double)q.x - ball.x, dy = (long double)q.y - ball.y, dz = (long double)q.z - ball.z;
        outside += std::sqrt(dx * dx + dy * dy + dz * dz) > ball.w;
      }
    }
  }
  EXPECT_EQ(outside, 0);
}

TEST(KnnIndexBuild, BallsHoldTheirReferences) {
  check_index(vectors(test::random_points(20000, 201)));
  check_index(vectors(test::joined(test::cluster(3000, 48.85, 2.35, 100.0, 202), test::random_points(500, 203))));
  check_index(vectors(test::cluster(2000, 90.0, 0.0, 0.01, 204)));  // 1 cm at the pole: radii near 0
  check_index(vectors(test::cluster(100, -20.0, 180.0, 0.0, 206)));  // one point, 100 times
  check_index(vectors(test::random_points(1, 205)));
}

}  // namespace
}  // namespace trident::knn
