// The lists' starting bound (list_bound.hpp) against the screened arithmetic itself: for
// every observation at least kc references screen strictly below the starting value, with
// the screening centre anywhere in the unit ball (on the observation, at the origin, at
// its antipode: the error bound's worst case); for random points, 1 m clusters (where the
// inflation is most of the bound), duplicated references and places that are only every
// m-th reference. On random points it is tight enough to help. And the searches give the
// same rows bit for bit with and without it, through every screen.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <memory>
#include <string>

#include "clusters.hpp"
#include "core/device_buffers.hpp"
#include "knn/detail/list_bound.hpp"
#include "knn/detail/rounds.hpp"
#include "knn/detail/search_test_hooks.hpp"
#include "search_cases.hpp"

namespace trident::knn {
namespace {

using core::Precision;
using test::kFloat32;
using test::kFloat64;
using test::Point;

// Per observation, the references that screen under its starting value at each of three
// centres (the fewest of the three), and the starting values.
template <class T>
struct Under {
  std::vector<int> fewest;
  std::vector<T> start;
};

template <class T>
Under<T> count_under(const ListBound& bound, const std::vector<Point>& obs, const std::vector<Point>& refs) {
  const auto o = test::vectors(obs), r = test::vectors(refs);
  Kokkos::View<Vec4<double>*, DeviceMemory> d_obs("obs", o.size()), d_refs("refs", r.size());
  auto h_obs = Kokkos::create_mirror_view(d_obs);
  auto h_refs = Kokkos::create_mirror_view(d_refs);
  for (std::size_t i = 0; i < o.size(); ++i) h_obs(i) = o[i];
  for (std::size_t i = 0; i < r.size(); ++i) h_refs(i) = r[i];
  Kokkos::deep_copy(d_obs, h_obs);
  Kokkos::deep_copy(d_refs, h_refs);
  Kokkos::View<int*, DeviceMemory> fewest("fewest", o.size());
  Kokkos::View<T*, DeviceMemory> start("start", o.size());
  const int n_refs = static_cast<int>(r.size());
  Kokkos::parallel_for(
      "test::list_bound", Kokkos::RangePolicy<ExecSpace>(0, static_cast<int>(o.size())), KOKKOS_LAMBDA(int i) {
        const Vec4<double> p = d_obs(i);
        const T t = bound.template start_value<T>(p);
        const Vec4<double> centres[3] = {p, Vec4<double>{0, 0, 0, 0}, Vec4<double>{-p.x, -p.y, -p.z, 0}};
        int least = n_refs;
        for (const Vec4<double>& c : centres) {
          const Vec4<T> a = relative_to<T>(p, c);
          int under = 0;
          for (int j = 0; j < n_refs; ++j) under += squared_chord(a, relative_to<T>(d_refs(j), c)) < t;
          least = under < least ? under : least;
        }
        fewest(i) = least;
        start(i) = t;
      });
  Under<T> out;
  out.fewest.resize(o.size());
  out.start.resize(o.size());
  Kokkos::View<int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> h_fewest(out.fewest.data(), o.size());
  Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> h_start(out.start.data(), o.size());
  Kokkos::deep_copy(h_fewest, fewest);
  Kokkos::deep_copy(h_start, start);
  return out;
}

// Observations for which fewer than kc references screen under the start at some centre.
template <class T>
int violations(const std::vector<Point>& obs, const std::vector<Point>& refs, int kc, std::int64_t most_places) {
  SearchOptions options;
  options.precision = std::is_same<T, float>::value ? kFloat32 : kFloat64;
  const ListBound bound = list_bound(test::vectors(refs), kc, most_places, options);
  EXPECT_GT(bound.places.extent(0), 0u);
  const Under<T> under = count_under<T>(bound, obs, refs);
  int bad = 0;
  for (int n : under.fewest) bad += n < kc;
  return bad;
}

TEST(KnnListBound, AtLeastKcReferencesScreenUnderIt) {
  auto random_obs = test::random_points(200, 31);
  const auto random_refs = test::random_points(3000, 32);
  // the poles and both sides of the dateline, where the Morton curve's cube has edges
  for (const Point& p : {Point{90.0, 0.0}, Point{-90.0, 0.0}, Point{0.0, 180.0}, Point{0.0, -180.0},
                         Point{45.0, 179.9999}, Point{45.0, -179.9999}, Point{-89.9999, 37.0}})
    random_obs.push_back(p);
  const auto clustered_refs = test::cluster(2000, 48.85, 2.35, 1.0, 33);  // a 1 m square
  const auto clustered_obs = test::cluster(100, 48.85, 2.35, 1.0, 34);
  auto duplicated = test::random_points(50, 35);
  for (std::size_t i = 0; i < 200; ++i) duplicated.push_back(duplicated[i % 7]);
  for (int kc : {1, 2, 20, 80, 240}) {
    for (std::int64_t places : {std::int64_t(1) << 20, std::int64_t(97)}) {
      SCOPED_TRACE("kc " + std::to_string(kc) + ", at most " + std::to_string(places) + " places");
      EXPECT_EQ(violations<float>(random_obs, random_refs, kc, places), 0);
      EXPECT_EQ(violations<double>(random_obs, random_refs, kc, places), 0);
      EXPECT_EQ(violations<float>(clustered_obs, clustered_refs, kc, places), 0);
      EXPECT_EQ(violations<double>(clustered_obs, clustered_refs, kc, places), 0);
      EXPECT_EQ(violations<float>(random_obs, duplicated, kc, places), 0);
    }
  }
}

TEST(KnnListBound, TightOnRandomPoints) {
  // every reference a place: the place next to an observation lies about a place's spacing
  // away, well inside the kc-th neighbour's chord, so only a few kc screen under the start
  const auto obs = test::random_points(300, 41), refs = test::random_points(4000, 42);
  SearchOptions options;
  for (int kc : {20, 80}) {
    const ListBound bound = list_bound(test::vectors(refs), kc, 1 << 20, options);
    ASSERT_EQ(bound.places.extent(0), refs.size());
    const Under<float> under = count_under<float>(bound, obs, refs);
    double mean = 0;
    for (int n : under.fewest) mean += static_cast<double>(n) / kc;
    mean /= static_cast<double>(obs.size());
    EXPECT_GE(mean, 1.0) << "kc " << kc;
    EXPECT_LE(mean, 2.0) << "kc " << kc;  // (1.52 at kc = 20, 1.25 at 80)
  }
}

TEST(KnnListBound, OffWithoutPlacesOrWithFewerReferencesThanEntries) {
  const auto refs = test::vectors(test::random_points(10, 36));
  SearchOptions options;
  const ListBound none = list_bound(refs, 11, 10, options), no_places = list_bound(refs, 4, 0, options);
  EXPECT_EQ(none.places.extent(0), 0u);
  EXPECT_EQ(no_places.places.extent(0), 0u);
  const Under<float> under = count_under<float>(none, test::random_points(3, 37), test::random_points(10, 36));
  for (float t : under.start) EXPECT_TRUE(std::isinf(t));
  EXPECT_EQ(list_bound(refs, 10, 10, options).places.extent(0), 10u);
}

TEST(KnnListBound, SameRowsWithAndWithoutIt) {
  // clustered and random observations over clustered and random references: every screen,
  // segments, batches and tiles, each bitwise equal to the first (no bound)
  // (interleaved, so that every tile and segment holds both)
  const auto globe = test::random_points(900, 37);
  const auto city = test::cluster(600, -33.9, 151.2, 200.0, 38);
  std::vector<Point> refs;
  for (std::size_t i = 0; i < globe.size(); ++i) {
    refs.push_back(globe[i]);
    if (i % 3 != 2) refs.push_back(city[i / 3 * 2 + i % 3]);
  }
  auto obs = test::random_points(40, 39);
  const auto near = test::cluster(40, -33.9, 151.2, 200.0, 40);
  obs.insert(obs.end(), near.begin(), near.end());
  // each configuration without the bound, then with it
  std::vector<test::SearchCase> configs32(4, test::SearchCase{kFloat32});
  configs32[1] = {kFloat32, false, 0, 700, 3};  // 3 segments, tiles of 700
  configs32[1].long_register_lists = true;
  configs32[1].centre_per_team = true;
  configs32[2] = {kFloat32, true, 30, 500};  // the any-k screen, batches of 30
  configs32[3].buffers_only = true;
  configs32.push_back(configs32[1]);  // the same with one segment
  configs32[4].segments = 1;
  // buffers over tiles of 250: a list may leave a tile with fewer than Kc references, the
  // rest of it the bound's entries, which the next tile starts from
  configs32.push_back({kFloat32, false, 30, 250});
  configs32[5].buffers_only = true;
  std::vector<test::SearchCase> configs64{{kFloat64, false, 9, 250}, {kFloat64, false, 9, 250, 2}, {kFloat64},
                                          {kFloat64, false, 9, 250}};
  configs64[1].long_register_lists = true;
  configs64[3].buffers_only = true;
  const auto with_and_without = [](const std::vector<test::SearchCase>& configs) {
    std::vector<test::SearchCase> cases;
    for (test::SearchCase c : configs) {
      c.list_bound = core::Switch::off;
      cases.push_back(c);
      c.list_bound = core::Switch::on;
      cases.push_back(c);
    }
    return cases;
  };
  for (int k : {1, 16, 40, 64, 300}) {
    for (const auto& configs : {configs32, configs64}) {
      // bitwise equal rows, and as many observations searched again with the bound as
      // without (a list that lost a reference to a bad start may still be caught by the
      // settle, and the wider search would then hide it)
      std::vector<std::int64_t> widened;
      test::check_cases(obs, refs, k, test::kEarth, with_and_without(configs), true, &widened);
      for (std::size_t i = 0; i + 1 < widened.size(); i += 2) EXPECT_EQ(widened[i + 1], widened[i]) << "case " << i / 2;
      // (segments start where the merge left them: as many searched again as with one)
      if (configs.size() == configs32.size()) EXPECT_EQ(widened[2], widened[8]);
    }
  }
}

// SearchOptions::list_bound (TRIDENT_KNN_LIST_BOUND) turns the bound on or off for
// benchmarks: the same answer either way (on: from every reference, whatever the size).
TEST(KnnListBound, ForcedOnOrOff) {
  const auto obs = test::random_points(30, 45), refs = test::random_points(300, 46);
  SearchOptions options;
  options.k = 20;
  const test::Answer want = test::brute_force(obs, refs, options.k, 1.0);
  for (const core::Switch use : {core::Switch::automatic, core::Switch::on, core::Switch::off}) {
    SCOPED_TRACE(test::switch_name(use));
    options.list_bound = use;
    SearchProfile stats;
    const auto got = nearest(test::vectors(obs), test::vectors(refs), options, &stats);
    test::expect_same(want, got.indices, got.distances, options.k, 1.0);
    EXPECT_EQ(stats.bound_places, use == core::Switch::on ? 300 : 0);  // (auto: too few observations)
  }
}

TEST(KnnListBound, ASearchInRoundsMakesItOnce) {
  // rounds of 100 observations: the first round makes the bound, the others reuse it; the
  // rows are those of one search without a bound, bit for bit
  const auto obs = test::vectors(test::random_points(700, 43)), refs = test::vectors(test::random_points(1200, 44));
  SearchOptions options;
  options.k = 24;
  options.radius = test::kEarth;
  options.batch_size = 100;
  options.list_bound = core::Switch::off;
  const Neighbours plain = nearest(obs, refs, options);
  options.list_bound = core::Switch::on;
  ChunkRows rows = test::rows_to_search(obs.size(), 24);
  SearchProfile stats;
  ASSERT_EQ(search_in_rounds(obs.data(), refs, options, rows, MPI_COMM_SELF, stats), 0);
  EXPECT_GE(stats.batches, 7);
  EXPECT_EQ(stats.bounds_made, 1);
  EXPECT_EQ(stats.bound_places, 1200);
  EXPECT_EQ(rows.neighbours.indices, plain.indices);
  EXPECT_EQ(rows.neighbours.distances, plain.distances);
}

TEST(KnnListBound, AReservedSearchInRoundsAllocatesNothingAndMakesNoBound) {
  // reserve_search before the rounds (as the study's warm-up does): the rounds reuse its
  // device arrays (the bytes held do not change) and its bound; the rows are those of one
  // search without a bound, bit for bit. Both precisions, lists long enough that some rows
  // are searched again (the widened pass's arrays are reserved too).
  const auto obs = test::vectors(test::random_points(700, 45)), refs = test::vectors(test::random_points(1200, 46));
  for (const Precision precision : {kFloat32, kFloat64}) {
    SCOPED_TRACE(core::precision_name(precision));
    SearchOptions options;
    options.k = 24;
    options.radius = test::kEarth;
    options.precision = precision;
    options.batch_size = 100;
    options.list_bound = core::Switch::off;
    const Neighbours plain = nearest(obs, refs, options);
    options.list_bound = core::Switch::on;
    options.device_buffers = std::make_shared<core::DeviceBuffers>();
    options.bound_cache = std::make_shared<ListBoundCache>();
    reserve_search(100, refs, options);
    const std::size_t held = options.device_buffers->held();
    EXPECT_GT(held, 0u);
    ChunkRows rows = test::rows_to_search(obs.size(), 24);
    SearchProfile stats;
    ASSERT_EQ(search_in_rounds(obs.data(), refs, options, rows, MPI_COMM_SELF, stats), 0);
    EXPECT_EQ(options.device_buffers->held(), held);
    EXPECT_EQ(stats.bounds_made, 0);
    EXPECT_EQ(stats.bound_places, 1200);
    EXPECT_EQ(rows.neighbours.indices, plain.indices);
    EXPECT_EQ(rows.neighbours.distances, plain.distances);
  }
}

}  // namespace
}  // namespace trident::knn
