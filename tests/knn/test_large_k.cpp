// Long register lists, the buffer screen and k beyond them (the any-k select screen)
// against the brute force:
// k = 17 to 1024 and all references, with ties (duplicated references, observations on
// them), both precisions, forced small batches, tiles and pipeline slices.
#include <gtest/gtest.h>

#include "search_cases.hpp"

namespace trident::knn {
namespace {

using test::kFloat32;
using test::kFloat64;
using test::Point;
using test::kEarth;

// Every case equals the brute force, and all of them are bitwise equal to each other.
void check(const std::vector<Point>& obs, const std::vector<Point>& refs, int k) {
  test::check_cases(obs, refs, k, kEarth,
                    {{kFloat32}, {kFloat64}, {kFloat32, true}, {kFloat32, false, 7, 97},
                     {kFloat64, false, 5, 300}, {kFloat32, false, 0, 0, 0, 3},
                     {kFloat32, true, 11, 130, 0, 0, true},
                     {kFloat32, false, 0, 0, 0, 0, false, false, true},
                     {kFloat64, false, 9, 230, 0, 0, true, false, true}},
                    true);
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

TEST(KnnLargeK, EveryLongRegisterList) {
  // lists of 40, 48, 64 and 80 (float32; float64 takes the any-k screen above 64) and the
  // longest k each one serves; host back ends use them only when asked
  const TiedSet s;
  for (int k : {32, 38, 51, 52, 64}) {
    test::check_cases(s.obs, s.refs, k, kEarth,
                      {{kFloat32},
                       {kFloat32, false, 0, 0, 0, 0, false, true},
                       {kFloat64, false, 0, 0, 0, 0, false, true},
                       {kFloat32, false, 7, 97, 0, 0, true, true},
                       {kFloat64, false, 5, 300, 0, 3, false, true}},
                      true);
  }
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
