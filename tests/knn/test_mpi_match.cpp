// knn.match on 1-4 ranks, as a run drives it: best (the nearest reference within
// knn.max_distance, or -1 and NaN) and mutual (also /knn/mutual: the observation is its
// match's own nearest observation within the distance, ties by the lower index), with
// /knn/counts and the matched, unmatched, ambiguous and mutual counts; equal to the test's
// own float64 answer (a plain loop over every pair, both ways); the same bits through the
// brute force, the index and auto, and after a stop and a restart. Duplicated observations
// and references far apart in index (ties across ranks), distances tied within the tolerance
// though not equal, a set against itself with its own radii.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "brute_force.hpp"
#include "clusters.hpp"
#include "core/comm.hpp"
#include "deck_points.hpp"
#include "io/input_file.hpp"
#include "knn/detail/point_ids.hpp"
#include "run_deck.hpp"
#include "search_cases.hpp"
#include "support/test_support.hpp"
#include "within_reference.hpp"

namespace trident::knn {
namespace {

using test::same_bits;

struct Match {
  std::vector<NeighbourIndex> index;
  std::vector<double> distance;
  std::vector<std::int64_t> counts;
  std::vector<std::uint8_t> mutual;
  std::int64_t matched = -1, unmatched = -1, ambiguous = -1, mutual_matches = -1;
};

Match read_match(const std::string& file) {
  const io::InputFile in(file, "knn output");
  Match m;
  m.index = in.read<NeighbourIndex>("/knn/indices");
  m.distance = in.read<double>("/knn/distances");
  m.counts = in.read<std::int64_t>("/knn/counts");
  if (in.has("/knn/mutual"))
    for (std::int32_t v : in.read<std::int32_t>("/knn/mutual")) m.mutual.push_back(static_cast<std::uint8_t>(v));
  m.matched = in.integer_attribute("/knn", "matched");
  m.unmatched = in.integer_attribute("/knn", "unmatched");
  m.ambiguous = in.integer_attribute("/knn", "ambiguous");
  if (in.has_attribute("/knn", "mutual_matches")) m.mutual_matches = in.integer_attribute("/knn", "mutual_matches");
  return m;
}

void expect_same(const Match& a, const Match& b, const std::string& what) {
  EXPECT_EQ(a.index, b.index) << what;
  EXPECT_TRUE(same_bits(a.distance, b.distance)) << what;
  EXPECT_EQ(a.counts, b.counts) << what;
  EXPECT_EQ(a.mutual, b.mutual) << what;
  EXPECT_EQ(a.matched, b.matched) << what;
  EXPECT_EQ(a.ambiguous, b.ambiguous) << what;
  EXPECT_EQ(a.mutual_matches, b.mutual_matches) << what;
}

// The test's answer: each observation's references within its limit (`self`: less itself);
// the first is its match; a reference's nearest observation is the least distance over every
// pair within, ties (1e-12 relative, chained) by the lower observation index.
void expect_answer(const std::vector<test::Point>& obs, const std::vector<test::Point>& refs,
                   const std::vector<double>& limits, bool self, bool mutual, const Match& m) {
  ASSERT_EQ(m.index.size(), obs.size());
  std::vector<std::vector<std::pair<double, std::int64_t>>> toward(refs.size());  // (distance, observation)
  std::vector<std::int64_t> best(obs.size(), -1);
  std::int64_t matched = 0, ambiguous = 0;
  std::vector<double> d;
  for (std::size_t o = 0; o < obs.size(); ++o) {
    bool near = false;
    std::vector<std::int64_t> want = test::within(obs[o], refs, limits[o], test::kEarth, d, near);
    // (at a limit of 0 only the point itself and duplicates lie within, at exactly 0)
    EXPECT_FALSE(near && limits[o] > 0) << "observation " << o << " lies at its limit: choose other points";
    for (std::size_t j = 0; j < want.size(); ++j) {
      if (self && want[j] == static_cast<std::int64_t>(o)) continue;
      if (best[o] < 0) best[o] = want[j];
      toward[static_cast<std::size_t>(want[j])].push_back({d[j], static_cast<std::int64_t>(o)});
    }
    const std::int64_t count = static_cast<std::int64_t>(want.size()) - (self && limits[o] >= 0 ? 1 : 0);
    EXPECT_EQ(m.counts[o], count) << "observation " << o;
    EXPECT_EQ(m.index[o], best[o]) << "observation " << o;
    if (best[o] >= 0) EXPECT_NEAR(m.distance[o], test::reference_distance(obs[o], refs[static_cast<std::size_t>(best[o])], test::kEarth), 1e-12 * m.distance[o]);
    else EXPECT_TRUE(std::isnan(m.distance[o]));
    matched += best[o] >= 0 ? 1 : 0;
    ambiguous += count > 1 ? 1 : 0;
  }
  EXPECT_EQ(m.matched, matched);
  EXPECT_EQ(m.unmatched, static_cast<std::int64_t>(obs.size()) - matched);
  EXPECT_EQ(m.ambiguous, ambiguous);
  if (!mutual) {
    EXPECT_TRUE(m.mutual.empty());
    return;
  }
  std::vector<std::int64_t> nearest(refs.size(), -1);
  for (std::size_t r = 0; r < refs.size(); ++r) {
    auto& c = toward[r];
    if (c.empty()) continue;
    std::sort(c.begin(), c.end());
    std::size_t end = 1;
    while (end < c.size() && test::tie(c[end - 1].first, c[end].first)) ++end;
    nearest[r] = std::min_element(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(end),
                                  [](const auto& a, const auto& b) { return a.second < b.second; })->second;
  }
  ASSERT_EQ(m.mutual.size(), obs.size());
  std::int64_t mutuals = 0;
  for (std::size_t o = 0; o < obs.size(); ++o) {
    const bool want = best[o] >= 0 && nearest[static_cast<std::size_t>(best[o])] == static_cast<std::int64_t>(o);
    EXPECT_EQ(m.mutual[o], want ? 1 : 0) << "observation " << o << " matched to " << best[o];
    mutuals += want ? 1 : 0;
  }
  EXPECT_EQ(m.mutual_matches, mutuals);
}

// `knn` (without method) through brute, index and auto, stopped and resumed: the same bits.
Match check(const std::string& name, const std::string& knn) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, name);
  test::run_deck("  method: brute\n" + knn, folder + "/brute.h5");
  const Match brute = read_match(folder + "/brute.h5");
  EXPECT_EQ(test::run_deck("  method: index\n" + knn, folder + "/index.h5").method, "index");
  expect_same(read_match(folder + "/index.h5"), brute, "index");
  test::run_deck(knn, folder + "/auto.h5");
  expect_same(read_match(folder + "/auto.h5"), brute, "auto");
  for (const char* method : {"brute", "index"}) {
    const std::string file = folder + "/resumed_" + method + ".h5";
    test::stopped_and_resumed(std::string("  method: ") + method + "\n" + knn, file);
    expect_same(read_match(file), brute, std::string("resumed ") + method);
  }
  return brute;
}

