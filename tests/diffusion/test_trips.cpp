// Several steps per trip through memory (diffusion/detail/trip.hpp) against one step at a time, bit
// for bit: the kernel alone on random fields (every trip length, tile shapes that cross many
// tile edges, halos on some sides, fields that turn non-finite in the middle of a trip), and
// whole runs on 1-4 ranks with frames, checkpoints and restarts inside.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>

#include "core/error.hpp"
#include "diffusion/detail/stencil.hpp"
#include "diffusion/detail/trip.hpp"
#include "diffusion/detail/trip_tuner.hpp"
#include "harness.hpp"
#include "support/test_support.hpp"

namespace trident {
namespace {

using diffusion::Box;
using diffusion::Trip;
using diffusion::TripShape;
using core::Precision;

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// A block of ny x nx cells in a grid with a w-deep halo; `toward` (west, east, south, north)
// says where a neighbour's block lies: there the halo holds values (valid `valid` cells
// deep), elsewhere zeros (the domain's edge), as in a run.
struct Layout {
  int ny, nx, w, valid;
  bool toward[4];
  Box extended(int depth) const {
    return {w - (toward[2] ? depth : 0), w + ny + (toward[3] ? depth : 0), w - (toward[0] ? depth : 0),
            w + nx + (toward[1] ? depth : 0)};
  }
  Trip trip() const {
    Trip t;
    t.first = extended(valid - 1);
    const int shrink[4] = {toward[2], toward[3], toward[0], toward[1]};
    std::copy(shrink, shrink + 4, t.shrink);
    return t;
  }
};

// A field on `g` (halo included), on the host: random values in [-scale, scale] on the block
// and its valid halo, NaN in the halo beyond the valid depth (stale values a correct kernel
// never reads), zero beyond the domain's edge.
template <class T>
Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> layout_field(const Layout& g, double scale, unsigned seed) {
  const int rows = g.ny + 2 * g.w, columns = g.nx + 2 * g.w;
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> host("field", rows, columns);
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> value(-scale, scale);
  const Box valid = g.extended(g.valid);
  for (int j = 0; j < rows; ++j)
    for (int i = 0; i < columns; ++i) {
      const bool in_valid = j >= valid.y0 && j < valid.y1 && i >= valid.x0 && i < valid.x1;
      const bool in_block = j >= g.w && j < g.w + g.ny && i >= g.w && i < g.w + g.nx;
      const bool stale = !in_valid && ((i < g.w && g.toward[0]) || (i >= g.w + g.nx && g.toward[1]) ||
                                       (j < g.w && g.toward[2]) || (j >= g.w + g.ny && g.toward[3]));
      host(j, i) = in_valid || in_block ? static_cast<T>(value(random))
                   : stale                ? std::numeric_limits<T>::quiet_NaN()
                                          : T(0);
    }
  return host;
}

// m steps of the one-step kernel on step_box(k) against one trip of m steps that keeps
// `keeps`; the kept cells must match bit for bit, nothing else may be written, and the first
// non-finite step must be the same. Returns that step (or `never`). With `tuner`, the trip's
// shape comes from it (its trial trips write into the same output first).
template <class T>
std::int64_t compare_trip(const Layout& g, int m, const std::vector<Box>& keeps, const TripShape& shape, double c,
                          double scale, unsigned seed, diffusion::TripTuner* tuner = nullptr) {
  const std::int64_t start = 40, never = 1000000;
  const int rows = g.ny + 2 * g.w, columns = g.nx + 2 * g.w;
  diffusion::Grid<T> u("u", rows, columns), a("a", rows, columns), b("b", rows, columns), out("out", rows, columns);
  Kokkos::deep_copy(u, layout_field<T>(g, scale, seed));
  Kokkos::deep_copy(a, u);
  Kokkos::deep_copy(b, u);
  Kokkos::deep_copy(out, T(-7));
  Kokkos::View<std::int64_t> bad_one("bad_one"), bad_trip("bad_trip");
  Kokkos::deep_copy(bad_one, never);
  Kokkos::deep_copy(bad_trip, never);
  const diffusion::ExecutionSpace space;
  Trip trip = g.trip();
  for (const Box& k : keeps) trip.add_keep(k);
  for (int k = 0; k < m; ++k) {
    diffusion::step<T>(space, a, b, diffusion::Grid<T>(), static_cast<T>(c), start + k, bad_one, trip.step_box(k));
    std::swap(a, b);
  }
  const TripShape used =
      tuner ? tuner->shape_for(0, space, u, out, static_cast<T>(c), m, trip, shape) : shape;
  diffusion::step_trip<T>(space, u, out, static_cast<T>(c), start, m, bad_trip, trip, used);
  auto one = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  int mismatches = 0, stray = 0;
  for (int j = 0; j < rows; ++j)
    for (int i = 0; i < columns; ++i) {
      bool kept = false;
      for (const Box& k : keeps) kept = kept || (j >= k.y0 && j < k.y1 && i >= k.x0 && i < k.x1);
      if (kept)
        mismatches += !same_bits(one(j, i), got(j, i));
      else
        stray += !same_bits(got(j, i), T(-7));
    }
  std::int64_t first_one = 0, first_trip = 0;
  Kokkos::deep_copy(first_one, bad_one);
  Kokkos::deep_copy(first_trip, bad_trip);
  EXPECT_EQ(mismatches, 0) << "m " << m << " columns " << shape.columns << " rows " << shape.rows << " tail "
                          << shape.tail_bands << " x " << shape.tail_rows;
  EXPECT_EQ(stray, 0);
  EXPECT_EQ(first_trip, first_one) << "m " << m;
  return first_one;
}

template <class T>
void every_trip_length(double c, double scale) {
  const Layout alone{23, 41, 1, 1, {false, false, false, false}};
  const Layout corner{21, 30, 9, 9, {false, true, true, false}};   // neighbours east and south
  const Layout middle{18, 27, 8, 8, {true, true, true, true}};     // neighbours all round
  const Layout shallow{19, 25, 9, 6, {true, false, false, true}};  // halo valid 6 of 9 deep
  for (int m = 2; m <= diffusion::kMaxTripSteps; ++m) {
    // ... and tails of short bands: after tall ones, and after the rule's
    for (const TripShape& shape : {TripShape{}, TripShape{0, 5, 3}, TripShape{0, 1, 1}, TripShape{0, 13, 7},
                                   TripShape{0, 6, 5, 2, 3}, TripShape{0, 0, 0, 1, 4}}) {
      const unsigned seed = static_cast<unsigned>(100 * m + shape.columns);
      compare_trip<T>(alone, m, {alone.extended(0)}, shape, c, scale, seed);
      for (const Layout& g : {corner, middle, shallow}) {
        if (m > g.valid) continue;
        compare_trip<T>(g, m, {g.extended(g.valid - m)}, shape, c, scale, seed + 1);
        // the kept cells in several boxes, as a trip after an exchange keeps them
        const Box all = g.extended(g.valid - m);
        const Box in{all.y0 + 2, all.y1 - 3, all.x0 + 4, all.x1 - 1};
        compare_trip<T>(g, m,
                        {{all.y0, in.y0, all.x0, all.x1}, {in.y1, all.y1, all.x0, all.x1},
                         {in.y0, in.y1, all.x0, in.x0}, {in.y0, in.y1, in.x1, all.x1}},
                        shape, c, scale, seed + 2);
      }
    }
  }
}

TEST(DiffusionTrips, EveryTripLengthAndTileShapeGivesTheOneStepBitsFloat) { every_trip_length<float>(0.25, 1.0); }
TEST(DiffusionTrips, EveryTripLengthAndTileShapeGivesTheOneStepBitsDouble) { every_trip_length<double>(0.21, 1.0); }

// Timed tiles' heights (trip_tuner.hpp): the trial trips change no bit of the result (they
// write only the kept cells, which the trip then writes again, and leave u alone), run once a
// kind, on a trip of the full length only, and not at all when the shape forces the rows.
TEST(DiffusionTrips, TimedTileHeightsKeepTheBitsAndAreTimedOnceAKind) {
  const Layout alone{23, 41, 1, 1, {false, false, false, false}};
  const Layout middle{18, 27, 8, 8, {true, true, true, true}};
  using When = diffusion::TripTuner::When;
  diffusion::TripTuner tuner(When::always);
  compare_trip<float>(alone, 4, {alone.extended(0)}, TripShape{}, 0.2, 1.0, 11, &tuner);
  const int trials = tuner.trials();
  EXPECT_GT(trials, 2);
  compare_trip<float>(alone, 4, {alone.extended(0)}, TripShape{}, 0.2, 1.0, 12, &tuner);
  EXPECT_EQ(tuner.trials(), trials);
  Trip kept = alone.trip();
  kept.add_keep(alone.extended(0));
  const std::vector<int> heights =  // 23 rows: no height halfway to a neighbour's
      diffusion::tile_row_candidates(23, diffusion::rule_tile_rows<float>(diffusion::ExecutionSpace(), kept, 4));
  EXPECT_NE(std::find(heights.begin(), heights.end(), tuner.rows_of(0)), heights.end()) << tuner.rows_of(0);
  EXPECT_EQ(tuner.rows_of(1), 0);

  diffusion::TripTuner rims(When::always);  // a trip of several boxes with halos, in double
  const Box all = middle.extended(middle.valid - 3);
  const Box in{all.y0 + 2, all.y1 - 3, all.x0 + 4, all.x1 - 1};
  compare_trip<double>(middle, 3,
                       {{all.y0, in.y0, all.x0, all.x1}, {in.y1, all.y1, all.x0, all.x1},
                        {in.y0, in.y1, all.x0, in.x0}, {in.y0, in.y1, in.x1, all.x1}},
                       TripShape{}, 0.2, 1.0, 13, &rims);
  EXPECT_GT(rims.trials(), 1);

  diffusion::TripTuner longer(When::always, 6);  // times trips of 6 steps only
  compare_trip<float>(alone, 4, {alone.extended(0)}, TripShape{}, 0.2, 1.0, 15, &longer);
  EXPECT_EQ(longer.trials(), 0);
  EXPECT_EQ(longer.rows_of(0), 0);
  compare_trip<float>(alone, 6, {alone.extended(0)}, TripShape{}, 0.2, 1.0, 16, &longer);
  EXPECT_GT(longer.trials(), 0);
  EXPECT_GT(longer.rows_of(0), 0);

  diffusion::TripTuner forced(When::always);
  compare_trip<float>(alone, 4, {alone.extended(0)}, TripShape{0, 0, 5}, 0.2, 1.0, 14, &forced);
  EXPECT_EQ(forced.trials(), 0);
  EXPECT_EQ(forced.rows_of(0), 0);
}

TEST(DiffusionTrips, TheTimedHeightsAreALadderTheRulesAndHalfwayToTheFastestsNeighbours) {
  EXPECT_EQ(diffusion::tile_row_candidates(1000, 147), (std::vector<int>{16, 24, 32, 48, 64, 96, 128, 192, 256, 147}));
  EXPECT_EQ(diffusion::tile_row_candidates(100, 64), (std::vector<int>{16, 24, 32, 48, 64, 96, 100}));
  EXPECT_EQ(diffusion::tile_row_candidates(20, 20), (std::vector<int>{16, 20}));
  EXPECT_EQ(diffusion::tile_row_candidates(10, 10), std::vector<int>{10});
  const std::vector<int> tried{16, 24, 32, 48, 64, 96, 128, 192, 256, 147};
  EXPECT_EQ(diffusion::tile_row_refinements(48, tried), (std::vector<int>{40, 56}));
  EXPECT_EQ(diffusion::tile_row_refinements(147, tried), (std::vector<int>{136, 168}));
  EXPECT_EQ(diffusion::tile_row_refinements(16, tried), std::vector<int>{});  // 20 rounds to 16
  EXPECT_EQ(diffusion::tile_row_refinements(256, tried), std::vector<int>{224});
  EXPECT_EQ(diffusion::tile_row_refinements(77, tried), std::vector<int>{});  // not among those tried
}

// `count` trips of m steps in one step_trips call (a chain on a device) against count m
// steps of the one-step kernel on the boxes those trips update: the last trip's kept cells
// bit for bit and the first non-finite step the same. The second grid holds -7 wherever the
// first trip writes, so a trip that read a cell the trip before did not write would show.
template <class T>
std::int64_t compare_chain(const Layout& g, int m, int count, const TripShape& shape, double c, double scale,
                           unsigned seed) {
  const std::int64_t start = 40, never = 1000000;
  const int rows = g.ny + 2 * g.w, columns = g.nx + 2 * g.w;
  diffusion::Grid<T> a("a", rows, columns), b("b", rows, columns), x("x", rows, columns), y("y", rows, columns);
  const auto host = layout_field<T>(g, scale, seed);  // its own copy: it changes after a, b and x
  const Box keep = g.extended(g.valid - m);
  Kokkos::deep_copy(a, host);
  Kokkos::deep_copy(b, host);
  Kokkos::deep_copy(x, host);
  for (int j = keep.y0; j < keep.y1; ++j)
    for (int i = keep.x0; i < keep.x1; ++i) host(j, i) = T(-7);
  Kokkos::deep_copy(y, host);
  Kokkos::View<std::int64_t> bad_one("bad_one"), bad_chain("bad_chain");
  Kokkos::deep_copy(bad_one, never);
  Kokkos::deep_copy(bad_chain, never);
  const diffusion::ExecutionSpace space;
  Trip trip = g.trip();
  trip.add_keep(keep);
  for (int k = 0; k < m * count; ++k) {
    diffusion::step<T>(space, a, b, diffusion::Grid<T>(), static_cast<T>(c), start + k, bad_one, trip.step_box(k));
    std::swap(a, b);
  }
  Kokkos::View<int*> board;
  const int chain_rows =
      diffusion::step_trips<T>(space, x, y, static_cast<T>(c), start, m, count, bad_chain, trip, shape, board);
  // a host runs the trips one by one, and so does a device where the rule's tiles would be
  // short (these grids are all small)
  EXPECT_EQ(chain_rows > 0, diffusion::trips_on_device() && shape.rows > 0);
  auto one = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), count % 2 == 0 ? x : y);
  const Box last = trip.shrunk(keep, m * (count - 1));  // what the last trip keeps
  int mismatches = 0;
  for (int j = last.y0; j < last.y1; ++j)
    for (int i = last.x0; i < last.x1; ++i) mismatches += !same_bits(one(j, i), got(j, i));
  std::int64_t first_one = 0, first_chain = 0;
  Kokkos::deep_copy(first_one, bad_one);
  Kokkos::deep_copy(first_chain, bad_chain);
  EXPECT_GT(last.cells(), 0);
  EXPECT_EQ(mismatches, 0) << "m " << m << " trips " << count << " columns " << shape.columns << " rows "
                          << shape.rows << " halo " << g.valid;
  EXPECT_EQ(first_chain, first_one) << "m " << m << " trips " << count;
  return first_one;
}

