// The study on 1-4 ranks, as a run drives it (prepare_study, rounds, the output file):
// identical answers for every rank count with batches and tiles forced small, equal to the
// brute force, and the same after a stop and a restart from the checkpoint; bad data stops
// every rank with one message.
#include <gtest/gtest.h>

#include "brute_force.hpp"
#include "clusters.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "deck/deck.hpp"
#include "support/study_decks.hpp"
#include "knn/detail/points.hpp"
#include "knn/detail/search.hpp"
#include "knn/detail/study.hpp"
#include "run_deck.hpp"
#include "support/test_support.hpp"

namespace trident::knn {
namespace {

constexpr double kEarth = 6371008.8;

std::vector<test::Point> points(const knn::PointSource& source) {
  const auto ll = read_points(source, 0, count_points(source));
  std::vector<test::Point> p;
  for (std::size_t i = 0; i < ll.size(); i += 2) p.push_back({ll[i], ll[i + 1]});
  return p;
}

// `name`: the test's scratch folder.
void check_deck(const std::string& name, const std::string& knn) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = trident::test::scratch_folder(comm, name + "_run");
  const trident::test::StudyDeck d = trident::test::read_deck_text("knn:\n" + knn, "deck.yaml", ".");
  const auto& s = *d.knn;
  const test::Output r = test::run_deck(knn, folder + "/knn.h5");
  const std::int64_t n = count_points(s.observations), n_references = count_points(s.references);
  const std::int64_t count = n * (mpi::rank(comm) + 1) / mpi::size(comm) - n * mpi::rank(comm) / mpi::size(comm);
  if (count > 0 && s.tile_size > 0 && s.tile_size < n_references) EXPECT_GT(r.profile.tiles, 1);
  if (s.batch_size > 0 && count > s.batch_size) EXPECT_GT(r.profile.batches, 1);
  const auto& indices = r.indices;
  const auto& distances = r.distances;
  const auto& lat_lon = r.observations;
  // the float64 brute force, and the same search done by one rank in one batch and tile
  const auto obs = points(s.observations), refs = points(s.references);
  test::expect_same(test::brute_force(obs, refs, static_cast<int>(s.k), s.radius), indices,
                    distances, static_cast<int>(s.k), s.radius);
  SearchOptions whole;
  whole.k = static_cast<int>(s.k);
  whole.radius = s.radius;
  whole.precision = s.precision;
  std::vector<double> all_ll;
  for (const auto& p : obs) all_ll.insert(all_ll.end(), {p.lat, p.lon});
  std::vector<double> ref_ll;
  for (const auto& p : refs) ref_ll.insert(ref_ll.end(), {p.lat, p.lon});
  const Neighbours one = nearest(unit_vectors(all_ll), unit_vectors(ref_ll), whole);
  EXPECT_EQ(std::vector<NeighbourIndex>(one.indices.begin(), one.indices.end()), indices);
  EXPECT_EQ(std::vector<double>(one.distances.begin(), one.distances.end()), distances);  // bit for bit: the same float64 formula per pair
  EXPECT_EQ(all_ll, lat_lon);
  // stopped after its first round and resumed: the same file
  const test::Output resumed = test::stopped_and_resumed(knn, folder + "/resumed.h5");
  EXPECT_EQ(resumed.indices, indices);
  EXPECT_EQ(resumed.distances, distances);
  EXPECT_EQ(resumed.observations, lat_lon);
}

TEST(MpiKnn, SameAnswerOnAnyRankCountSmallK) {
  check_deck("knn_mpi_small_k",
      "  k: 6\n"
      "  observations: {generate: {count: 97, seed: 3}}\n"
      "  references: {generate: {count: 120, seed: 4}}\n"
      "  batch_size: 5\n"
      "  tile_size: 17\n");
}

TEST(MpiKnn, SameAnswerOnAnyRankCountLargeKFloat64) {
  check_deck("knn_mpi_large_k",
      "  k: 45\n"
      "  precision: float64\n"
      "  radius: 1000\n"
      "  observations: {generate: {count: 41, seed: 5}}\n"
      "  references: {generate: {count: 90, seed: 6}}\n"
      "  batch_size: 4\n"
      "  tile_size: 16\n");
}

TEST(MpiKnn, SameAnswerWithDuplicatesFromCsv) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "knn_mpi_csv");
  if (mpi::rank(MPI_COMM_WORLD) == 0) {
    std::string refs = "lat,lon\n", obs = "lon,lat\n";
    for (int i = 0; i < 30; ++i) {
      const std::string row = std::to_string(-80 + 5 * (i % 10)) + "," + std::to_string(179 - (i % 4));
      refs += row + "\n";  // each point three times
      obs += std::to_string(179 - (i % 5)) + "," + std::to_string(-80 + 4 * (i % 11)) + "\n";
    }
    trident::test::write_text(folder + "/refs.csv", refs);
    trident::test::write_text(folder + "/obs.csv", obs);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  check_deck("knn_mpi_csv",
      "  k: 4\n"
      "  observations: {csv: {file: " + folder + "/obs.csv, latitude: lat, longitude: lon}}\n"
      "  references: {csv: {file: " + folder + "/refs.csv, latitude: lat, longitude: lon}}\n"
      "  batch_size: 3\n"
      "  tile_size: 7\n");
}

