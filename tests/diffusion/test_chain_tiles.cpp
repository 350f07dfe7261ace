// A chain's order of tiles and the tiles each waits for (trip_tiles.hpp's TilePlan), on the
// host: every trip hands out each tile once; a tile waits for every tile whose cells its
// steps read or overwrite, across a wrapped (periodic) axis too; and across a wrapped y axis
// a trip's tiles wait only for tiles handed out most of a trip before them. Then chains of
// trips that read a lone block's periodic axes wrapped (a chain on a device) against the
// one-step kernel with the ghosts copied across the wrap before each step, bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "diffusion/detail/stencil.hpp"
#include "diffusion/detail/trip.hpp"
#include "diffusion/detail/trip_tiles.hpp"

namespace trident {
namespace {

using diffusion::Box;
using diffusion::TilePlan;
using diffusion::Trip;
using diffusion::TripShape;

// A chain's plan over an ny x nx block (grid indices from 1) with strips of `columns` kept
// columns and bands of `rows` rows.
struct ChainPlan {
  Trip trip;
  TilePlan plan;
  ChainPlan(int ny, int nx, int columns, int rows) {
    trip.first = {1, 1 + ny, 1, 1 + nx};
    trip.add_keep(trip.first);
    plan = diffusion::plan_tiles(trip, 8, 100, TripShape{8, columns, rows});
  }
  int strips() const { return plan.strips(trip.keep[0]); }
};

// The tiles whose kept cells lie within m cells of tile t's (each axis wrapped where it wraps).
std::set<int> tiles_within(const ChainPlan& c, int t, int m, bool wrap_x, bool wrap_y) {
  const Box keep = c.trip.keep[0], mine = c.plan.tile(c.trip, t);
  const int ny = keep.y1 - keep.y0, nx = keep.x1 - keep.x0;
  std::set<int> near;
  for (int j = mine.y0 - m; j < mine.y1 + m; ++j)
    for (int i = mine.x0 - m; i < mine.x1 + m; ++i) {
      int y = j, x = i;
      if (wrap_y) y = keep.y0 + ((y - keep.y0) % ny + ny) % ny;
      if (wrap_x) x = keep.x0 + ((x - keep.x0) % nx + nx) % nx;
      if (y < keep.y0 || y >= keep.y1 || x < keep.x0 || x >= keep.x1) continue;
      for (int u = 0; u < c.plan.tiles; ++u) {
        const Box b = c.plan.tile(c.trip, u);
        if (y >= b.y0 && y < b.y1 && x >= b.x0 && x < b.x1) near.insert(u);
      }
    }
  return near;
}

std::set<int> waited_for(const ChainPlan& c, int t, bool wrap_x, bool wrap_y) {
  std::set<int> waits;
  for (int k = 0; k < 9; ++k) {
    const int around = c.plan.chain_neighbour(c.trip, t, k, wrap_x, wrap_y);
    if (around >= 0) waits.insert(around);
  }
  return waits;
}

TEST(DiffusionChainTiles, EveryTripHandsOutEachTileOnce) {
  const ChainPlan c(98, 61, 13, 10);  // 5 strips (the last of 9 columns), 10 bands (the last of 8 rows)
  ASSERT_EQ(c.strips(), 5);
  ASSERT_EQ(c.plan.tiles, 50);
  for (const bool wrap_y : {false, true})
    for (int n = 0; n < 23; ++n) {
      std::vector<int> seen;
      for (int t = 0; t < c.plan.tiles; ++t) seen.push_back(c.plan.chain_tile(c.trip, n * c.plan.tiles + t, wrap_y));
      std::vector<int> sorted = seen;
      std::sort(sorted.begin(), sorted.end());
      for (int t = 0; t < c.plan.tiles; ++t) ASSERT_EQ(sorted[t], t) << "trip " << n;
      // in order without a wrap; across one, trip n starts at band n mod 10
      EXPECT_EQ(seen[0], wrap_y ? n % 10 * 5 : 0);
      EXPECT_EQ(seen[7], wrap_y ? (n + 1) % 10 * 5 + 2 : 7);
    }
}

TEST(DiffusionChainTiles, ATileWaitsForEveryTileItsStepsReachAcrossWrappedAxes) {
  // strips of 13 and 12 columns (the last of 9 and 11: at least a trip's 8), bands of 10 and 9 rows
  for (const auto& shape : {std::vector<int>{98, 61, 13, 10}, std::vector<int>{90, 47, 12, 9}})
    for (const bool wrap_x : {false, true})
      for (const bool wrap_y : {false, true}) {
        const ChainPlan c(shape[0], shape[1], shape[2], shape[3]);
        for (int t = 0; t < c.plan.tiles; ++t) {
          const std::set<int> near = tiles_within(c, t, 8, wrap_x, wrap_y), waits = waited_for(c, t, wrap_x, wrap_y);
          for (const int u : near) EXPECT_TRUE(waits.count(u)) << "tile " << t << " does not wait for tile " << u;
          EXPECT_TRUE(waits.count(t));
        }
        // tile 0 waits for the tiles at the far ends of the axes that wrap, and only those
        const ChainPlan& p = c;
        const int last_strip = p.strips() - 1, last_band = p.plan.tiles / p.strips() - 1;
        const std::set<int> waits = waited_for(p, 0, wrap_x, wrap_y);
        EXPECT_EQ(waits.count(last_strip), wrap_x ? 1u : 0u);
        EXPECT_EQ(waits.count(last_band * p.strips()), wrap_y ? 1u : 0u);
        EXPECT_EQ(waits.count(last_band * p.strips() + last_strip), wrap_x && wrap_y ? 1u : 0u);
      }
}

// A last strip narrower than a trip's steps: the first strip's reach across the wrap passes it,
// into a strip it does not wait for (so launch_chain runs such trips one launch each).
TEST(DiffusionChainTiles, ALastStripNarrowerThanATripIsPassedAcrossTheWrap) {
  const ChainPlan c(40, 53, 13, 10);  // 5 strips, the last of 1 column
  const std::set<int> near = tiles_within(c, 0, 8, true, false), waits = waited_for(c, 0, true, false);
  EXPECT_TRUE(near.count(3));  // the strip before the last
  EXPECT_FALSE(waits.count(3));
}

TEST(DiffusionChainTiles, AcrossAWrappedYAxisATripWaitsOnlyForTilesHandedOutMostOfATripBefore) {
  const ChainPlan c(98, 61, 13, 10);
  const int tiles = c.plan.tiles, strips = c.strips(), bands = tiles / strips;
  for (const bool rotate : {false, true}) {
    // ticket of (trip, tile), with or without the rotation of the bands
    std::vector<int> ticket_of(2 * tiles);
    for (int ticket = 0; ticket < 2 * tiles; ++ticket)
      ticket_of[ticket / tiles * tiles + c.plan.chain_tile(c.trip, ticket, rotate)] = ticket;
    int closest = 2 * tiles;
    for (int t = 0; t < tiles; ++t)
      for (const int u : waited_for(c, t, false, true)) closest = std::min(closest, ticket_of[tiles + t] - ticket_of[u]);
    // without it, trip 1's first band waits for trip 0's last, handed out just before it
    EXPECT_EQ(closest, rotate ? (bands - 2) * strips - 1 : strips - 1) << (rotate ? "rotated" : "in order");
  }
}

using Host = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;

// The ghosts (one cell deep) of the wrapped axes (bit 0 y, bit 1 x) copied from the far edge.
void wrap_ghosts(Host h, int ny, int nx, unsigned axes) {
  for (int j = 1; j <= ny && (axes & 2u); ++j) {
    h(j, 0) = h(j, nx);
    h(j, nx + 1) = h(j, 1);
  }
  for (int i = 1; i <= nx && (axes & 1u); ++i) {
    h(0, i) = h(ny, i);
    h(ny + 1, i) = h(1, i);
  }
}

// `count` trips of m steps over an ny x nx block (a 1-deep halo of zeros) whose `axes` wrap.
template <class T>
void compare_wrapped_chain(int ny, int nx, unsigned axes, int m, int count, const TripShape& shape, bool chains) {
  const diffusion::ExecutionSpace space;
  const std::int64_t never = 1000000;
  diffusion::Grid<T> a("a", ny + 2, nx + 2), b("b", ny + 2, nx + 2), x("x", ny + 2, nx + 2), y("y", ny + 2, nx + 2);
  Host h("h", ny + 2, nx + 2);
  std::mt19937_64 random(17 * m + count);
  std::uniform_real_distribution<double> value(-1, 1);
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i) h(j, i) = static_cast<T>(value(random));
  auto field = Kokkos::create_mirror_view(a);
  const auto to_device = [&](const diffusion::Grid<T>& g) {
    for (int j = 0; j < ny + 2; ++j)
      for (int i = 0; i < nx + 2; ++i) field(j, i) = static_cast<T>(h(j, i));
    Kokkos::deep_copy(g, field);
  };
  to_device(x);
  to_device(y);
  Kokkos::View<std::int64_t> bad("bad");
  Kokkos::deep_copy(bad, never);
  const Box block{1, 1 + ny, 1, 1 + nx};
  for (int k = 0; k < m * count; ++k) {  // the one-step kernel, its ghosts wrapped on the host
    wrap_ghosts(h, ny, nx, axes);
    to_device(a);
    diffusion::step<T>(space, a, b, diffusion::Grid<T>(), T(0.25), k, bad, block);
    Kokkos::deep_copy(field, b);
    for (int j = 1; j <= ny; ++j)
      for (int i = 1; i <= nx; ++i) h(j, i) = field(j, i);
  }
  Trip trip;
  trip.first = block;
  if (axes & 1u) trip.first.y0 -= diffusion::kMaxTripSteps, trip.first.y1 += diffusion::kMaxTripSteps;
  if (axes & 2u) trip.first.x0 -= diffusion::kMaxTripSteps, trip.first.x1 += diffusion::kMaxTripSteps;
  trip.add_keep(block);
  diffusion::TripRule<T> rule;
  rule.wrap_axes = axes;
  Kokkos::View<int*> board;
  const int rows = diffusion::step_trips<T>(space, x, y, T(0.25), 0, m, count, bad, trip, shape, board, rule);
  EXPECT_EQ(rows > 0, chains && diffusion::trips_on_device()) << "m " << m;
  auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), count % 2 == 0 ? x : y);
  int mismatches = 0;
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i) {
      const T want = static_cast<T>(h(j, i));
      mismatches += std::memcmp(&want, &got(j, i), sizeof(T)) != 0;
    }
  EXPECT_EQ(mismatches, 0) << "axes " << axes << " m " << m << " trips " << count << " columns " << shape.columns
                          << " rows " << shape.rows;
}

TEST(DiffusionChainTiles, ChainsOfTripsReadWrappedAxesAsTheOneStepKernelWithCopiedGhosts) {
  for (unsigned axes = 1; axes <= 3; ++axes)
    for (int m = 2; m <= diffusion::kMaxTripSteps; ++m) {
      // 47 x 29 cells: strips of 13 leave 8 columns, bands of 10 leave 9 rows, a trip's reach
      compare_wrapped_chain<float>(29, 47, axes, m, 5, TripShape{0, 13, 10}, true);
      compare_wrapped_chain<double>(29, 47, axes, m, 4, TripShape{0, 13, 10}, true);
      // strips of 9 leave 2 columns, bands of 11 leave 7 rows: past them, one launch a trip
      const bool short_last = ((axes & 2u) && m > 2) || ((axes & 1u) && m > 7);
      compare_wrapped_chain<float>(29, 47, axes, m, 3, TripShape{0, 9, 11}, !short_last);
    }
}

}  // namespace
}  // namespace trident
