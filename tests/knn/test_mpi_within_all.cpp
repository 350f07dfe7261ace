// k: all (every reference within knn.max_distance) and k: count on 1-4 ranks, as a run drives it: ragged
// rows (/knn/offsets, /knn/indices, /knn/distances), nearest first with ties by index,
// equal to the test's own float64 answer; the same bits through the brute force, the index
// and auto, and after a stop and a restart; uniform, clustered and duplicated points, the
// poles and the dateline, rows of none to hundreds, a limit equal to a written distance;
// k: count's /knn/counts the rows' lengths, through both methods, stopped and resumed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "brute_force.hpp"
#include "clusters.hpp"
#include "core/comm.hpp"
#include "deck/deck.hpp"
#include "support/study_decks.hpp"
#include "knn/detail/points.hpp"
#include "run_deck.hpp"
#include "search_cases.hpp"
#include "support/test_support.hpp"
#include "deck_points.hpp"
#include "within_reference.hpp"

namespace trident::knn {
namespace {

using test::same_bits;

using test::points;

// The ragged rows against the test's answer: every row's indices identical and distances
// within 1e-12 relative, except rows with a reference within 1e-12 of the limit, where the
// written distances must still be within it. Returns the total entries.
std::int64_t expect_rows(const std::vector<test::Point>& obs, const std::vector<test::Point>& refs, double limit,
                         double radius, const test::Output& r) {
  EXPECT_EQ(r.offsets.size(), obs.size() + 1);
  if (r.offsets.size() != obs.size() + 1) return 0;
  EXPECT_EQ(r.offsets.front(), 0);
  EXPECT_EQ(static_cast<std::size_t>(r.offsets.back()), r.indices.size());
  int shown = 0;
  std::vector<double> d;
  for (std::size_t o = 0; o < obs.size(); ++o) {
    bool near = false;
    const std::vector<std::int64_t> want = test::within(obs[o], refs, limit, radius, d, near);
    const std::int64_t from = r.offsets[o], to = r.offsets[o + 1];
    for (std::int64_t e = from; e < to; ++e) EXPECT_LE(r.distances[static_cast<std::size_t>(e)], limit);
    if (near) continue;
    bool ok = static_cast<std::size_t>(to - from) == want.size();
    for (std::size_t j = 0; ok && j < want.size(); ++j) {
      const auto e = static_cast<std::size_t>(from) + j;
      ok = r.indices[e] == want[j] && std::fabs(r.distances[e] - d[j]) <= 1e-12 * d[j];
    }
    if (!ok && shown++ < 5) ADD_FAILURE() << "observation " << o << ": expected " << want.size() << " neighbours, got " << to - from;
  }
  return r.offsets.back();
}

test::Output check(const std::string& name, const std::string& knn) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, name);
  const test::Output brute = test::run_deck("  method: brute\n" + knn, folder + "/brute.h5");
  const test::Output index = test::run_deck("  method: index\n" + knn, folder + "/index.h5");
  const test::Output automatic = test::run_deck(knn, folder + "/auto.h5");
  EXPECT_EQ(brute.method, "brute");
  EXPECT_EQ(index.method, "index");
  for (const test::Output* other : {&index, &automatic}) {
    EXPECT_EQ(other->offsets, brute.offsets);
    EXPECT_EQ(other->indices, brute.indices);
    EXPECT_TRUE(same_bits(other->distances, brute.distances));
  }
  const trident::test::StudyDeck d = trident::test::read_deck_text("knn:\n" + knn, "deck.yaml", ".");
  expect_rows(points(d.knn->observations), points(d.knn->references), d.knn->max_distance, d.knn->radius, brute);
  for (const char* method : {"brute", "index"}) {
    const test::Output resumed =
        test::stopped_and_resumed(std::string("  method: ") + method + "\n" + knn, folder + "/resumed_" + method + ".h5");
    EXPECT_EQ(resumed.offsets, brute.offsets) << method;
    EXPECT_EQ(resumed.indices, brute.indices) << method;
    EXPECT_TRUE(same_bits(resumed.distances, brute.distances)) << method;
  }
  // k: count: the lengths of the same rows
  std::vector<std::int64_t> lengths;
  for (std::size_t o = 0; o + 1 < brute.offsets.size(); ++o) lengths.push_back(brute.offsets[o + 1] - brute.offsets[o]);
  const std::string counted = "  k: count\n" + knn.substr(knn.find('\n') + 1);  // the deck's first line is k: all
  for (const char* method : {"brute", "index"}) {
    const std::string deck = std::string("  method: ") + method + "\n" + counted;
    const test::Output counts = test::run_deck(deck, folder + "/count_" + method + ".h5");
    EXPECT_EQ(counts.counts, lengths) << method;
    EXPECT_TRUE(counts.indices.empty()) << method;
    EXPECT_EQ(test::stopped_and_resumed(deck, folder + "/count_resumed_" + method + ".h5").counts, lengths) << method;
  }
  return brute;
}