// Chains of trips on a block alone and with deep halos used up trip by trip, with the rule's
// tiles and with tiles of a few cells (many neighbours to wait for).
TEST(DiffusionTrips, AChainOfTripsGivesTheOneStepBits) {
  const Layout alone{23, 41, 1, 1, {false, false, false, false}};
  const Layout corner{21, 30, 9, 9, {false, true, true, false}};
  const Layout middle{18, 27, 8, 8, {true, true, true, true}};
  const Layout shallow{19, 25, 9, 6, {true, false, false, true}};
  for (int m = 2; m <= diffusion::kMaxTripSteps; ++m)
    for (const TripShape& shape : {TripShape{}, TripShape{0, 8, 8}, TripShape{0, m, m}, TripShape{0, 9, 11}}) {
      const unsigned seed = static_cast<unsigned>(10 * m + shape.rows);
      for (int count : {2, 3, 5}) {
        compare_chain<float>(alone, m, count, shape, 0.25, 1.0, seed);
        compare_chain<double>(alone, m, count, shape, 0.21, 1.0, seed + 1);
      }
      for (const Layout& g : {corner, middle, shallow})
        for (int count = 2; count * m <= g.valid; ++count) compare_chain<float>(g, m, count, shape, 0.25, 1.0, seed);
    }
}

