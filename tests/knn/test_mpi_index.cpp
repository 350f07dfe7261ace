// The study through the spatial index (knn.method: index) on 1-4 ranks: /knn the same bit
// for bit as a brute-force run's (its references in tiles) and as one rank's brute-force
// search in one batch, and the exact answer of the long-double brute force; in rounds of a
// few rows (batch_size), on uniform and clustered points, with duplicates, all references
// in one spot, an empty hemisphere, the poles and the dateline, fewer observations than
// ranks, in both precisions, with k through the register lists and the list arrays up to
// every reference.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "brute_force.hpp"
#include "clusters.hpp"
#include "core/comm.hpp"
#include "core/run_context.hpp"
#include "deck/deck.hpp"
#include "support/study_decks.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "knn/detail/points.hpp"
#include "knn/detail/search.hpp"
#include "knn/detail/study.hpp"
#include "run_deck.hpp"
#include "search_cases.hpp"
#include "support/test_support.hpp"

namespace trident::knn {
namespace {

using test::Output;
using test::run_deck;

std::vector<test::Point> points(const knn::PointSource& source) {
  const auto ll = read_points(source, 0, count_points(source));
  std::vector<test::Point> p;
  for (std::size_t i = 0; i < ll.size(); i += 2) p.push_back({ll[i], ll[i + 1]});
  return p;
}

// The index's run against the brute force's (with `brute_lines` added: tiles), one rank's
// search in one batch, and the long-double answer.
void check(const std::string& name, const std::string& knn, const std::string& brute_lines = "  tile_size: 37\n") {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, name);
  const Output index = run_deck("  method: index\n" + knn, folder + "/index.h5");
  const Output brute = run_deck("  method: brute\n" + knn + brute_lines, folder + "/brute.h5");
  EXPECT_EQ(index.method, "index");
  EXPECT_EQ(brute.method, "brute");
  EXPECT_GT(index.build_seconds, 0.0);
  EXPECT_EQ(brute.build_seconds, 0.0);
  EXPECT_EQ(index.indices, brute.indices);
  EXPECT_EQ(index.distances, brute.distances);
  const trident::test::StudyDeck d = trident::test::read_deck_text("knn:\n" + knn, "deck.yaml", ".");
  const knn::KnnSettings& s = *d.knn;
  const auto obs = points(s.observations), refs = points(s.references);
  SearchOptions whole;
  whole.k = static_cast<int>(s.k);
  whole.radius = s.radius;
  whole.precision = s.precision;
  const Neighbours one = nearest(test::vectors(obs), test::vectors(refs), whole);
  EXPECT_EQ(std::vector<NeighbourIndex>(one.indices.begin(), one.indices.end()), index.indices);
  EXPECT_EQ(std::vector<double>(one.distances.begin(), one.distances.end()), index.distances);
  test::expect_same(test::brute_force(obs, refs, whole.k, s.radius), index.indices, index.distances, whole.k,
                    s.radius);
}

// Writes the points as CSV files (rank 0) and returns the lines of a knn: section that
// read them.
std::string csv_points(const std::string& name, const std::vector<test::Point>& obs,
                       const std::vector<test::Point>& refs) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, name);
  if (mpi::rank(MPI_COMM_WORLD) == 0) {
    trident::test::write_text(folder + "/obs.csv", test::csv_text(obs));
    trident::test::write_text(folder + "/refs.csv", test::csv_text(refs));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return "  observations: {csv: {file: " + folder + "/obs.csv, latitude: lat, longitude: lon}}\n"
         "  references: {csv: {file: " + folder + "/refs.csv, latitude: lat, longitude: lon}}\n";
}

TEST(MpiKnnIndex, UniformInRoundsOfAFewRows) {
  check("knn_mpi_index_uniform",
        "  k: 6\n"
        "  observations: {generate: {count: 157, seed: 3}}\n"
        "  references: {generate: {count: 900, seed: 4}}\n"
        "  batch_size: 11\n");
}