using test::csv_points;

TEST(MpiKnnWithinAll, UniformRowsOfEveryLength) {
  const test::Output r = check("knn_all_uniform",
                               "  k: all\n"
                               "  max_distance: 700e3\n"
                               "  observations: {generate: {count: 130, seed: 5}}\n"
                               "  references: {generate: {count: 700, seed: 6}}\n"
                               "  batch_size: 9\n");
  std::int64_t empty = 0, longest = 0;
  for (std::size_t o = 0; o + 1 < r.offsets.size(); ++o) {
    empty += r.offsets[o + 1] == r.offsets[o] ? 1 : 0;
    longest = std::max(longest, r.offsets[o + 1] - r.offsets[o]);
  }
  EXPECT_GT(empty, 0);
  EXPECT_GE(longest, 5);
}

TEST(MpiKnnWithinAll, ClustersDuplicatesPolesAndTheDateline) {
  // a 100 m cluster across the dateline (rows of hundreds), duplicates (ties by index), the poles
  std::vector<test::Point> refs, obs;
  test::poles_and_dateline(refs, obs);
  for (test::Point& p : obs) p.lon = p.lon > 180.0 ? p.lon - 360.0 : p.lon;
  refs = test::joined(test::joined(refs, refs), test::cluster(300, -0.5, 179.9995, 100.0, 31));
  obs = test::joined(obs, test::cluster(20, -0.5, 179.9995, 100.0, 32));
  check("knn_all_nasty", "  k: all\n  max_distance: 50e3\n  batch_size: 7\n" + csv_points("knn_all_nasty_points", obs, refs));
}

TEST(MpiKnnWithinAll, LimitEqualToAWrittenDistanceKeepsIt) {
  const std::string points = "  observations: {generate: {count: 30, seed: 11}}\n"
                             "  references: {generate: {count: 300, seed: 12}}\n"
                             "  batch_size: 4\n";
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "knn_all_equal");
  const test::Output nearest = test::run_deck("  k: 3\n" + points, folder + "/nearest.h5");
  const double limit = nearest.distances[5 * 3 + 2];  // observation 5's third neighbour
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", limit);
  const test::Output r = check("knn_all_equal_run", std::string("  k: all\n  max_distance: ") + text + "\n" + points);
  ASSERT_EQ(r.offsets.size(), 31u);
  ASSERT_EQ(r.offsets[6] - r.offsets[5], 3);
  EXPECT_EQ(r.indices[static_cast<std::size_t>(r.offsets[5]) + 2], nearest.indices[5 * 3 + 2]);
  EXPECT_EQ(r.distances[static_cast<std::size_t>(r.offsets[5]) + 2], limit);
}

TEST(MpiKnnWithinAll, ZeroDistanceFindsDuplicatesOrNothing) {
  // at distance 0 only the references at the very same position (or none at all: empty
  // datasets, every offset 0)
  std::vector<test::Point> refs = test::random_points(60, 71), obs = test::random_points(25, 72);
  obs.push_back(refs[7]);
  obs.push_back(refs[30]);
  refs.push_back(refs[7]);
  const test::Output r = check("knn_all_zero", "  k: all\n  max_distance: 0\n  batch_size: 6\n" +
                                                   csv_points("knn_all_zero_points", obs, refs));
  ASSERT_EQ(r.offsets.size(), 28u);
  EXPECT_EQ(r.offsets[25], 0);
  EXPECT_EQ(std::vector<NeighbourIndex>(r.indices.begin(), r.indices.end()), (std::vector<NeighbourIndex>{7, 60, 30}));
  const test::Output none = check("knn_all_none", "  k: all\n  max_distance: 0\n  batch_size: 6\n" +
                                                     csv_points("knn_all_none_points", test::random_points(40, 73),
                                                                test::random_points(40, 74)));
  EXPECT_EQ(none.offsets, std::vector<std::int64_t>(41, 0));
  EXPECT_TRUE(none.indices.empty());
}

}  // namespace
}  // namespace trident::knn
