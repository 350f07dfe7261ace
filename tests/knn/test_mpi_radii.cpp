// knn.max_distance: {column: NAME} on 1-4 ranks, as a run drives it: each observation its own
// search radius from its file, for k: all, k: count and k: N within. The rows equal the test's
// own float64 answer with each observation's radius; the same bits through the brute force,
// the index and auto, and after a stop and a restart; radii of 0, of a written distance
// exactly, and from an HDF5 dataset (the same bits as from the CSV column); a set against
// itself with its own radii.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "brute_force.hpp"
#include "clusters.hpp"
#include "core/comm.hpp"
#include "deck_points.hpp"
#include "run_deck.hpp"
#include "search_cases.hpp"
#include "support/h5_write.hpp"
#include "support/test_support.hpp"
#include "within_reference.hpp"

namespace trident::knn {
namespace {

using test::same_bits;

std::string exact(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

// obs.csv with a column of radii (err) between the coordinates, in a scratch folder.
std::string radii_csv(const std::string& name, const std::vector<test::Point>& obs, const std::vector<double>& radii) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, name);
  if (mpi::rank(MPI_COMM_WORLD) == 0) {
    std::string text = "lat,err,lon\n";
    for (std::size_t i = 0; i < obs.size(); ++i) text += exact(obs[i].lat) + "," + exact(radii[i]) + "," + exact(obs[i].lon) + "\n";
    trident::test::write_text(folder + "/obs.csv", text);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return folder + "/obs.csv";
}

// The ragged rows against the test's answer with each observation's own radius (`self`: the
// point's own index left out); rows with a reference within 1e-12 of their radius are checked
// only against it.
void expect_rows(const std::vector<test::Point>& obs, const std::vector<test::Point>& refs,
                 const std::vector<double>& radii, bool self, const test::Output& r) {
  ASSERT_EQ(r.offsets.size(), obs.size() + 1);
  int shown = 0;
  std::vector<double> d;
  for (std::size_t o = 0; o < obs.size(); ++o) {
    bool near = false;
    std::vector<std::int64_t> want = test::within(obs[o], refs, radii[o], test::kEarth, d, near);
    if (self) {
      for (std::size_t j = 0; j < want.size(); ++j) {
        if (want[j] != static_cast<std::int64_t>(o)) continue;
        want.erase(want.begin() + static_cast<std::ptrdiff_t>(j));
        d.erase(d.begin() + static_cast<std::ptrdiff_t>(j));
        break;
      }
    }
    const std::int64_t from = r.offsets[o], to = r.offsets[o + 1];
    for (std::int64_t e = from; e < to; ++e) EXPECT_LE(r.distances[static_cast<std::size_t>(e)], radii[o]);
    if (near) continue;
    bool ok = static_cast<std::size_t>(to - from) == want.size();
    for (std::size_t j = 0; ok && j < want.size(); ++j) {
      const auto e = static_cast<std::size_t>(from) + j;
      ok = r.indices[e] == want[j] && std::fabs(r.distances[e] - d[j]) <= 1e-12 * d[j];
    }
    if (!ok && shown++ < 5)
      ADD_FAILURE() << "observation " << o << " (radius " << radii[o] << "): expected " << want.size()
                    << " neighbours, got " << to - from;
  }
}

void expect_same(const test::Output& a, const test::Output& b, const std::string& what) {
  EXPECT_EQ(a.offsets, b.offsets) << what;
  EXPECT_EQ(a.indices, b.indices) << what;
  EXPECT_TRUE(same_bits(a.distances, b.distances)) << what;
  EXPECT_EQ(a.counts, b.counts) << what;
}

// `points` (the deck's point sets, observations with the radii column) through k: all, k:
// count and k: 3 within, each by brute, index and auto and stopped and resumed. Returns the
// k: all rows (brute).
test::Output check(const std::string& name, const std::string& points, const std::vector<test::Point>& obs,
                   const std::vector<test::Point>& refs, const std::vector<double>& radii, bool self) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, name);
  const std::string common = "  max_distance: {column: err}\n  batch_size: 9\n" + points;
  test::Output all;
  for (const char* k : {"all", "count", "3"}) {
    const std::string deck = std::string("  k: ") + k + "\n" + common, tag = folder + "/" + k;
    const test::Output brute = test::run_deck("  method: brute\n" + deck, tag + "_brute.h5");
    EXPECT_EQ(brute.method, "brute");
    const test::Output index = test::run_deck("  method: index\n" + deck, tag + "_index.h5");
    EXPECT_EQ(index.method, "index");
    expect_same(index, brute, std::string("index, k: ") + k);
    expect_same(test::run_deck(deck, tag + "_auto.h5"), brute, std::string("auto, k: ") + k);
    for (const char* method : {"brute", "index"})
      expect_same(test::stopped_and_resumed(std::string("  method: ") + method + "\n" + deck,
                                            tag + "_resumed_" + method + ".h5"),
                  brute, std::string("resumed ") + method + ", k: " + k);
    if (std::string(k) == "all") {
      expect_rows(obs, refs, radii, self, brute);
      all = brute;
    } else if (std::string(k) == "count") {
      std::vector<std::int64_t> lengths;
      for (std::size_t o = 0; o + 1 < all.offsets.size(); ++o) lengths.push_back(all.offsets[o + 1] - all.offsets[o]);
      EXPECT_EQ(brute.counts, lengths);
    } else {  // the first 3 of each ragged row, padded with -1 and NaN
      EXPECT_EQ(brute.indices.size(), obs.size() * 3);
      if (brute.indices.size() != obs.size() * 3) continue;
      for (std::size_t o = 0; o < obs.size(); ++o) {
        for (std::int64_t j = 0; j < 3; ++j) {
          const std::int64_t e = all.offsets[o] + j;
          const bool have = e < all.offsets[o + 1];
          EXPECT_EQ(brute.indices[o * 3 + static_cast<std::size_t>(j)], have ? all.indices[static_cast<std::size_t>(e)] : -1)
              << "observation " << o << ", entry " << j;
          const double got = brute.distances[o * 3 + static_cast<std::size_t>(j)];
          if (have) EXPECT_EQ(got, all.distances[static_cast<std::size_t>(e)]);
          else EXPECT_TRUE(std::isnan(got));
        }
      }
    }
  }
  return all;
}