// Overflow some steps into the chain, at different steps in different cells.
TEST(DiffusionTrips, TheFirstNonFiniteStepInAChainIsTheOneStepKernels) {
  const Layout alone{20, 33, 1, 1, {false, false, false, false}};
  std::int64_t latest = 0;
  for (int m = 2; m <= diffusion::kMaxTripSteps; ++m)
    for (const TripShape& shape : {TripShape{}, TripShape{0, 8, 8}})
      latest = std::max(latest, compare_chain<float>(alone, m, 4, shape, 30.0, 1e34, m));
  EXPECT_GT(latest, 41);
  EXPECT_LT(latest, 1000000);
}

// An unstable c (a kernel-level test: the deck refuses c > 0.25) makes large values overflow
// some steps into the trip, at different steps in different cells.
TEST(DiffusionTrips, TheFirstNonFiniteStepInsideATripIsTheOneStepKernels) {
  const Layout alone{20, 33, 1, 1, {false, false, false, false}};
  const Layout middle{18, 27, 8, 8, {true, true, true, true}};
  std::int64_t latest = 0;
  for (int m = 3; m <= diffusion::kMaxTripSteps; ++m)
    for (const TripShape& shape : {TripShape{}, TripShape{0, 4, 2}, TripShape{0, 4, 3, 1, 5}}) {
      latest = std::max(latest, compare_trip<float>(alone, m, {alone.extended(0)}, shape, 30.0, 1e34, m));
      latest = std::max(latest, compare_trip<double>(middle, m, {middle.extended(middle.valid - m)}, shape, 30.0,
                                                     1e302, m));
    }
  EXPECT_GT(latest, 41);  // some overflow came after the trip's first step (step 40)
  EXPECT_LT(latest, 1000000);
}

