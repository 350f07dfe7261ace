// One point set against itself (knn.references: observations) on 1-4 ranks, as a run drives
// it: knn.exclude_self (the default) leaves out each point's own index only, so a point that
// merely shares its position stays a neighbour at distance 0; for k nearest, with a
// distance limit, and for k: all; equal to the test's own float64 answer; the same bits
// through brute, index and auto, and after a stop and a restart; from CSV with ids and from
// HDF5; exclude_self: false keeps the point itself (first among its duplicates by index).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "brute_force.hpp"
#include "clusters.hpp"
#include "core/comm.hpp"
#include "deck/deck.hpp"
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

using test::same_bits;

// Points in a 1 km cluster (some twice: duplicates), at the poles and across the dateline.
std::vector<test::Point> nasty_points() {
  std::vector<test::Point> refs, obs;
  test::poles_and_dateline(refs, obs);
  std::vector<test::Point> p = test::cluster(40, 45.0, 179.999, 1000.0, 41);
  p = test::joined(p, std::vector<test::Point>(p.begin(), p.begin() + 10));  // duplicates of higher index
  p = test::joined(test::joined(p, refs), test::random_points(60, 42));
  p.insert(p.begin() + 3, p[20]);  // a duplicate of lower index: points 3 and 21
  return p;
}

// The test's answer for point o: every other point (or every point with `keep_self`) within
// `limit`, in the tie rule's order.
std::vector<std::int64_t> expected_row(const std::vector<test::Point>& p, std::size_t o, double limit, bool keep_self,
                                       std::vector<double>& d, bool& near) {
  std::vector<std::int64_t> row = test::within(p[o], p, limit, kEarth, d, near);
  if (keep_self) return row;
  for (std::size_t j = 0; j < row.size(); ++j) {
    if (row[j] != static_cast<std::int64_t>(o)) continue;
    row.erase(row.begin() + static_cast<std::ptrdiff_t>(j));
    d.erase(d.begin() + static_cast<std::ptrdiff_t>(j));
    break;
  }
  return row;
}

// k nearest (k > 0) or k: all (k = 0) rows against the answer; `limit` 0: none.
void expect_rows(const std::vector<test::Point>& p, int k, double limit, bool keep_self, const test::Output& r) {
  std::vector<double> d;
  int shown = 0;
  for (std::size_t o = 0; o < p.size(); ++o) {
    bool near = false;
    const std::vector<std::int64_t> want = expected_row(p, o, limit > 0 ? limit : 1e300, keep_self, d, near);
    if (near) continue;
    const std::size_t from = k > 0 ? o * static_cast<std::size_t>(k) : static_cast<std::size_t>(r.offsets[o]);
    const std::size_t length = k > 0 ? static_cast<std::size_t>(k) : static_cast<std::size_t>(r.offsets[o + 1] - r.offsets[o]);
    bool ok = k > 0 || length == want.size();
    for (std::size_t j = 0; ok && j < length; ++j) {
      const bool have = j < want.size();
      ok = have ? r.indices[from + j] == want[j] && std::fabs(r.distances[from + j] - d[j]) <= 1e-12 * d[j]
                : r.indices[from + j] == -1;
    }
    if (!ok && shown++ < 5) ADD_FAILURE() << "point " << o << ": row differs from the test's answer";
  }
}

test::Output check(const std::string& name, const std::string& knn) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, name);
  const test::Output brute = test::run_deck("  method: brute\n" + knn, folder + "/brute.h5");
  for (const char* method : {"index", "auto"}) {
    const test::Output other = test::run_deck(std::string("  method: ") + method + "\n" + knn, folder + "/" + method + ".h5");
    EXPECT_EQ(other.offsets, brute.offsets) << method;
    EXPECT_EQ(other.indices, brute.indices) << method;
    EXPECT_TRUE(same_bits(other.distances, brute.distances)) << method;
  }
  for (const char* method : {"brute", "index"}) {
    const test::Output resumed =
        test::stopped_and_resumed(std::string("  method: ") + method + "\n" + knn, folder + "/resumed_" + method + ".h5");
    EXPECT_EQ(resumed.offsets, brute.offsets) << method;
    EXPECT_EQ(resumed.indices, brute.indices) << method;
    EXPECT_TRUE(same_bits(resumed.distances, brute.distances)) << method;
  }
  return brute;
}

