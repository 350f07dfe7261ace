// The lists' starting bound (list_bound.hpp) against the screened arithmetic itself: for
// every observation at least kc references screen strictly below the starting value, with
// the screening centre anywhere in the unit ball (on the observation, at the origin, at
// its antipode: the error bound's worst case); for random points, 1 m clusters (where the
// inflation is most of the bound) and duplicated references. And the searches give the
// same rows bit for bit with and without it.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>

#include "clusters.hpp"
#include "knn/list_bound.hpp"
#include "search_cases.hpp"

namespace trident::knn {
namespace {

using test::Point;

// Observations whose bound fails at some centre: fewer than kc references with S < start
// (an infinite start, for fewer references than kc, holds them all).
template <class T>
int violations(const std::vector<Point>& obs, const std::vector<Point>& refs, int kc) {
  const auto o = test::vectors(obs), r = test::vectors(refs);
  const ListBound bound = ListBound::of(r);
  Kokkos::View<Vec4<double>*, DeviceMemory> d_obs("obs", o.size()), d_refs("refs", r.size());
  auto h_obs = Kokkos::create_mirror_view(d_obs);
  auto h_refs = Kokkos::create_mirror_view(d_refs);
  for (std::size_t i = 0; i < o.size(); ++i) h_obs(i) = o[i];
  for (std::size_t i = 0; i < r.size(); ++i) h_refs(i) = r[i];
  Kokkos::deep_copy(d_obs, h_obs);
  Kokkos::deep_copy(d_refs, h_refs);
  const int n_refs = static_cast<int>(r.size());
  int failed = 0;
  Kokkos::parallel_reduce(
      "test::list_bound", Kokkos::RangePolicy<ExecSpace>(0, static_cast<int>(o.size())),
      KOKKOS_LAMBDA(int i, int& bad) {
        const Vec4<double> p = d_obs(i);
        const T start = bound.template start_value<T>(p, kc);
        const Vec4<double> centres[3] = {p, Vec4<double>{0, 0, 0, 0}, Vec4<double>{-p.x, -p.y, -p.z, 0}};
        for (const Vec4<double>& c : centres) {
          const Vec4<T> a = relative_to<T>(p, c);
          int under = 0;
          for (int j = 0; j < n_refs; ++j) under += squared_chord(a, relative_to<T>(d_refs(j), c)) < start;
          bad += under < (kc < n_refs ? kc : n_refs);
        }
      },
      failed);
  return failed;
}

TEST(KnnListBound, AtLeastKcReferencesScreenUnderIt) {
  const auto random_obs = test::random_points(200, 31), random_refs = test::random_points(3000, 32);
  auto clustered_refs = test::cluster(2000, 48.85, 2.35, 1.0, 33);  // a 1 m square
  const auto clustered_obs = test::cluster(100, 48.85, 2.35, 1.0, 34);
  auto duplicated = test::random_points(50, 35);
  for (std::size_t i = 0; i < 200; ++i) duplicated.push_back(duplicated[i % 7]);
  for (int kc : {1, 2, 20, 80, 320}) {
    SCOPED_TRACE("kc " + std::to_string(kc));
    EXPECT_EQ(violations<float>(random_obs, random_refs, kc), 0);
    EXPECT_EQ(violations<double>(random_obs, random_refs, kc), 0);
    EXPECT_EQ(violations<float>(clustered_obs, clustered_refs, kc), 0);
    EXPECT_EQ(violations<double>(clustered_obs, clustered_refs, kc), 0);
    EXPECT_EQ(violations<float>(random_obs, duplicated, kc), 0);
  }
}

// The starting value of a list of kc entries for observation p, computed on the device.
float start_on_device(const ListBound& bound, const Vec4<double>& p, int kc) {
  Kokkos::View<float, DeviceMemory> start("start");
  Kokkos::parallel_for(
      "test::list_bound_start", Kokkos::RangePolicy<ExecSpace>(0, 1),
      KOKKOS_LAMBDA(int) { start() = bound.template start_value<float>(p, kc); });
  float value = 0;
  Kokkos::deep_copy(value, start);
  return value;
}

TEST(KnnListBound, WithoutAPlaceForEveryEntryTheListStartsEmpty) {
  const ListBound bound = ListBound::of(test::vectors(test::random_points(10, 36)));
  EXPECT_TRUE(std::isfinite(start_on_device(bound, Vec4<double>{1, 0, 0, 0}, 10)));
  EXPECT_TRUE(std::isinf(start_on_device(bound, Vec4<double>{1, 0, 0, 0}, 11)));
}

TEST(KnnListBound, SameRowsWithAndWithoutIt) {
  // clustered and random observations over clustered and random references: every screen,
  // batches and tiles, each bitwise equal to the first
  auto refs = test::random_points(900, 37);
  const auto city = test::cluster(600, -33.9, 151.2, 200.0, 38);
  refs.insert(refs.end(), city.begin(), city.end());
  auto obs = test::random_points(40, 39);
  const auto near = test::cluster(40, -33.9, 151.2, 200.0, 40);
  obs.insert(obs.end(), near.begin(), near.end());
  for (int k : {1, 16, 40, 64, 300}) {
    test::SearchCase none{"float32"};
    none.no_list_bound = true;
    test::SearchCase none64{"float64", false, 9, 250};
    none64.no_list_bound = true;
    test::SearchCase buffers{"float32"};
    buffers.buffers_only = true;
    test::check_cases(obs, refs, k, test::kEarth,
                      {none, {"float32"}, {"float32", true}, buffers, {"float32", false, 7, 130, 0, 0, false, true}},
                      true);
    test::check_cases(obs, refs, k, test::kEarth, {none64, {"float64", false, 9, 250}, {"float64"}}, true);
  }
}

}  // namespace
}  // namespace trident::knn
