// knn.max_distance with k: N on 1-4 ranks, as a run drives it: the N nearest within the
// distance, padded with -1 and NaN, equal to the test's own float64 answer; the same bits
// through the brute force (in tiles), the index and auto, and after a stop and a restart;
// uniform points from HDF5, the poles, the dateline and duplicates from CSV, a limit equal
// to a written distance, and a tie across the limit.
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
#include "io/output_file.hpp"
#include "knn/detail/points.hpp"
#include "run_deck.hpp"
#include "search_cases.hpp"
#include "support/test_support.hpp"
#include "deck_points.hpp"
#include "within_reference.hpp"

namespace trident::knn {
namespace {

constexpr double kEarth = 6371008.8;

std::string exact(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

using test::same_bits;

using test::points;

// The deck `knn` (without method) through the brute force in tiles, the index and auto:
// the same bits, the test's answer, and the same bits again stopped after a round and
// resumed (the deck must search in several rounds). Returns the brute force's output.
test::Output check(const std::string& name, const std::string& knn) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, name);
  const test::Output brute = test::run_deck("  method: brute\n  tile_size: 37\n" + knn, folder + "/brute.h5");
  const test::Output index = test::run_deck("  method: index\n" + knn, folder + "/index.h5");
  const test::Output automatic = test::run_deck(knn, folder + "/auto.h5");
  EXPECT_EQ(brute.method, "brute");
  EXPECT_EQ(index.method, "index");
  EXPECT_EQ(index.indices, brute.indices);
  EXPECT_TRUE(same_bits(index.distances, brute.distances));
  EXPECT_EQ(automatic.indices, brute.indices);
  EXPECT_TRUE(same_bits(automatic.distances, brute.distances));
  const trident::test::StudyDeck d = trident::test::read_deck_text("knn:\n" + knn, "deck.yaml", ".");
  test::expect_within(points(d.knn->observations), points(d.knn->references), static_cast<int>(d.knn->k),
                      d.knn->max_distance, d.knn->radius, brute.indices, brute.distances);
  for (const char* method : {"brute", "index"}) {
    const test::Output resumed =
        test::stopped_and_resumed(std::string("  method: ") + method + "\n" + knn, folder + "/resumed_" + method + ".h5");
    EXPECT_EQ(resumed.indices, brute.indices) << method;
    EXPECT_TRUE(same_bits(resumed.distances, brute.distances)) << method;
  }
  return brute;
}

using test::csv_points;

TEST(MpiKnnWithin, UniformFromHdf5SomeRowsShort) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "knn_within_h5");
  {
    io::OutputFile out(MPI_COMM_WORLD, folder + "/refs.h5", true);
    std::vector<double> values;
    for (const auto& p : test::random_points(400, 4)) values.insert(values.end(), {p.lat, p.lon});
    out.write_array("/points", values, {400, 2});
    out.commit();
  }
  // about 2.8 references within 1500 km on average: rows of every length from 0 to k
  const test::Output r = check("knn_within_uniform",
                               "  k: 5\n"
                               "  max_distance: 1500e3\n"
                               "  observations: {generate: {count: 150, seed: 3}}\n"
                               "  references: {hdf5: {file: " + folder + "/refs.h5, dataset: /points}}\n"
                               "  batch_size: 7\n");
  int empty = 0, full = 0;
  for (std::size_t o = 0; o < 150; ++o) {
    empty += r.indices[o * 5] < 0 ? 1 : 0;
    full += r.indices[o * 5 + 4] >= 0 ? 1 : 0;
  }
  EXPECT_GT(empty, 0);
  EXPECT_GT(full, 0);
}

TEST(MpiKnnWithin, PolesDatelineAndDuplicatesFromCsv) {
  std::vector<test::Point> refs, obs;
  test::poles_and_dateline(refs, obs);
  for (test::Point& p : obs) p.lon = p.lon > 180.0 ? p.lon - 360.0 : p.lon;
  refs = test::joined(refs, refs);  // every reference twice: ties by index
  check("knn_within_poles", "  k: 6\n  max_distance: 300e3\n  batch_size: 5\n" +
                                csv_points("knn_within_poles_points", obs, refs));
}

TEST(MpiKnnWithin, LimitEqualToAWrittenDistanceKeepsIt) {
  const std::string points = "  observations: {generate: {count: 40, seed: 11}}\n"
                             "  references: {generate: {count: 300, seed: 12}}\n"
                             "  batch_size: 6\n";
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "knn_within_equal");
  const test::Output all = test::run_deck("  k: 3\n" + points, folder + "/all.h5");
  const double limit = all.distances[7 * 3 + 1];  // observation 7's second neighbour
  const test::Output r = check("knn_within_equal_run", "  k: 3\n  max_distance: " + exact(limit) + "\n" + points);
  EXPECT_EQ(r.indices[7 * 3 + 1], all.indices[7 * 3 + 1]);
  EXPECT_EQ(r.distances[7 * 3 + 1], limit);
  EXPECT_EQ(r.indices[7 * 3 + 2], -1);
}

TEST(MpiKnnWithin, ATieAcrossTheLimitGivesWayToTheReferenceWithin) {
  // reference 0 lies 5e-13 relative beyond reference 1: a tie, so the k nearest put 0
  // first; at a limit equal to 1's distance only 1 lies within, and it is the answer
  std::vector<test::Point> refs = {{0.0, 10.0}, {0.0, 10.0 * (1 - 5e-13)}}, obs = {{0.0, 0.0}, {0.5, 0.0}};
  for (const test::Point& p : test::random_points(30, 21)) refs.push_back({-30.0 - std::fabs(p.lat) / 3, p.lon});
  const std::string points = csv_points("knn_within_tie_points", obs, refs);
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "knn_within_tie");
  const test::Output all = test::run_deck("  k: 2\n" + points, folder + "/all.h5");
  ASSERT_EQ(all.indices[0], 0);
  ASSERT_EQ(all.indices[1], 1);
  ASSERT_GT(all.distances[0], all.distances[1]);  // the float64 distances differ: 0 lies beyond
  const std::string deck = "  k: 1\n  max_distance: " + exact(all.distances[1]) + "\n" + points;
  for (const char* method : {"brute", "index"}) {
    const test::Output r = test::run_deck(std::string("  method: ") + method + "\n" + deck, folder + "/" + method + ".h5");
    EXPECT_EQ(r.indices[0], 1) << method;
    EXPECT_EQ(r.distances[0], all.distances[1]) << method;
  }
}

}  // namespace
}  // namespace trident::knn
