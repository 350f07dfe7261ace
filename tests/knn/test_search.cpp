// The search against the test's brute force on random and nasty point sets, for both
// screening precisions, both list kinds (registers, heap), and forced small batches/tiles.
#include <gtest/gtest.h>

#include <cmath>

#include "core/device_buffers.hpp"

#include "search_cases.hpp"

namespace trident::knn {
namespace {

using core::Precision;
using test::kFloat32;
using test::kFloat64;
using test::Point;
using test::kEarth;
using test::vectors;

const std::vector<test::SearchCase> kCases = {
    {kFloat32, false, 0, 0, 0},    {kFloat32, true, 0, 0, 0},    {kFloat64, false, 0, 0, 0},
    {kFloat32, false, 7, 13, 0},   {kFloat32, true, 5, 11, 0},   {kFloat64, true, 9, 17, 0},
    {kFloat32, false, 0, 0, 5},    {kFloat32, false, 6, 40, 3},  {kFloat64, false, 0, 0, 4},
    {kFloat32, false, 0, 0, 0, 3}, {kFloat32, true, 0, 0, 0, 4}, {kFloat32, false, 23, 0, 3, 2},
    {kFloat32, false, 7, 13, 0, 0, false, false, true}, {kFloat64, false, 0, 0, 0, 0, false, false, true}};

// Checks every case of kCases against the brute force; returns the widened count of the first.
std::int64_t check(const std::vector<Point>& obs, const std::vector<Point>& refs, int k,
                   double radius = kEarth) {
  return test::check_cases(obs, refs, k, radius, kCases, false);
}

TEST(KnnSearch, RandomPointsManyK) {
  const auto obs = test::random_points(150, 1), refs = test::random_points(400, 2);
  for (int k : {1, 2, 3, 7, 16, 25, 40, 130}) check(obs, refs, k);
}

TEST(KnnSearch, LargeK) {
  const auto obs = test::random_points(12, 15), refs = test::random_points(3000, 16);
  check(obs, refs, 1024);
}

TEST(KnnSearch, KEqualsReferenceCount) {
  const auto obs = test::random_points(40, 3), refs = test::random_points(57, 4);
  check(obs, refs, 57);
  check(obs, test::random_points(1, 5), 1);  // a single reference
}

TEST(KnnSearch, DuplicateReferencesTieToLowerIndex) {
  auto refs = test::random_points(60, 6);
  const std::size_t n = refs.size();
  for (std::size_t i = 0; i < n; ++i) refs.push_back(refs[(i * 7) % n]);  // each twice, shuffled
  for (std::size_t i = 0; i < n; i += 3) refs.push_back(refs[i]);         // some three times
  std::vector<Point> obs(refs.begin(), refs.begin() + 30);                // distance exactly 0
  const auto more = test::random_points(30, 7);
  obs.insert(obs.end(), more.begin(), more.end());
  for (int k : {1, 2, 3, 5, 20}) check(obs, refs, k);
}

TEST(KnnSearch, PolesAndTheAntimeridian) {
  std::vector<Point> refs, obs;
  test::poles_and_dateline(refs, obs);
  for (int k : {1, 4, 10, 24, 50}) check(obs, refs, k);
}

TEST(KnnSearch, AntipodalPairs) {
  const auto refs = test::random_points(90, 8);
  std::vector<Point> obs;
  for (const auto& r : refs) obs.push_back({-r.lat, r.lon > 0 ? r.lon - 180.0 : r.lon + 180.0});
  // nearest-first lists that run all the way to the antipode
  for (int k : {1, 5, 90}) check(obs, refs, k);
}

TEST(KnnSearch, ClustersAMetreApart) {
  // 3 clusters of 40 references about a metre apart (1 m ~ 9e-6 degrees), observations
  // inside them: far below the float32 screening resolution, so lists must widen.
  std::vector<Point> refs, obs;
  const Point centres[] = {{45.0, 7.0}, {-33.9, 151.2}, {0.0, 179.99999}};
  for (const auto& c : centres) {
    for (int i = 0; i < 40; ++i) {
      refs.push_back({c.lat + 9e-6 * (i % 7), c.lon + 9e-6 * (i / 7) * (c.lon > 179 ? -1 : 1)});
    }
    for (int i = 0; i < 10; ++i) obs.push_back({c.lat + 4.5e-6 * i, c.lon - 3e-6 * i});
  }
  const auto far = test::random_points(100, 9);
  refs.insert(refs.end(), far.begin(), far.end());
  EXPECT_GT(check(obs, refs, 3), 0);  // the float32 pass cannot separate a metre
  for (int k : {1, 16, 45}) check(obs, refs, k);
}

TEST(KnnSearch, ChainsOfNearTiesFormOneGroup) {
  // References 10 degrees from the north pole, each 0.7e-12 relative nearer than the one
  // before: neighbours tie pairwise (1e-12) but not end to end. The tie rule groups the
  // whole run, ordered by index; a pairwise rule would depend on the sort.
  std::vector<Point> refs;
  for (int i = 0; i < 6; ++i) refs.push_back({80.0 + i * 10.0 * 0.7e-12, 30.0});
  for (auto p : test::random_points(40, 14)) refs.push_back({-std::fabs(p.lat), p.lon});  // south
  const std::vector<Point> obs{{90.0, 0.0}, {90.0, 123.0}};
  const test::Answer want = test::brute_force(obs, refs, 3, kEarth);
  EXPECT_EQ(want.indices[0], 0);  // the farthest of the run: lowest index of the group
  EXPECT_EQ(want.indices[2], 2);
  for (int k : {1, 3, 6, 8}) check(obs, refs, k);
}

TEST(KnnSearch, UnitSphereRadius) {
  const auto obs = test::random_points(50, 10), refs = test::random_points(80, 11);
  check(obs, refs, 4, 1.0);
}

TEST(KnnSearch, RandomDataRarelyWidens) {
  const auto obs = test::random_points(200, 12), refs = test::random_points(1500, 13);
  SearchOptions options;
  options.k = 1;
  SearchProfile stats;
  const auto got = nearest(vectors(obs), vectors(refs), options, &stats);
  EXPECT_LT(stats.widened, 4);  // the margin of one entry almost always proves the answer
  EXPECT_EQ(stats.list_length, 2);
  test::expect_same(test::brute_force(obs, refs, 1, 1.0), got.indices, got.distances, 1, 1.0);
}

// Searches sharing device buffers keep the references uploaded by the first, and upload
// again what a search in tiles left there: whole, whole (no upload), tiled (each tile),
// whole (once more), each against the brute force.
TEST(KnnSearch, SearchesSharingDeviceBuffersScreenTheirOwnReferences) {
  const auto obs = test::random_points(150, 21), refs = test::random_points(1200, 22);
  const test::Answer want = test::brute_force(obs, refs, 5, kEarth);
  for (const Precision precision : {kFloat32, kFloat64}) {
    SCOPED_TRACE(core::precision_name(precision));
    SearchOptions options;
    options.k = 5;
    options.radius = kEarth;
    options.precision = precision;
    options.device_buffers = std::make_shared<core::DeviceBuffers>();
    const std::vector<Vec4<double>> observations = vectors(obs), references = vectors(refs);
    // the tiled search uploads each of its 3 tiles for the screen, and tiles 1 and 0 again
    // for the settling (tile 2 stays from the screen)
    for (const auto& [tile, uploads] : std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 1}, {0, 0}, {500, 5}, {0, 1}}) {
      SCOPED_TRACE(tile);
      options.tile_size = tile;
      SearchProfile stats;
      const Neighbours got = nearest(observations, references, options, &stats);
      EXPECT_EQ(stats.tiles, tile == 0 ? 1 : 3);
      EXPECT_EQ(stats.reference_uploads, uploads);
      test::expect_same(want, got.indices, got.distances, 5, kEarth);
    }
  }
}

