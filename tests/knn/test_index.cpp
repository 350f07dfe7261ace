// The index search (knn/index/) against the test's long-double brute force and, bit for
// bit, against the brute-force search (nearest, whole and in small batches and tiles), in
// both screening precisions and in small batches: uniform, clustered, duplicates, all
// references in one cell, an empty hemisphere, poles and the dateline, k up to the
// reference count.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "clusters.hpp"
#include "knn/detail/index/index_search.hpp"
#include "search_cases.hpp"

namespace trident::knn {
namespace {

using test::kFloat32;
using test::kFloat64;
using test::Point;
using test::kEarth;
using test::vectors;

using Lists = IndexOptions::Lists;
struct IndexCase {
  core::Precision precision = kFloat32;
  std::int64_t batch = 0;
  int slices = 0;        // SearchOptions::slices: the slice pipeline, forced on the host
  int start_leaves = 0;  // IndexOptions::start_leaves (0: the default)
  Lists lists = Lists::registers;
};
const std::vector<IndexCase> kCases = {
    {kFloat32, 0, 0, 0, Lists::registers}, {kFloat32, 7, 3, 0, Lists::registers},
    {kFloat64, 0, 0, 0, Lists::registers}, {kFloat64, 7, 0, 1, Lists::arrays},
    {kFloat32, 0, 2, 1, Lists::arrays},    {kFloat32, 0, 0, 9, Lists::automatic}};

// Every case equals the brute force and nearest() bit for bit; returns the rows searched
// again by the first (float32, whole batches).
std::int64_t check(const std::vector<Point>& obs, const std::vector<Point>& refs, int k, double radius = kEarth) {
  const test::Answer want = test::brute_force(obs, refs, k, radius);
  const auto o = vectors(obs), r = vectors(refs);
  const auto brute_options = [&](std::int64_t batch, std::int64_t tile) {
    SearchOptions options;
    options.k = k;
    options.radius = radius;
    options.batch_size = batch;
    options.tile_size = tile;
    return options;
  };
  const Neighbours brute = nearest(o, r, brute_options(0, 0));
  // the brute force's references in tiles (the index has none): still the same rows
  const Neighbours tiled = nearest(o, r, brute_options(13, std::max<std::int64_t>(k, 37)));
  EXPECT_EQ(tiled.indices, brute.indices);
  EXPECT_EQ(tiled.distances, brute.distances);
  std::int64_t widened = -1;
  for (const IndexCase& c : kCases) {
    SCOPED_TRACE("k " + std::to_string(k) + ", " + core::precision_name(c.precision) + ", batch " +
                 std::to_string(c.batch) + ", slices " + std::to_string(c.slices) + ", start leaves " +
                 std::to_string(c.start_leaves) + ", lists " + std::to_string(static_cast<int>(c.lists)));
    SearchOptions options;
    options.k = k;
    options.radius = radius;
    options.precision = c.precision;
    options.batch_size = c.batch;
    options.slices = c.slices;
    IndexOptions index_options;
    index_options.start_leaves = c.start_leaves;
    index_options.lists = c.lists;
    SearchProfile stats;
    IndexStats index_stats;
    const Neighbours got = index_nearest(o, r, options, &stats, &index_stats, index_options);
    test::expect_same(want, got.indices, got.distances, k, radius);
    EXPECT_EQ(got.indices, brute.indices);
    EXPECT_EQ(got.distances, brute.distances);
    EXPECT_GE(stats.index_rows, static_cast<std::int64_t>(obs.size()));
    // (automatic: registers on devices, the list arrays on host back ends)
    const bool device = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, Kokkos::DefaultExecutionSpace::memory_space>::accessible;
    const bool registers = c.lists == Lists::registers || (c.lists == Lists::automatic && device);
    EXPECT_EQ(index_stats.register_lists, registers && k + std::max(1, k / 4) <= (c.precision == kFloat64 ? 64 : 80));
    if (c.slices > 1 && obs.size() > 7) EXPECT_GT(stats.pipelined_slices, 0);
    if (widened < 0) widened = stats.widened;
  }
  return widened;
}

TEST(KnnIndex, UniformPointsManyK) {
  const auto obs = test::random_points(120, 101), refs = test::random_points(1500, 102);
  for (int k : {1, 2, 5, 16, 33, 60, 100}) check(obs, refs, k);
}

TEST(KnnIndex, UniformVisitsFewLeaves) {
  // the point of the index: far fewer references screened than the brute force's
  const auto obs = vectors(test::random_points(500, 103)), refs = vectors(test::random_points(20000, 104));
  SearchOptions options;
  options.k = 8;
  SearchProfile stats;
  index_nearest(obs, refs, options, &stats);
  EXPECT_EQ(stats.index_rows, 500);
  EXPECT_LT(stats.index_leaves * kLeafSize, 500 * 20000 / 20);
}

TEST(KnnIndex, Clustered) {
  const auto refs = test::joined(test::joined(test::cluster(700, 48.85, 2.35, 1000.0, 105),
                                              test::cluster(700, -33.87, 151.2, 100.0, 106)),
                                 test::random_points(300, 107));
  const auto obs = test::joined(test::joined(test::cluster(40, 48.85, 2.35, 1000.0, 108),
                                             test::cluster(40, -33.87, 151.2, 100.0, 109)),
                                test::random_points(30, 110));
  for (int k : {1, 16, 40}) check(obs, refs, k);
}

TEST(KnnIndex, ClustersAtThePoleAndAcrossTheDateline) {
  const auto refs = test::joined(test::cluster(800, 90.0, 0.0, 100.0, 111), test::cluster(800, -17.0, 180.0, 1000.0, 112));
  const auto obs = test::joined(test::cluster(40, 90.0, 0.0, 100.0, 113), test::cluster(40, -17.0, 180.0, 1000.0, 114));
  for (int k : {1, 16}) check(obs, refs, k);
}

TEST(KnnIndex, DuplicateReferencesTieToLowerIndex) {
  auto refs = test::random_points(60, 115);
  const std::size_t n = refs.size();
  for (std::size_t i = 0; i < n; ++i) refs.push_back(refs[(i * 7) % n]);  // each twice, shuffled
  for (std::size_t i = 0; i < n; i += 3) refs.push_back(refs[i]);         // some three times
  std::vector<Point> obs(refs.begin(), refs.begin() + 30);                // distance exactly 0
  const auto more = test::random_points(30, 116);
  obs.insert(obs.end(), more.begin(), more.end());
  for (int k : {1, 2, 3, 5, 20}) check(obs, refs, k);
}

TEST(KnnIndex, AllReferencesInOneCell) {
  // 300 copies of one point and 300 points in a 5 mm square: every leaf's ball is the same
  // spot, every reference ties or nearly, so lists widen until they hold them all
  std::vector<Point> refs(300, Point{12.5, -70.25});
  const auto square = test::cluster(300, 12.5, -70.25, 0.005, 117);
  refs.insert(refs.end(), square.begin(), square.end());
  const std::vector<Point> obs = test::joined(test::cluster(10, 12.5, -70.25, 0.01, 118), test::random_points(10, 119));
  EXPECT_GT(check(obs, refs, 1), 0);
  for (int k : {7, 100, 600}) check(obs, refs, k);
}

TEST(KnnIndex, EmptyHemisphere) {
  // references in the north only, observations in the south and at the south pole: the
  // nearest cells are far, and every one of them has to be weighed
  std::vector<Point> refs;
  for (const Point& p : test::random_points(1000, 120)) refs.push_back({std::fabs(p.lat), p.lon});
  std::vector<Point> obs{{-90.0, 0.0}, {-90.0, 77.0}, {-0.0001, 10.0}};
  for (const Point& p : test::random_points(40, 121)) obs.push_back({-std::fabs(p.lat), p.lon});
  for (int k : {1, 16, 70}) check(obs, refs, k);
}

TEST(KnnIndex, PolesAndTheDateline) {
  std::vector<Point> refs, obs;
  test::poles_and_dateline(refs, obs);
  for (int k : {1, 4, 10, 24, 50}) check(obs, refs, k);
}

TEST(KnnIndex, KEqualsReferenceCount) {
  const auto obs = test::random_points(40, 122), refs = test::random_points(57, 123);
  check(obs, refs, 57);
  check(obs, test::random_points(1, 124), 1);  // a single reference
}

TEST(KnnIndex, KBeyondTheNearestCells) {
  // 10 references around the observations, the rest over the globe: k = 50 and 300 reach
  // far past the leaves that hold the near ones
  const auto refs = test::joined(test::cluster(10, -5.0, 30.0, 50.0, 125), test::random_points(700, 126));
  const auto obs = test::cluster(20, -5.0, 30.0, 50.0, 127);
  for (int k : {50, 300}) check(obs, refs, k);
  const auto many = test::random_points(3000, 128);
  check(test::random_points(12, 129), many, 1024);
}

TEST(KnnIndex, ChainsOfNearTiesFormOneGroup) {
  std::vector<Point> refs;
  for (int i = 0; i < 6; ++i) refs.push_back({80.0 + i * 10.0 * 0.7e-12, 30.0});
  for (auto p : test::random_points(40, 130)) refs.push_back({-std::fabs(p.lat), p.lon});
  const std::vector<Point> obs{{90.0, 0.0}, {90.0, 123.0}};
  for (int k : {1, 3, 6, 8}) check(obs, refs, k);
}

TEST(KnnIndex, ALastBatchCutIntoMoreSlicesThanAWholeOne) {
  // 13 rows in batches of 7 in 3 slices: the last batch's 6 rows go in 4 slices (a whole
  // batch's 7 in 3), each counting its leaves in a slot of the batch's arrays (an
  // AddressSanitizer build reads past them when they are sized for a whole batch)
  const auto refs = test::random_points(200, 132), obs = test::random_points(13, 133);
  for (int k : {1, 4}) check(obs, refs, k);
}

TEST(KnnIndex, AntipodesAndUnitRadius) {
  const auto refs = test::random_points(90, 131);
  std::vector<Point> obs;
  for (const auto& r : refs) obs.push_back({-r.lat, r.lon > 0 ? r.lon - 180.0 : r.lon + 180.0});
  for (int k : {1, 5, 90}) check(obs, refs, k, 1.0);
}

}  // namespace
}  // namespace trident::knn
