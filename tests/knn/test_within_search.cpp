// The distance search's rounds (within_search.hpp): append() returns with a round's offsets
// and lets its entries arrive beside the next round, so rows taken in rounds of uneven sizes
// into one RaggedRows (offsets carried on) and into one RaggedRows a round must both hold,
// once finish() returns, every row of the test's own float64 answer (within_reference.hpp);
// and a warm-up leaves no trace in the rounds' profile. With a locked arena the rounds' entries
// are made there while they fit, and the rows are the same bits as without one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <memory>
#include <vector>

#include "knn/detail/search.hpp"
#include "knn/detail/within_search.hpp"
#include "within_reference.hpp"

namespace trident::knn {
namespace {

constexpr double kEarth = 6371008.8;
constexpr double kLimit = 900e3;  // about 9 of 2000 references a row

std::vector<test::Point> random_points(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<test::Point> points(n);
  for (auto& p : points) p = {std::asin(u(rng)) * 180.0 / 3.14159265358979323846, 180.0 * u(rng)};
  return points;
}

std::vector<Vec4<double>> vectors_of(const std::vector<test::Point>& points) {
  std::vector<double> lat_lon;
  for (const auto& p : points) lat_lon.insert(lat_lon.end(), {p.lat, p.lon});
  return unit_vectors(lat_lon);
}

// Row `o` of `rows` (its entries at [offsets[o] - offsets[0], ...)) against the reference.
void expect_row(const RaggedRows& rows, std::int64_t o, const test::Point& observation,
                const std::vector<test::Point>& refs, std::int64_t reported_row) {
  std::vector<double> want_distances;
  bool near_limit = false;
  const std::vector<std::int64_t> want = test::within(observation, refs, kLimit, kEarth, want_distances, near_limit);
  const std::int64_t from = rows.offsets[static_cast<std::size_t>(o)], to = rows.offsets[static_cast<std::size_t>(o) + 1];
  ASSERT_LE(to, static_cast<std::int64_t>(rows.indices.size())) << "observation " << reported_row;
  if (near_limit) return;  // (the two float64 distances may decide a pair at the limit apart)
  ASSERT_EQ(to - from, static_cast<std::int64_t>(want.size())) << "observation " << reported_row;
  for (std::int64_t e = from; e < to; ++e) {
    const auto j = static_cast<std::size_t>(e - from);
    EXPECT_EQ(rows.indices[static_cast<std::size_t>(e)], want[j]) << "observation " << reported_row << ", entry " << j;
    EXPECT_NEAR(rows.distances[static_cast<std::size_t>(e)], want_distances[j], 1e-12 * kLimit)
        << "observation " << reported_row << ", entry " << j;
  }
}

TEST(KnnWithinSearch, RoundsIntoOneRowSetOrOneARoundHoldEveryRowOnceFinished) {
  const std::vector<test::Point> refs = random_points(2000, 11), obs = random_points(700, 12);
  const std::vector<Vec4<double>> ref_vectors = vectors_of(refs), obs_vectors = vectors_of(obs);
  const WithinSearch search(ref_vectors, nullptr, kLimit, kEarth);
  search.warm_up(obs_vectors.data(), 50);
  EXPECT_EQ(search.profile().rounds, 0);
  EXPECT_EQ(search.profile().rows, 0);
  const std::int64_t rounds[] = {100, 1, 349, 250};
  RaggedRows together;  // every round appended to the same rows
  std::vector<RaggedRows> apart(4);
  std::int64_t first = 0;
  for (int r = 0; r < 4; ++r) {
    search.append(obs_vectors.data() + first, rounds[r], together);
    search.append(obs_vectors.data() + first, rounds[r], apart[static_cast<std::size_t>(r)]);
    first += rounds[r];
  }
  search.finish();
  EXPECT_EQ(search.profile().rounds, 8);
  ASSERT_EQ(together.rows(), 700);
  EXPECT_EQ(together.offsets.front(), 0);
  for (std::int64_t o = 0; o < 700; ++o) expect_row(together, o, obs[static_cast<std::size_t>(o)], refs, o);
  first = 0;
  std::int64_t entries = 0;
  for (int r = 0; r < 4; ++r) {
    const RaggedRows& rows = apart[static_cast<std::size_t>(r)];
    ASSERT_EQ(rows.rows(), rounds[r]);
    for (std::int64_t o = 0; o < rounds[r]; ++o) expect_row(rows, o, obs[static_cast<std::size_t>(first + o)], refs, first + o);
    entries += rows.offsets.back();
    first += rounds[r];
  }
  EXPECT_EQ(entries, together.offsets.back());
  EXPECT_GT(entries, 700 * 5);  // (rows of a few entries, not empty ones)
}

// The rounds of `search` over `obs_vectors` (sizes `rounds`), a RaggedRows each, finished.
std::vector<RaggedRows> rounds_of(const WithinSearch& search, const std::vector<Vec4<double>>& obs_vectors,
                                  const std::vector<std::int64_t>& rounds) {
  std::vector<RaggedRows> rows(rounds.size());
  std::int64_t first = 0;
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    search.append(obs_vectors.data() + first, rounds[r], rows[r]);
    first += rounds[r];
  }
  search.finish();
  return rows;
}

TEST(KnnWithinSearch, ALockedArenaHoldsTheRoundsEntriesWhileTheyFitAndChangesNoRow) {
  const std::vector<test::Point> refs = random_points(2000, 21), obs = random_points(900, 22);
  const std::vector<Vec4<double>> ref_vectors = vectors_of(refs), obs_vectors = vectors_of(obs);
  const std::vector<std::int64_t> rounds = {100, 300, 300, 200};
  const WithinSearch plain(ref_vectors, nullptr, kLimit, kEarth);
  const std::vector<RaggedRows> want = rounds_of(plain, obs_vectors, rounds);
  std::int64_t entries = 0;
  for (const RaggedRows& r : want) entries += r.offsets.back();
  ASSERT_GT(entries, 900 * 5);
  const std::size_t entry_bytes = sizeof(NeighbourIndex) + sizeof(double);
  // room for every round (and for the arrays a round sizes ahead and leaves, a few thousand
  // entries over its rows each), then for the first round alone
  for (const std::size_t room : {4 * static_cast<std::size_t>(entries + 4 * 4096) * entry_bytes,
                                 static_cast<std::size_t>(want[0].offsets.back() + 64) * entry_bytes}) {
    const auto arena = std::make_shared<transport::LockedArena>(room);
    WithinSearch search(ref_vectors, nullptr, kLimit, kEarth);
    search.use_arena(arena);
    const std::vector<RaggedRows> got = rounds_of(search, obs_vectors, rounds);
    int in_arena = 0;
    for (std::size_t r = 0; r < rounds.size(); ++r) {
      EXPECT_EQ(got[r].offsets, want[r].offsets) << "round " << r << ", arena of " << room << " bytes";
      EXPECT_TRUE(std::equal(got[r].indices.begin(), got[r].indices.end(), want[r].indices.begin(), want[r].indices.end()))
          << "round " << r << ", arena of " << room << " bytes";
      EXPECT_TRUE(std::equal(got[r].distances.begin(), got[r].distances.end(), want[r].distances.begin(),
                             want[r].distances.end()))
          << "round " << r << ", arena of " << room << " bytes";
      const auto n = static_cast<std::size_t>(got[r].offsets.back());
      const bool held = arena->holds(got[r].indices.data(), n * sizeof(NeighbourIndex)) &&
                        arena->holds(got[r].distances.data(), n * sizeof(double));
      in_arena += held ? 1 : 0;
    }
    // every round where the arena holds them all; the first alone where it holds only its entries
    EXPECT_EQ(in_arena, room > 2 * static_cast<std::size_t>(entries) * entry_bytes ? 4 : 1) << room << " bytes";
    EXPECT_TRUE(arena->holds(got[0].indices.data(), static_cast<std::size_t>(got[0].offsets.back()) * sizeof(NeighbourIndex)));
  }
}

}  // namespace
}  // namespace trident::knn