TEST(MpiKnn, SameAnswerInA100MetreClusterLargeK) {
  // observations in a 100 m square, references in it and over the globe; k through the
  // register lists and the select screen, batches and tiles forced small
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "knn_mpi_cluster");
  if (mpi::rank(MPI_COMM_WORLD) == 0) {
    trident::test::write_text(folder + "/obs.csv", test::csv_text(test::cluster(50, -0.5, 179.9995, 100.0, 61)));
    trident::test::write_text(folder + "/refs.csv", test::csv_text(test::joined(test::cluster(300, -0.5, 179.9995, 100.0, 62),
                                                                           test::random_points(100, 63))));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (const char* k : {"16", "257"}) {
    check_deck(std::string("knn_mpi_cluster_k") + k, std::string("  k: ") + k + "\n"
               "  observations: {csv: {file: " + folder + "/obs.csv, latitude: lat, longitude: lon}}\n"
               "  references: {csv: {file: " + folder + "/refs.csv, latitude: lat, longitude: lon}}\n"
               "  batch_size: 6\n"
               "  tile_size: 45\n");
  }
}

// The study prepared as a run prepares it (before the output exists) fails on every rank.
void expect_collective_error(const std::string& knn, const std::string& message) {
  const trident::test::StudyDeck d = trident::test::read_deck_text("knn:\n" + knn, "deck.yaml", ".");
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "knn_mpi_bad_run");
  Timers timers;
  DeviceBinding binding;
  RunContext context{MPI_COMM_WORLD, timers, binding};
  try {
    prepare_study(*d.knn, context, folder + "/knn.h5.checkpoint.h5");
    ADD_FAILURE() << "no error";
  } catch (const CollectiveError& e) {
    EXPECT_EQ(e.what(), message);
    EXPECT_EQ(e.exit_code(), kExitBadInput);
  }
}

TEST(MpiKnn, BadDataStopsEveryRank) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "knn_mpi_bad");
  if (mpi::rank(MPI_COMM_WORLD) == 0) {
    std::string good = "latitude,longitude\n";
    for (int i = 0; i < 12; ++i) good += std::to_string(i) + "," + std::to_string(2 * i) + "\n";
    trident::test::write_text(folder + "/good.csv", good);
    trident::test::write_text(folder + "/bad_last.csv", good + "12,200\n");  // only the last rank reads it
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect_collective_error(
      "  observations: {csv: {file: " + folder + "/bad_last.csv}}\n"
      "  references: {csv: {file: " + folder + "/good.csv}}\n",
      folder + "/bad_last.csv: row 13, column 'longitude': expected a longitude in [-180, 180] "
               "degrees, got 200");
  expect_collective_error(
      "  k: 13\n"
      "  observations: {generate: {count: 5}}\n"
      "  references: {csv: {file: " + folder + "/good.csv}}\n",
      "deck.yaml:2:6: knn.k: expected at most the number of references (12), got 13");
}

}  // namespace
}  // namespace trident::knn