// Random sets, each with duplicates far apart in index (ties that cross ranks), and
// observations placed on references.
void two_sets(std::vector<test::Point>& obs, std::vector<test::Point>& refs) {
  obs = test::random_points(110, 81);
  refs = test::random_points(160, 82);
  for (int i = 0; i < 12; ++i) obs.push_back(obs[static_cast<std::size_t>(5 * i)]);   // the same position twice
  for (int i = 0; i < 12; ++i) refs.push_back(refs[static_cast<std::size_t>(7 * i)]);
  for (int i = 0; i < 8; ++i) obs.push_back(refs[static_cast<std::size_t>(100 + i)]);  // distance 0
}

TEST(MpiKnnMatch, BestAndMutualBetweenTwoSets) {
  std::vector<test::Point> obs, refs;
  two_sets(obs, refs);
  const std::string points = test::csv_points("knn_match_points", obs, refs);
  const std::vector<double> limits(obs.size(), 900e3);
  for (const char* form : {"best", "mutual"}) {
    const Match m = check(std::string("knn_match_") + form,
                          std::string("  match: ") + form + "\n  max_distance: 900e3\n  batch_size: 9\n" + points);
    expect_answer(obs, refs, limits, false, std::string(form) == "mutual", m);
    EXPECT_GT(m.matched, 0);
    EXPECT_GT(m.unmatched, 0);
    EXPECT_GT(m.ambiguous, 0);
    if (std::string(form) == "mutual") {
      EXPECT_GT(m.mutual_matches, 0);
      EXPECT_LT(m.mutual_matches, m.matched);
    }
  }
}

TEST(MpiKnnMatch, MutualInASetAgainstItselfWithItsOwnRadii) {
  std::vector<test::Point> set = test::random_points(90, 91);
  for (int i = 0; i < 10; ++i) set.push_back(set[static_cast<std::size_t>(9 * i)]);
  set = test::joined(set, test::cluster(30, 45.0, -179.9999, 2000.0, 92));
  std::vector<double> radii;
  for (std::size_t i = 0; i < set.size(); ++i) radii.push_back(i % 5 == 0 ? 0.0 : 300e3 + 10e3 * static_cast<double>(i % 37));
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "knn_match_self_points");
  if (mpi::rank(MPI_COMM_WORLD) == 0) {
    std::string text = "lat,lon,err\n";
    char row[96];
    for (std::size_t i = 0; i < set.size(); ++i) {
      std::snprintf(row, sizeof row, "%.17g,%.17g,%.17g\n", set[i].lat, set[i].lon, radii[i]);
      text += row;
    }
    trident::test::write_text(folder + "/set.csv", text);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const Match m = check("knn_match_self", "  match: mutual\n  max_distance: {column: err}\n  batch_size: 8\n"
                                          "  observations: {csv: {file: " + folder + "/set.csv, latitude: lat, longitude: lon}}\n"
                                          "  references: observations\n");
  expect_answer(set, set, radii, true, true, m);
  EXPECT_GT(m.mutual_matches, 0);
}