// The rule: one step on host back ends, and a forced shape wins there too, capped by the
// halo's width on several ranks and by kMaxTripSteps.
TEST(DiffusionTrips, StepsPerTripFollowTheRuleAndTheForcedShape) {
  const int device = Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                                diffusion::ExecutionSpace::memory_space>::accessible
                         ? 1
                         : diffusion::kDeviceTripSteps;
  EXPECT_EQ(diffusion::steps_per_trip(true, 1), device);
  EXPECT_EQ(diffusion::steps_per_trip(false, 2), std::min(device, 2));
  EXPECT_EQ(diffusion::steps_per_trip(true, 1, 6), 6);
  EXPECT_EQ(diffusion::steps_per_trip(false, 4, 6), 4);
  EXPECT_EQ(diffusion::steps_per_trip(false, 16, 6), 6);
  EXPECT_EQ(diffusion::steps_per_trip(true, 1, 50), diffusion::kMaxTripSteps);
  EXPECT_EQ(diffusion::describe_trips(1), "1 step per trip through memory (the one-step kernel)");
}

diffusion::DiffusionSettings uneven(long halo_width, Precision precision) {
  diffusion::DiffusionSettings s;
  s.nx = 37;  // uneven blocks on 2, 3 and 4 ranks; the smallest side is at least 7
  s.ny = 29;
  s.steps = 90;
  s.precision = precision;
  s.laplacian = true;
  s.output_every = 7;       // frames inside trips of any length
  s.checkpoint_every = 20;  // and checkpoints (the newest at 80)
  s.start.seed = 9;
  s.halo_width = halo_width;
  return s;
}