std::vector<double> random_radii(std::size_t n, std::uint64_t seed, double largest) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, largest);
  std::vector<double> r(n);
  for (auto& x : r) x = u(rng);
  return r;
}

TEST(MpiKnnRadii, EachObservationItsOwnRadius) {
  const std::vector<test::Point> obs = test::random_points(130, 41);
  std::vector<double> radii = random_radii(obs.size(), 42, 1500e3);
  radii[3] = 0;          // nothing within (no duplicates)
  radii[4] = 20000e3;    // every reference (beyond half the circumference)
  // observation 9's radius exactly the distance the library writes to its second nearest: kept
  const std::string refs = "  references: {generate: {count: 500, seed: 43}}\n";
  const std::string first = radii_csv("knn_radii_first", obs, radii);
  const test::Output nearest =
      test::run_deck("  k: 2\n  observations: {csv: {file: " + first + ", latitude: lat, longitude: lon}}\n" + refs,
                     trident::test::scratch_folder(MPI_COMM_WORLD, "knn_radii_nearest") + "/nearest.h5");
  radii[9] = nearest.distances[9 * 2 + 1];
  const std::string file = radii_csv("knn_radii_uniform", obs, radii);
  const trident::test::StudyDeck d = trident::test::read_deck_text("knn:\n  k: 1\n" + refs + "  observations: {generate: {count: 1}}\n", "deck.yaml", ".");
  const test::Output r = check("knn_radii_uniform_run", "  observations: {csv: {file: " + file + ", latitude: lat, longitude: lon}}\n" + refs,
                               obs, test::points(d.knn->references), radii, false);
  ASSERT_EQ(r.offsets.size(), 131u);
  EXPECT_EQ(r.offsets[4], r.offsets[3]);
  EXPECT_EQ(r.offsets[5] - r.offsets[4], 500);
  ASSERT_EQ(r.offsets[10] - r.offsets[9], 2);
  EXPECT_EQ(r.indices[static_cast<std::size_t>(r.offsets[9]) + 1], nearest.indices[9 * 2 + 1]);
  EXPECT_EQ(r.distances[static_cast<std::size_t>(r.offsets[9]) + 1], radii[9]);
}

TEST(MpiKnnRadii, ASetAgainstItselfWithDuplicatesPolesAndTheDateline) {
  std::vector<test::Point> refs, obs;
  test::poles_and_dateline(refs, obs);
  for (test::Point& p : obs) p.lon = p.lon > 180.0 ? p.lon - 360.0 : p.lon;
  std::vector<test::Point> set = test::joined(test::joined(obs, obs), test::cluster(60, -0.5, 179.9995, 100.0, 51));
  std::vector<double> radii = random_radii(set.size(), 52, 400e3);
  for (std::size_t i = 0; i < set.size(); i += 7) radii[i] = 0;  // duplicates only
  for (std::size_t i = set.size() - 60; i < set.size(); i += 2) radii[i] = 30.0;  // within the 100 m cluster
  const std::string file = radii_csv("knn_radii_self", set, radii);
  check("knn_radii_self_run",
        "  observations: {csv: {file: " + file + ", latitude: lat, longitude: lon}}\n  references: observations\n", set, set,
        radii, true);
}

TEST(MpiKnnRadii, AnHdf5DatasetGivesTheSameBitsAsTheCsvColumn) {
  const std::vector<test::Point> obs = test::random_points(70, 61);
  const std::vector<double> radii = random_radii(obs.size(), 62, 2000e3);
  const std::string csv = radii_csv("knn_radii_h5", obs, radii);
  const std::string h5 = csv + ".h5";
  if (mpi::rank(MPI_COMM_WORLD) == 0) {
    std::vector<double> lat_lon;
    for (const auto& p : obs) lat_lon.insert(lat_lon.end(), {p.lat, p.lon});
    trident::test::write_h5_doubles(h5, "/points", {obs.size(), 2}, lat_lon);
    const hid_t f = H5Fopen(h5.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);  // the radii beside the points
    const hsize_t n = obs.size();
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t ds = H5Dcreate2(f, "/err", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, radii.data());
    H5Dclose(ds);
    H5Sclose(space);
    H5Fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "knn_radii_h5_run");
  const std::string rest = "  k: all\n  max_distance: {column: err}\n  batch_size: 8\n  references: {generate: {count: 300, seed: 63}}\n";
  const test::Output from_csv = test::run_deck(rest + "  observations: {csv: {file: " + csv + ", latitude: lat, longitude: lon}}\n",
                                               folder + "/csv.h5");
  const test::Output from_h5 = test::run_deck(rest + "  observations: {hdf5: {file: " + h5 + ", dataset: /points}}\n",
                                              folder + "/h5.h5");
  EXPECT_GT(from_csv.indices.size(), 70u);
  expect_same(from_h5, from_csv, "hdf5");
}

}  // namespace
}  // namespace trident::knn
