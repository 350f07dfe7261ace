// The distance queries (k: all, k: count, match: best, a set against itself) on 1-4 ranks do
// not depend on the order the observations come in: the search takes each round's
// observations in the order of their places on the device and writes every row at its own
// observation, with the point's own reference left out there. Observations in an order of
// places (the test's own: bands of latitude, then longitude) and the same observations
// reversed give the same rows, reversed, bit for bit, through the brute force and the index,
// in small rounds (so that rounds and rank chunks hold different points in either order);
// and the rows are the test's own float64 answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "brute_force.hpp"
#include "clusters.hpp"
#include "core/comm.hpp"
#include "deck_points.hpp"
#include "run_deck.hpp"
#include "search_cases.hpp"
#include "support/test_support.hpp"
#include "within_reference.hpp"

namespace trident::knn {
namespace {

constexpr double kEarth = 6371008.8;

// The points in bands of 5 degrees of latitude, each west to east: neighbours on the sphere
// mostly near each other in the list.
std::vector<test::Point> by_place(std::vector<test::Point> p) {
  std::stable_sort(p.begin(), p.end(), [](const test::Point& a, const test::Point& b) {
    const double band_a = std::floor(a.lat / 5.0), band_b = std::floor(b.lat / 5.0);
    return band_a < band_b || (band_a == band_b && a.lon < b.lon);
  });
  return p;
}

std::vector<test::Point> reversed(std::vector<test::Point> p) {
  std::reverse(p.begin(), p.end());
  return p;
}

// Row o of ragged rows: (index, distance) pairs.
std::vector<std::pair<NeighbourIndex, double>> row(const test::Output& r, std::size_t o) {
  std::vector<std::pair<NeighbourIndex, double>> entries;
  for (std::int64_t e = r.offsets[o]; e < r.offsets[o + 1]; ++e)
    entries.push_back({r.indices[static_cast<std::size_t>(e)], r.distances[static_cast<std::size_t>(e)]});
  return entries;
}

// Rows of `a` against the rows of `b` for the same observations reversed; `map` turns an
// index of b's references into a's.
void expect_reversed_rows(const test::Output& a, const test::Output& b, const std::function<NeighbourIndex(NeighbourIndex)>& map,
                          const std::string& what) {
  ASSERT_EQ(a.offsets.size(), b.offsets.size()) << what;
  const std::size_t n = a.offsets.size() - 1;
  int shown = 0;
  for (std::size_t o = 0; o < n; ++o) {
    auto got = row(b, n - 1 - o);
    for (auto& entry : got) entry.first = map(entry.first);
    const auto want = row(a, o);
    bool same = got.size() == want.size();
    for (std::size_t j = 0; same && j < got.size(); ++j)
      same = got[j].first == want[j].first && test::same_bits(std::vector<double>{got[j].second}, {want[j].second});
    if (!same && shown++ < 5) ADD_FAILURE() << what << ": observation " << o << " (" << want.size() << " entries) differs reversed";
  }
}

// The rows against the test's float64 answer (rows with a reference within 1e-12 of the
// limit skipped); `self` leaves each point's own index out.
void expect_answer(const std::vector<test::Point>& obs, const std::vector<test::Point>& refs, double limit, bool self,
                   const test::Output& r) {
  std::vector<double> d;
  int shown = 0;
  for (std::size_t o = 0; o < obs.size(); ++o) {
    bool near = false;
    std::vector<std::int64_t> want = test::within(obs[o], refs, limit, kEarth, d, near);
    if (near) continue;
    if (self) {
      const auto at = std::find(want.begin(), want.end(), static_cast<std::int64_t>(o));
      if (at != want.end()) {
        d.erase(d.begin() + (at - want.begin()));
        want.erase(at);
      }
    }
    const auto got = row(r, o);
    bool ok = got.size() == want.size();
    for (std::size_t j = 0; ok && j < want.size(); ++j)
      ok = got[j].first == want[j] && std::fabs(got[j].second - d[j]) <= 1e-12 * d[j];
    if (!ok && shown++ < 5) ADD_FAILURE() << "observation " << o << ": expected " << want.size() << " entries, got " << got.size();
  }
}

TEST(MpiKnnWithinOrder, CrossRowsFollowTheirObservations) {
  // uniform points, a 2 km cluster with duplicates (ties by index), the poles and the dateline
  std::vector<test::Point> refs, obs;
  test::poles_and_dateline(refs, obs);
  for (test::Point& p : obs) p.lon = p.lon > 180.0 ? p.lon - 360.0 : p.lon;
  const std::vector<test::Point> town = test::cluster(60, 30.0, -179.999, 2000.0, 81);
  refs = test::joined(test::joined(test::joined(refs, test::random_points(400, 82)), town), town);
  obs = by_place(test::joined(test::joined(obs, test::random_points(150, 83)), test::cluster(40, 30.0, -179.999, 2000.0, 84)));
  const std::vector<test::Point> back = reversed(obs);
  const double limit = 900e3;
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "knn_within_order");
  const std::string rows = "  max_distance: 900e3\n  batch_size: 23\n";
  const std::string forward = csv_points("knn_within_order_forward", obs, refs);
  const std::string backward = csv_points("knn_within_order_backward", back, refs);
  const auto same = [](NeighbourIndex r) { return r; };
  for (const char* method : {"brute", "index"}) {
    const std::string m = std::string("  method: ") + method + "\n";
    const test::Output a = test::run_deck(m + "  k: all\n" + rows + forward, folder + "/a_" + method + ".h5");
    const test::Output b = test::run_deck(m + "  k: all\n" + rows + backward, folder + "/b_" + method + ".h5");
    expect_answer(obs, refs, limit, false, a);
    expect_reversed_rows(a, b, same, std::string("k: all, ") + method);
    const test::Output ca = test::run_deck(m + "  k: count\n" + rows + forward, folder + "/ca_" + method + ".h5");
    const test::Output cb = test::run_deck(m + "  k: count\n" + rows + backward, folder + "/cb_" + method + ".h5");
    ASSERT_EQ(ca.counts.size(), obs.size());
    ASSERT_EQ(cb.counts.size(), obs.size());
    for (std::size_t o = 0; o < obs.size(); ++o) {
      EXPECT_EQ(ca.counts[o], a.offsets[o + 1] - a.offsets[o]) << method << " observation " << o;
      EXPECT_EQ(cb.counts[obs.size() - 1 - o], ca.counts[o]) << method << " observation " << o;
    }
    const test::Output ma = test::run_deck(m + "  match: best\n" + rows + forward, folder + "/ma_" + method + ".h5");
    const test::Output mb = test::run_deck(m + "  match: best\n" + rows + backward, folder + "/mb_" + method + ".h5");
    ASSERT_EQ(ma.indices.size(), obs.size());
    ASSERT_EQ(mb.indices.size(), obs.size());
    for (std::size_t o = 0; o < obs.size(); ++o) {
      EXPECT_EQ(mb.indices[obs.size() - 1 - o], ma.indices[o]) << method << " observation " << o;
      EXPECT_EQ(ma.counts[o], a.offsets[o + 1] - a.offsets[o]) << method << " observation " << o;
      // the match is the row's first entry (or none)
      EXPECT_EQ(ma.indices[o], a.offsets[o + 1] > a.offsets[o] ? a.indices[static_cast<std::size_t>(a.offsets[o])] : -1)
          << method << " observation " << o;
    }
  }
}

TEST(MpiKnnWithinOrder, SelfRowsFollowTheirPoints) {
  // one set against itself, reversed: reference j of the reversed set is n - 1 - j of the
  // other. Uniform points (no ties, so the mapped indices keep their order in a row).
  const std::vector<test::Point> p = by_place(test::random_points(260, 85));
  const auto n = static_cast<NeighbourIndex>(p.size());
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "knn_within_order_self");
  const std::string rows = "  k: all\n  max_distance: 1200e3\n  batch_size: 19\n";
  const auto self_set = [&](const std::string& name, const std::vector<test::Point>& points) {
    const std::string deck = csv_points(name, points, points);
    return deck.substr(0, deck.find('\n') + 1) + "  references: observations\n";
  };
  const std::string forward = self_set("knn_within_order_self_forward", p);
  const std::string backward = self_set("knn_within_order_self_backward", reversed(p));
  const auto mirrored = [n](NeighbourIndex r) { return n - 1 - r; };
  for (const char* method : {"brute", "index"}) {
    const std::string m = std::string("  method: ") + method + "\n";
    const test::Output a = test::run_deck(m + rows + forward, folder + "/a_" + method + ".h5");
    const test::Output b = test::run_deck(m + rows + backward, folder + "/b_" + method + ".h5");
    expect_answer(p, p, 1200e3, true, a);
    expect_reversed_rows(a, b, mirrored, std::string("self, ") + method);
    const test::Output c = test::run_deck(m + "  k: count\n" + rows.substr(rows.find('\n') + 1) + backward,
                                          folder + "/c_" + method + ".h5");
    ASSERT_EQ(c.counts.size(), p.size());
    for (std::size_t o = 0; o < p.size(); ++o)
      EXPECT_EQ(c.counts[p.size() - 1 - o], a.offsets[o + 1] - a.offsets[o]) << method << " point " << o;
  }
}

}  // namespace
}  // namespace trident::knn