// The tiles of the trips: the rule's and timed heights, a few cells with a tail of short
// bands, or a few cells without (chains of trips on a device: trip.hpp's step_trips).
enum class Tiles { timed, small_with_tail, chained };

class MpiDiffusionTrips
    : public testing::TestWithParam<std::tuple<int, long, std::string, Precision, Tiles>> {};

// Trips of `steps` against one step at a time on these ranks and on one rank: every frame
// (field and Laplacian), and the run resumed from the newest checkpoint with trips.
TEST_P(MpiDiffusionTrips, WholeRunsGiveTheOneStepBits) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const auto [steps, width, shape, precision, tiles] = GetParam();
  const std::string folder =
      test::scratch_folder(comm, "trips_" + std::to_string(steps) + "_" + std::to_string(width) + "_" + shape + "_" +
                                     core::precision_name(precision) + "_" + std::to_string(int(tiles)));
  diffusion::DiffusionSettings s = uneven(width, precision);
  s.ranks = test::layout(shape, mpi::size(comm));
  const auto one_step = test::run_diffusion(comm, s, folder + "/one_step.h5");
  diffusion::StudyTestHooks forced;
  forced.trips.steps = steps;
  if (tiles == Tiles::small_with_tail) forced.trips = TripShape{steps, 3, 4, 2, 2};
  if (tiles == Tiles::chained) forced.trips = TripShape{steps, 9, 10};
  forced.time_tiles = tiles == Tiles::timed;
  const test::DiffusionOutput trips =
      test::run_diffusion(comm, s, folder + "/trips.h5", "", io::Mode::automatic, forced);
  const test::DiffusionOutput resumed = test::run_diffusion(
      comm, s, folder + "/resumed.h5", folder + "/one_step.h5.checkpoint.h5", io::Mode::automatic, forced);
  ASSERT_EQ(trips.steps, one_step.steps);
  EXPECT_EQ(trips.steps.size(), 14u);  // 0, 7, ..., 84 and 90
  EXPECT_TRUE(test::bitwise_equal(trips.field, one_step.field));
  EXPECT_TRUE(test::bitwise_equal(trips.laplacian, one_step.laplacian));
  ASSERT_EQ(resumed.steps, (std::vector<std::int64_t>{80, 84, 90}));
  const auto last_two = [n = static_cast<std::ptrdiff_t>(s.nx * s.ny)](const std::vector<double>& frames) {
    return std::vector<double>(frames.end() - 2 * n, frames.end());
  };
  EXPECT_TRUE(test::bitwise_equal(last_two(resumed.field), last_two(one_step.field)));
  EXPECT_TRUE(test::bitwise_equal(last_two(resumed.laplacian), last_two(one_step.laplacian)));
  if (mpi::rank(comm) == 0) {
    diffusion::DiffusionSettings alone = s;
    alone.ranks = {0, 0};
    const auto one = test::run_diffusion(MPI_COMM_SELF, alone, folder + "/one.h5");
    EXPECT_TRUE(test::bitwise_equal(trips.field, one.field));
    EXPECT_TRUE(test::bitwise_equal(trips.laplacian, one.laplacian));
  }
  MPI_Barrier(comm);
}