TEST(MpiKnnIndex, Float64ListArrays) {
  check("knn_mpi_index_float64",
        "  k: 45\n"
        "  precision: float64\n"
        "  radius: 1000\n"
        "  observations: {generate: {count: 61, seed: 5}}\n"
        "  references: {generate: {count: 700, seed: 6}}\n"
        "  batch_size: 9\n");
}

TEST(MpiKnnIndex, ClusteredAndGlobal) {
  // observations in a 100 m square across the dateline and over the globe, references in
  // it, in a 1 km square at the pole and over the globe
  const std::string points = csv_points(
      "knn_mpi_index_cluster",
      test::joined(test::cluster(60, -0.5, 179.9995, 100.0, 71), test::random_points(40, 72)),
      test::joined(test::joined(test::cluster(400, -0.5, 179.9995, 100.0, 73),
                                test::cluster(300, 90.0, 0.0, 1000.0, 74)),
                   test::random_points(300, 75)));
  for (const char* k : {"1", "16", "70"}) {
    check("knn_mpi_index_cluster_k" + std::string(k), std::string("  k: ") + k + "\n" + points);
  }
}

TEST(MpiKnnIndex, DuplicatesTieToTheLowerIndex) {
  std::vector<test::Point> refs, obs;
  for (int i = 0; i < 90; ++i) refs.push_back({-80.0 + 5 * (i % 10), 179.0 - (i % 4)});  // each point 2 to 3 times
  for (int i = 0; i < 50; ++i) obs.push_back({-80.0 + 4 * (i % 11), 179.0 - (i % 5)});
  check("knn_mpi_index_duplicates_run", "  k: 4\n  batch_size: 3\n" + csv_points("knn_mpi_index_duplicates", obs, refs),
        "  tile_size: 7\n");
}

TEST(MpiKnnIndex, PolesAndTheDatelineUpToEveryReference) {
  std::vector<test::Point> refs, obs;
  test::poles_and_dateline(refs, obs);
  for (test::Point& p : obs) p.lon = p.lon > 180.0 ? p.lon - 360.0 : p.lon;  // as a file must hold them
  const std::string points = csv_points("knn_mpi_index_poles", obs, refs);
  for (const std::size_t k : {std::size_t(10), refs.size()}) {
    check("knn_mpi_index_poles_k" + std::to_string(k), "  k: " + std::to_string(k) + "\n  batch_size: 13\n" + points);
  }
}

TEST(MpiKnnIndex, OneSpotAndAnEmptyHemisphere) {
  // references: 200 copies of one point, 200 in a 5 mm square around it (every leaf's ball
  // the same spot) and 300 in the north; observations around the spot and in the south, so
  // k = 1 widens through the ties and k = 40 reaches past the nearest cells
  std::vector<test::Point> refs(200, test::Point{12.5, -70.25});
  refs = test::joined(refs, test::cluster(200, 12.5, -70.25, 0.005, 81));
  for (const test::Point& p : test::random_points(300, 82)) refs.push_back({std::fabs(p.lat), p.lon});
  std::vector<test::Point> obs = test::cluster(10, 12.5, -70.25, 0.01, 83);
  for (const test::Point& p : test::random_points(20, 84)) obs.push_back({-std::fabs(p.lat), p.lon});
  const std::string points = csv_points("knn_mpi_index_spot", obs, refs);
  for (const char* k : {"1", "40"}) {
    check("knn_mpi_index_spot_k" + std::string(k), std::string("  k: ") + k + "\n" + points);
  }
}

TEST(MpiKnnIndex, FewerObservationsThanRanks) {
  // on 4 ranks at least one holds no observation and builds no rows
  check("knn_mpi_index_few",
        "  k: 16\n"
        "  observations: {generate: {count: 3, seed: 7}}\n"
        "  references: {generate: {count: 500, seed: 8}}\n");
}

}  // namespace
}  // namespace trident::knn
