// k beyond the register lists (the any-k select screen) against the brute force: k = 17
// to 1024 and all references, with ties (duplicated references, observations on them),
// both precisions, forced small batches, tiles and pipeline chunks.
#include <gtest/gtest.h>

#include "brute_force.hpp"
#include "knn/search.hpp"

namespace trident::knn {
namespace {

using test::Point;
constexpr double kEarth = 6371008.8;

std::vector<Vec4<double>> vectors(const std::vector<Point>& points) {
  std::vector<double> lat_lon;
  for (const auto& p : points) lat_lon.insert(lat_lon.end(), {p.lat, p.lon});
  return unit_vectors(lat_lon);
}

struct Case {
  std::string precision;
  bool select_only;
  std::int64_t batch, tile;
  int chunks;
};

const Case kCases[] = {{"float32", false, 0, 0, 0},   {"float64", false, 0, 0, 0},
                       {"float32", true, 0, 0, 0},    {"float32", false, 7, 97, 0},
                       {"float64", false, 5, 300, 0}, {"float32", false, 0, 0, 3}};

// Every case equals the brute force, and all of them are bitwise equal to each other.
void check(const std::vector<Point>& obs, const std::vector<Point>& refs, int k) {
  const test::Answer want = test::brute_force(obs, refs, k, kEarth);
  const auto o = vectors(obs), r = vectors(refs);
  Neighbours first;
  for (const Case& c : kCases) {
    SCOPED_TRACE("k " + std::to_string(k) + ", " + c.precision + (c.select_only ? ", select only" : "") +
                 ", batch " + std::to_string(c.batch) + ", tile " + std::to_string(c.tile) + ", chunks " +
                 std::to_string(c.chunks));
    SearchOptions options;
    options.k = k;
    options.radius = kEarth;
    options.precision = c.precision;
    options.select_only = c.select_only;
    options.batch_size = c.batch;
    options.tile_size = c.tile;
    options.chunks = c.chunks;
    const Neighbours got = nearest(o, r, options);
    test::expect_same(want, got.indices, got.distances, k, kEarth);
    if (first.indices.empty()) {
      first = got;
    } else {
      EXPECT_EQ(first.indices, got.indices);
      EXPECT_EQ(first.distances, got.distances);
    }
  }
}

// References with ties: 700 random points, then 300 of them again (shuffled) and 200 a
// third time; half the observations sit exactly on references.
struct TiedSet {
  std::vector<Point> obs, refs;
  TiedSet() {
    refs = test::random_points(700, 21);
    for (std::size_t i = 0; i < 300; ++i) refs.push_back(refs[(i * 13) % 700]);
    for (std::size_t i = 0; i < 200; ++i) refs.push_back(refs[(i * 7) % 700]);
    for (std::size_t i = 0; i < 12; ++i) obs.push_back(refs[i * 37]);
    const auto more = test::random_points(12, 22);
    obs.insert(obs.end(), more.begin(), more.end());
  }
};

TEST(KnnLargeK, JustAboveTheRegisterLists) {
  const TiedSet s;
  for (int k : {17, 26, 33}) check(s.obs, s.refs, k);
}

TEST(KnnLargeK, NeighbourGraphSizes) {
  const TiedSet s;
  for (int k : {64, 257}) check(s.obs, s.refs, k);
}

TEST(KnnLargeK, ThousandAndAllReferences) {
  const TiedSet s;
  check(s.obs, s.refs, 1024);
  check(s.obs, s.refs, static_cast<int>(s.refs.size()));
}

TEST(KnnLargeK, SmallKThroughTheSelectScreen) {
  // the select screen for every k (float64 lists of 8 and more use it on GPUs)
  const auto obs = test::random_points(60, 23), refs = test::random_points(500, 24);
  for (int k : {1, 2, 5, 16}) check(obs, refs, k);
}

}  // namespace
}  // namespace trident::knn