INSTANTIATE_TEST_SUITE_P(
    Float32, MpiDiffusionTrips,
    testing::Combine(testing::Values(2, 3, 8), testing::Values(0L, 5L), testing::Values("auto", "rows", "columns"),
                     testing::Values(Precision::float32), testing::Values(Tiles::small_with_tail, Tiles::chained)),
    [](const auto& info) {
      return "m" + std::to_string(std::get<0>(info.param)) + "_w" + std::to_string(std::get<1>(info.param)) + "_" +
             std::get<2>(info.param) + (std::get<4>(info.param) == Tiles::chained ? "_chained" : "_small_tiles");
    });

// The rule's tiles (on a host: one strip, rows as the rule gives them).
INSTANTIATE_TEST_SUITE_P(
    RuleTiles, MpiDiffusionTrips,
    testing::Combine(testing::Values(2, 8), testing::Values(0L), testing::Values("auto"),
                     testing::Values(Precision::float32), testing::Values(Tiles::timed)),
    [](const auto& info) {
      return "m" + std::to_string(std::get<0>(info.param)) + "_w" + std::to_string(std::get<1>(info.param)) + "_" +
             std::get<2>(info.param);
    });

INSTANTIATE_TEST_SUITE_P(
    Float64, MpiDiffusionTrips,
    testing::Combine(testing::Values(4, 7), testing::Values(0L, 3L), testing::Values("auto"),
                     testing::Values(Precision::float64), testing::Values(Tiles::small_with_tail, Tiles::chained)),
    [](const auto& info) {
      return "m" + std::to_string(std::get<0>(info.param)) + "_w" + std::to_string(std::get<1>(info.param)) +
             "_float64" + (std::get<4>(info.param) == Tiles::chained ? "_chained" : "");
    });

// A value that overflows at the first step, on the edge between blocks, stops a run of
// trips at step 1 as it stops the one-step run.
TEST(MpiDiffusionTripsNonFinite, OverflowInTheFirstTripStopsAtStepOne) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "trips_overflow");
  const long nx = 16, ny = 12;
  std::vector<double> u0(static_cast<std::size_t>(nx * ny), 0.5);
  u0[6 * nx + 8] = 3e38;
  test::write_start_file(comm, folder + "/u0.h5", u0, nx, ny);
  diffusion::DiffusionSettings s = test::from_file(nx, ny, 40, folder + "/u0.h5");
  s.halo_width = 4;
  const diffusion::StudyTestHooks forced{TripShape{4, 2, 3}};
  test::expect_overflow_at_first_step(
      [&] { test::run_diffusion(comm, s, folder + "/out.h5", "", io::Mode::automatic, forced); });
}

}  // namespace
}  // namespace trident