// SearchOptions::slices (TRIDENT_KNN_SLICES) cuts each batch into that many slices for
// benchmarks (the pipelined path, on every back end): the same rows bit for bit.
TEST(KnnSearch, ForcedSliceCount) {
  const auto obs = vectors(test::random_points(500, 31)), refs = vectors(test::random_points(700, 32));
  SearchOptions options;
  options.k = 6;
  const Neighbours plain = nearest(obs, refs, options);
  for (const int count : {1, 3, 64}) {
    SCOPED_TRACE(count);
    options.slices = count;
    SearchProfile stats;
    const Neighbours got = nearest(obs, refs, options, &stats);
    EXPECT_EQ(stats.pipelined_slices > 0, count != 1);
    EXPECT_EQ(got.indices, plain.indices);
    EXPECT_EQ(got.distances, plain.distances);
  }
}

// SearchOptions::forced_lists (TRIDENT_KNN_LISTS) picks the screen for benchmarks: every
// kind gives the same answer.
TEST(KnnSearch, ForcedListKind) {
  const auto obs = test::random_points(30, 17), refs = test::random_points(300, 18);
  SearchOptions options;
  options.k = 40;
  const test::Answer want = test::brute_force(obs, refs, options.k, 1.0);
  for (const char* kind : {"auto", "registers", "buffers", "select"}) {
    SCOPED_TRACE(kind);
    options.forced_lists = list_kind_named(kind);
    const auto got = nearest(vectors(obs), vectors(refs), options);
    test::expect_same(want, got.indices, got.distances, options.k, 1.0);
  }
}

// The study's options from the TRIDENT_KNN_* overrides: each knob to its option.
TEST(KnnSearch, OptionsFromTheOverrides) {
  SearchOptions options;
  options.k = 7;
  core::Overrides overrides;
  const SearchOptions automatic = with_overrides(options, overrides);
  EXPECT_EQ(automatic.k, 7);
  EXPECT_FALSE(automatic.forced_lists.has_value());
  EXPECT_EQ(automatic.slices, 0);
  EXPECT_EQ(automatic.list_bound, core::Switch::automatic);
  overrides.knn_lists = "buffers";
  overrides.knn_slices = 8;
  overrides.knn_list_bound = core::Switch::off;
  const SearchOptions set = with_overrides(options, overrides);
  EXPECT_EQ(set.forced_lists, ListKind::buffers);
  EXPECT_EQ(set.slices, 8);
  EXPECT_EQ(set.list_bound, core::Switch::off);
  EXPECT_EQ(list_kind_named("registers"), ListKind::registers);
  EXPECT_EQ(list_kind_named("select"), ListKind::select);
}

}  // namespace
}  // namespace trident::knn
