// Dense clusters (1 m to 10 km, at a pole, across the dateline, mixed with scattered
// points) against the brute force, float32 bitwise equal to float64, and float32 screening
// around each slice's centre resolving a 100 m cluster without searching again; searches
// in rounds that order the rows left by place once a round searched many again.
#include <gtest/gtest.h>

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <type_traits>

#include "clusters.hpp"
#include "knn/detail/rounds.hpp"
#include "search_cases.hpp"

namespace trident::knn {
namespace {

using test::kFloat32;
using test::kFloat64;
using test::Point;
using test::kEarth;
using test::vectors;

// Every run equals the brute force and the others bitwise; returns the first run's widened count.
std::int64_t check(const std::vector<Point>& obs, const std::vector<Point>& refs, int k) {
  return test::check_cases(obs, refs, k, kEarth,
                           {{kFloat32},
                            {kFloat64},
                            {kFloat32, false, 16, 70},
                            {kFloat64, false, 9, 250},
                            {kFloat32, false, 0, 0, 0, 0, true},
                            {kFloat32, true, 13, 90, 0, 0, true}},
                           true);
}

void check_cluster(double lat, double lon, double side_m, std::uint64_t seed) {
  const auto obs = test::cluster(48, lat, lon, side_m, seed);
  const auto refs = test::cluster(400, lat, lon, side_m, seed + 1);
  for (int k : {1, 16}) EXPECT_EQ(check(obs, refs, k), 0) << "k " << k;  // resolved in one pass
  check(obs, refs, static_cast<int>(refs.size()));
}

TEST(KnnClustered, OneMetre) { check_cluster(45.0, 7.0, 1.0, 31); }
TEST(KnnClustered, HundredMetres) { check_cluster(-33.9, 151.2, 100.0, 33); }
TEST(KnnClustered, TenKilometres) { check_cluster(51.5, -0.1, 1e4, 35); }
TEST(KnnClustered, AtThePole) { check_cluster(90.0, 0.0, 100.0, 37); }
TEST(KnnClustered, AcrossTheDateline) { check_cluster(-17.0, 180.0, 1000.0, 39); }

TEST(KnnClustered, MixedDensities) {
  // observations alternate between a 100 m cluster and the whole sphere, references half
  // in the cluster, half over the globe: slices mix both, and the clustered observations
  // that the slice's centre cannot resolve are settled by one float64 pass
  const auto near_obs = test::cluster(30, 60.0, 25.0, 100.0, 41), far_obs = test::random_points(30, 42);
  std::vector<Point> obs;
  for (std::size_t i = 0; i < near_obs.size(); ++i) obs.insert(obs.end(), {near_obs[i], far_obs[i]});
  const auto refs = test::joined(test::cluster(300, 60.0, 25.0, 100.0, 43), test::random_points(300, 44));
  for (int k : {1, 16, 600}) check(obs, refs, k);
}

TEST(KnnClustered, HundredMetreClusterIsNotSearchedAgain) {
  // 2^16 x 2^10 points in a 100 m square: the float32 screen around the batch's centre
  // resolves them (before, every observation was searched again)
  const auto obs = test::cluster(1 << 16, 48.85, 2.35, 100.0, 51);
  const auto refs = test::cluster(1 << 10, 48.85, 2.35, 100.0, 52);
  SearchOptions options;
  options.k = 1;
  options.radius = kEarth;
  SearchProfile stats;
  const Neighbours got = nearest(vectors(obs), vectors(refs), options, &stats);
  EXPECT_LE(stats.widened, (1 << 16) / 100);
  // spot-check rows against the brute force
  std::vector<Point> some;
  std::vector<std::int64_t> idx;
  std::vector<double> dist;
  for (std::size_t i = 0; i < obs.size(); i += 4099) {
    some.push_back(obs[i]);
    idx.push_back(got.indices[i]);
    dist.push_back(got.distances[i]);
  }
  test::expect_same(test::brute_force(some, refs, 1, kEarth), idx, dist, 1, kEarth);
}

// `count` random points more than 120 degrees from (lat, lon): their neighbours among
// references spread over the globe lie far from a cluster at (lat, lon).
std::vector<Point> far_from(double lat, double lon, std::size_t count, std::uint64_t seed) {
  double c[3], v[3];
  test::unit(Point{lat, lon}, c);
  std::vector<Point> out;
  for (const Point& p : test::random_points(8 * count, seed)) {
    test::unit(p, v);
    if (c[0] * v[0] + c[1] * v[1] + c[2] * v[2] < -0.5 && out.size() < count) out.push_back(p);
  }
  return out;
}

TEST(KnnClustered, TeamCentresResolveAPlaceInASliceThatHoldsTheGlobeToo) {
  // one slice: 384 observations in a 100 m square, then 384 over the far side of the
  // globe; references half in the square, half over the globe. The slice's centre lies
  // between the square and the far side, where the float32 screen cannot resolve 100 m
  // (screened around it, as the CPU build does without the test hook, 373, 380 and 340 of
  // the 768 are searched again at k = 1, 16 and 40); each team's centre (its middle
  // observation) lies in the square or far from it, so the square's observations are
  // resolved in one pass (none searched again on the CPU build)
  const double lat = 35.68, lon = 139.69;
  const auto obs = test::joined(test::cluster(384, lat, lon, 100.0, 71), far_from(lat, lon, 384, 72));
  const auto refs = test::joined(test::cluster(256, lat, lon, 100.0, 73), test::random_points(256, 74));
  ASSERT_EQ(obs.size(), 768u);
  for (int k : {1, 16, 40}) {
    const std::int64_t widened =
        test::check_cases(obs, refs, k, kEarth, {{kFloat32, false, 0, 0, 0, 0, true}, {kFloat64}}, true);
    EXPECT_LE(widened, static_cast<std::int64_t>(obs.size()) / 100) << "k " << k;
  }
}

TEST(KnnClustered, RoundsOrderRowsByPlaceAfterARoundSearchedManyAgain) {
  // observations alternating between 1 km squares in Paris and Sydney, references in both:
  // a batch of both has its centre between them, where the float32 screen cannot resolve
  // neighbours within a square; after the first round (searched again for the most part)
  // the rows left go by place, each batch in one square
  const auto paris = test::cluster(6144, 48.85, 2.35, 1000.0, 61), sydney = test::cluster(6144, -33.87, 151.21, 1000.0, 62);
  std::vector<Point> obs;
  for (std::size_t i = 0; i < paris.size(); ++i) obs.insert(obs.end(), {paris[i], sydney[i]});
  const auto refs = test::joined(test::cluster(2048, 48.85, 2.35, 1000.0, 63), test::cluster(2048, -33.87, 151.21, 1000.0, 64));
  const auto o = vectors(obs), r = vectors(refs);
  SearchOptions options;
  options.k = 4;
  options.radius = kEarth;
  options.batch_size = 1024;
  SearchProfile plain_stats;
  const Neighbours plain = nearest(o, r, options, &plain_stats);  // batches of 1024 in the given order
  ChunkRows rows = test::rows_to_search(obs.size(), 4);
  SearchProfile stats;
  ASSERT_EQ(search_in_rounds(o.data(), r, options, rows, MPI_COMM_SELF, stats), 0);
  EXPECT_GT(plain_stats.widened, static_cast<std::int64_t>(obs.size()) / 4);
  EXPECT_EQ(stats.reordered_rows, static_cast<std::int64_t>(obs.size()) - 1024);
  EXPECT_LT(stats.widened, plain_stats.widened / 4) << plain_stats.widened;
  // the same rows, bitwise, whatever the order; and right
  EXPECT_EQ(rows.neighbours.indices, plain.indices);
  EXPECT_EQ(rows.neighbours.distances, plain.distances);
  EXPECT_EQ(std::count(rows.done.begin(), rows.done.end(), 1), static_cast<std::ptrdiff_t>(obs.size()));
  std::vector<Point> some;
  std::vector<std::int64_t> idx;
  std::vector<double> dist;
  for (std::size_t i = 0; i < obs.size(); i += 97) {
    some.push_back(obs[i]);
    idx.insert(idx.end(), &plain.indices[i * 4], &plain.indices[i * 4] + 4);
    dist.insert(dist.end(), &plain.distances[i * 4], &plain.distances[i * 4] + 4);
  }
  test::expect_same(test::brute_force(some, refs, 4, kEarth), idx, dist, 4, kEarth);
}

TEST(KnnClustered, RoundsWithoutABatchSizeProbeFirstAndOrderTheRestByPlace) {
  // the same two cities, more rows than the back end's probe: the rounds a run makes when
  // the deck sets no batch size (on GPUs the rest then goes in one round, which must still
  // come in the order of their places)
  constexpr bool on_device = !std::is_same<Kokkos::DefaultExecutionSpace, Kokkos::DefaultHostExecutionSpace>::value;
  const std::int64_t probe = probe_round_size(0, on_device, 2048);
  const std::size_t pairs = static_cast<std::size_t>(probe) + 500;
  const auto paris = test::cluster(pairs, 48.85, 2.35, 1000.0, 65), sydney = test::cluster(pairs, -33.87, 151.21, 1000.0, 66);
  std::vector<Point> obs;
  for (std::size_t i = 0; i < pairs; ++i) obs.insert(obs.end(), {paris[i], sydney[i]});
  const auto refs = test::joined(test::cluster(1024, 48.85, 2.35, 1000.0, 67), test::cluster(1024, -33.87, 151.21, 1000.0, 68));
  const auto o = vectors(obs), r = vectors(refs);
  SearchOptions options;
  options.k = 2;
  options.radius = kEarth;
  ChunkRows rows = test::rows_to_search(obs.size(), 2);
  SearchProfile stats;
  ASSERT_EQ(search_in_rounds(o.data(), r, options, rows, MPI_COMM_SELF, stats), 0);
  EXPECT_EQ(stats.reordered_rows, static_cast<std::int64_t>(obs.size()) - probe);
  EXPECT_EQ(std::count(rows.done.begin(), rows.done.end(), 1), static_cast<std::ptrdiff_t>(obs.size()));
  std::vector<Point> some;
  std::vector<std::int64_t> idx;
  std::vector<double> dist;
  for (std::size_t i = 0; i < obs.size(); i += 331) {
    some.push_back(obs[i]);
    idx.insert(idx.end(), &rows.neighbours.indices[i * 2], &rows.neighbours.indices[i * 2] + 2);
    dist.insert(dist.end(), &rows.neighbours.distances[i * 2], &rows.neighbours.distances[i * 2] + 2);
  }
  test::expect_same(test::brute_force(some, refs, 2, kEarth), idx, dist, 2, kEarth);
}

}  // namespace
}  // namespace trident::knn