std::string csv_set(const std::string& name, const std::vector<test::Point>& p) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, name);
  if (mpi::rank(MPI_COMM_WORLD) == 0) {
    std::string text = "id,lat,lon\n";
    const std::string rows = test::csv_text(p);
    std::size_t at = rows.find('\n') + 1, i = 0;
    while (at < rows.size()) {
      const std::size_t end = rows.find('\n', at);
      text += "P" + std::to_string(i++) + "," + rows.substr(at, end - at) + "\n";
      at = end + 1;
    }
    trident::test::write_text(folder + "/points.csv", text);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return "  observations: {csv: {file: " + folder + "/points.csv, latitude: lat, longitude: lon}}\n"
         "  references: observations\n";
}

TEST(MpiKnnSelf, KNearestOthersDuplicatesStay) {
  const std::vector<test::Point> p = nasty_points();
  const std::string set = csv_set("knn_self_points", p);
  const test::Output r = check("knn_self_k", "  k: 4\n  batch_size: 11\n" + set);
  expect_rows(p, 4, 0, false, r);
  for (std::size_t o = 0; o < p.size(); ++o)
    for (int j = 0; j < 4; ++j) EXPECT_NE(r.indices[o * 4 + static_cast<std::size_t>(j)], static_cast<int>(o));
  EXPECT_EQ(r.indices[21 * 4], 3);  // its duplicate, at distance 0
  EXPECT_EQ(r.distances[21 * 4], 0.0);
}

TEST(MpiKnnSelf, WithinADistanceAndAll) {
  const std::vector<test::Point> p = nasty_points();
  const std::string set = csv_set("knn_self_within_points", p);
  expect_rows(p, 5, 400.0, false, check("knn_self_within", "  k: 5\n  max_distance: 400\n  batch_size: 9\n" + set));
  const test::Output all = check("knn_self_all", "  k: all\n  max_distance: 400\n  batch_size: 9\n" + set);
  expect_rows(p, 0, 400.0, false, all);
  // k: count: the others within, the point itself not counted
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "knn_self_count");
  for (const char* method : {"brute", "index"}) {
    const test::Output counts = test::run_deck(std::string("  method: ") + method +
                                                   "\n  k: count\n  max_distance: 400\n  batch_size: 9\n" + set,
                                               folder + "/" + method + ".h5");
    ASSERT_EQ(counts.counts.size() + 1, all.offsets.size()) << method;
    for (std::size_t o = 0; o < counts.counts.size(); ++o)
      EXPECT_EQ(counts.counts[o], all.offsets[o + 1] - all.offsets[o]) << method << " point " << o;
  }
}

TEST(MpiKnnSelf, KeepingThePointItself) {
  const std::vector<test::Point> p = nasty_points();
  const std::string set = csv_set("knn_self_keep_points", p);
  const test::Output r = check("knn_self_keep", "  k: 2\n  exclude_self: false\n  batch_size: 13\n" + set);
  expect_rows(p, 2, 0, true, r);
  EXPECT_EQ(r.indices[21 * 2], 3);  // the duplicate of lower index first, then the point
  EXPECT_EQ(r.indices[21 * 2 + 1], 21);
}

TEST(MpiKnnSelf, FromHdf5) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "knn_self_h5");
  const std::vector<test::Point> p = test::joined(test::random_points(150, 51), test::random_points(20, 51));
  {
    io::OutputFile out(MPI_COMM_WORLD, folder + "/points.h5", true);
    std::vector<double> values;
    for (const auto& q : p) values.insert(values.end(), {q.lat, q.lon});
    out.write_array("/points", values, {p.size(), 2});
    out.commit();
  }
  const std::string deck = "  k: 3\n  observations: {hdf5: {file: " + folder + "/points.h5, dataset: /points}}\n"
                           "  references: observations\n  batch_size: 17\n";
  expect_rows(p, 3, 0, false, check("knn_self_h5_run", deck));
}

}  // namespace
}  // namespace trident::knn