TEST(MpiKnnMatch, MutualTiesWithinTheToleranceGoToTheLowerIndex) {
  // Two observations whose distances to one reference differ by about 3e-13 relative: tied
  // (1e-12) though not equal, the farther one first in index and the nearer one last (on
  // another rank when there are several), so that the tie rule, not the rounding, gives the
  // first the mutual match.
  // The other observations lie far from that reference; the other references far from all.
  const std::vector<test::Point> refs = {{10.0, 20.0}, {-40.0, 150.0}, {60.0, -100.0}};
  std::vector<test::Point> obs = {{10.0, 20.0 + 4.5 * (1 + 3e-13)}};
  for (const test::Point& p : test::random_points(60, 97))
    if (test::reference_distance(p, refs[0], test::kEarth) > 2000e3) obs.push_back(p);
  obs.push_back({10.0, 24.5});
  const double first = test::reference_distance(obs.front(), refs[0], test::kEarth);
  const double last = test::reference_distance(obs.back(), refs[0], test::kEarth);
  ASSERT_GT(first, last);
  ASSERT_TRUE(test::tie(first, last));
  const std::string points = test::csv_points("knn_match_near_tie_points", obs, refs);
  const std::vector<double> limits(obs.size(), 900e3);
  const Match m = check("knn_match_near_tie", "  match: mutual\n  max_distance: 900e3\n  batch_size: 6\n" + points);
  expect_answer(obs, refs, limits, false, true, m);
  ASSERT_EQ(m.mutual.size(), obs.size());
  EXPECT_EQ(m.index.front(), 0);
  EXPECT_EQ(m.index.back(), 0);
  EXPECT_EQ(m.mutual.front(), 1);
  EXPECT_EQ(m.mutual.back(), 0);
}

TEST(MpiKnnMatch, NamesTheMatchesAsKOneDoes) {
  // integer ids from a CSV column: /knn/reference_ids the id of each match (the fill for
  // none), /knn/observation_ids each observation's, stopped and resumed alike
  std::vector<test::Point> obs = test::random_points(60, 95), refs = test::random_points(80, 96);
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "knn_match_ids");
  const auto id = [](std::size_t i, std::int64_t base) { return base + 7 * static_cast<std::int64_t>(i); };
  if (mpi::rank(MPI_COMM_WORLD) == 0) {
    for (const auto& [name, set, base] : {std::tuple{"obs", &obs, 5000}, std::tuple{"refs", &refs, 1000}}) {
      std::string text = "id,lat,lon\n";
      char row[96];
      for (std::size_t i = 0; i < set->size(); ++i) {
        std::snprintf(row, sizeof row, "%lld,%.17g,%.17g\n", static_cast<long long>(id(i, base)), (*set)[i].lat, (*set)[i].lon);
        text += row;
      }
      trident::test::write_text(folder + "/" + name + ".csv", text);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string deck = "  match: best\n  max_distance: 1500e3\n  batch_size: 7\n"
                           "  observations: {csv: {file: " + folder + "/obs.csv, latitude: lat, longitude: lon, id: id}}\n"
                           "  references: {csv: {file: " + folder + "/refs.csv, latitude: lat, longitude: lon, id: id}}\n";
  test::run_deck(deck, folder + "/run.h5");
  test::stopped_and_resumed(deck, folder + "/resumed.h5");
  for (const char* file : {"/run.h5", "/resumed.h5"}) {
    const io::InputFile in(folder + file, "knn output");
    const auto index = in.read<NeighbourIndex>("/knn/indices");
    const auto reference_ids = in.read<std::int64_t>("/knn/reference_ids");
    const auto observation_ids = in.read<std::int64_t>("/knn/observation_ids");
    ASSERT_EQ(reference_ids.size(), obs.size());
    int none = 0;
    for (std::size_t o = 0; o < obs.size(); ++o) {
      EXPECT_EQ(observation_ids[o], id(o, 5000));
      none += index[o] < 0 ? 1 : 0;
      EXPECT_EQ(reference_ids[o], index[o] < 0 ? kIntegerIdFill : id(static_cast<std::size_t>(index[o]), 1000)) << file << " " << o;
    }
    EXPECT_GT(none, 0);
    EXPECT_LT(none, 60);
  }
}

}  // namespace
}  // namespace trident::knn
