// Trips of several steps (trip.hpp, forced on a host by the test hooks) with every rule the
// one-step kernels know: each boundary kind (ghosts that follow their edge cells set at each
// step of a trip, neumann's read mirrored, or a lone block's periodic axes read wrapped), a
// source (a number or a field), the anisotropic step (dx != dy) and a diffusivity field, alone
// and together. A run of trips gives every frame (field and
// Laplacian) of the run of one step at a time (forced on a device too) bit for bit, on these
// ranks and on one rank, with tiles that cross many edges (small ones with a tail of short
// bands, or the tiles of chains), and a restart with trips from the one-step run's
// checkpoint ends equal to it.
#include <gtest/gtest.h>

#include <random>

#include "harness.hpp"
#include "support/test_support.hpp"

namespace trident {
namespace {

using core::Precision;
using diffusion::Boundary;
using diffusion::BoundaryKind;
using diffusion::TripShape;

constexpr long kNx = 37, kNy = 29;  // uneven blocks on 2, 3 and 4 ranks

Boundary dirichlet(double v) { return {BoundaryKind::dirichlet, v, 0.0}; }
Boundary convective(double h, double ambient) { return {BoundaryKind::convective, ambient, h}; }
const Boundary kNeumann{BoundaryKind::neumann, 0.0, 0.0};
const Boundary kPeriodic{BoundaryKind::periodic, 0.0, 0.0};

void write_dataset(MPI_Comm comm, const std::string& path, const std::string& name, const std::vector<double>& v) {
  io::OutputFile file(comm, path, true);
  file.write_array<double>(name, v, {static_cast<std::uint64_t>(kNy), static_cast<std::uint64_t>(kNx)});
  file.commit();
}

std::vector<double> random_values(unsigned seed, double low, double high) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> value(low, high);
  std::vector<double> v(static_cast<std::size_t>(kNx * kNy));
  for (double& x : v) x = value(random);
  return v;
}

// The deck of rule `name` (its files written into `folder`).
diffusion::DiffusionSettings rule_deck(MPI_Comm comm, const std::string& name, long width, Precision precision,
                                  const std::string& folder) {
  diffusion::DiffusionSettings s;
  s.nx = kNx;
  s.ny = kNy;
  s.steps = 90;
  s.precision = precision;
  s.c = 0.2;
  s.laplacian = true;
  s.output_every = 7;       // frames inside trips of any length
  s.checkpoint_every = 20;  // and checkpoints (the newest at 80)
  s.start.seed = 9;
  s.halo_width = width;
  const std::array<Boundary, 4> mixed{convective(0.1, 2.0), kNeumann, dirichlet(1.0), convective(0.05, -1.0)};
  const auto source_field = [&] {
    write_dataset(comm, folder + "/s.h5", "/s", random_values(3, -0.02, 0.03));
    s.source.from_file = true;
    s.source.file = folder + "/s.h5";
    s.source.dataset = "/s";
  };
  const auto c_field = [&] {  // a disc of c = 0 (an insulator) inside c from 0.05 to 0.2
    std::vector<double> c = random_values(4, 0.05, 0.2);
    for (long j = 0; j < kNy; ++j)
      for (long i = 0; i < kNx; ++i)
        if ((i - 13) * (i - 13) + (j - 9) * (j - 9) < 36) c[std::size_t(j * kNx + i)] = 0.0;
    write_dataset(comm, folder + "/c.h5", "/c", c);
    s.c_file = folder + "/c.h5";
    s.c_dataset = "/c";
    s.c = 0.0;
  };
  if (name == "neumann") s.boundary.fill(kNeumann);
  // neumann sides mirrored in the trips (trip.hpp) beside the other rules' ghosts and halos
  if (name == "neumann_dirichlet") s.boundary = {kNeumann, dirichlet(1.0), kPeriodic, kPeriodic};
  if (name == "neumann_periodic") s.boundary = {kPeriodic, kPeriodic, kNeumann, dirichlet(0.5)};
  if (name == "convective")
    s.boundary = {convective(0.1, 2.0), convective(0.2, -1.0), convective(0.05, 0.5), convective(0.15, 1.0)};
  if (name == "periodic") s.boundary.fill(kPeriodic);
  // one periodic axis, read wrapped by a lone block's trips as both are
  if (name == "periodic_x") s.boundary = {kPeriodic, kPeriodic, dirichlet(1.0), dirichlet(0.0)};
  if (name == "periodic_y") s.boundary = {dirichlet(0.5), dirichlet(0.0), kPeriodic, kPeriodic};
  if (name == "dirichlet_1") s.boundary.fill(dirichlet(1.0));
  if (name == "mixed") s.boundary = mixed;
  if (name == "source_number") {
    s.source.value = 0.01;
    s.boundary.fill(kNeumann);
  }
  if (name == "source_field") {
    source_field();
    s.boundary = {kPeriodic, kPeriodic, convective(0.1, 0.5), kNeumann};
  }
  if (name == "anisotropic" || name == "anisotropic_rules") {  // c_x = 0.3, c_y = 0.075
    s.D = 2e-5;
    s.dx = 0.01;
    s.dy = 0.02;
    s.dt = 1.5;
    if (name == "anisotropic_rules") {
      s.boundary = mixed;
      s.source.value = 0.001;
    }
  }
  if (name == "c_field") c_field();
  if (name == "c_field_rules") {
    c_field();
    source_field();
    s.boundary = mixed;
  }
  return s;
}

enum class Tiles { small_with_tail, chained, wrapped_chain };

class MpiDiffusionTripRules
    : public testing::TestWithParam<std::tuple<std::string, int, long, std::string, Precision, Tiles>> {};

TEST_P(MpiDiffusionTripRules, WholeRunsGiveTheOneStepBits) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const auto [name, steps, width, shape, precision, tiles] = GetParam();
  const std::string folder = test::scratch_folder(
      comm, "trip_rules_" + name + "_" + std::to_string(steps) + "_" + std::to_string(width) + "_" + shape + "_" +
                core::precision_name(precision) + "_" + std::to_string(int(tiles)));
  diffusion::DiffusionSettings s = rule_deck(comm, name, width, precision, folder);
  s.ranks = test::layout(shape, mpi::size(comm));
  // one step a trip on any back end (a device's rule takes 8)
  diffusion::StudyTestHooks single;
  single.trips.steps = 1;
  const auto one_step = test::run_diffusion(comm, s, folder + "/one_step.h5", "", io::Mode::automatic, single);
  diffusion::StudyTestHooks forced;
  forced.trips = tiles == Tiles::small_with_tail ? TripShape{steps, 3, 4, 2, 2}
                 : tiles == Tiles::chained       ? TripShape{steps, 9, 10}
                                                 : TripShape{steps, 13, 10};
  const auto trips = test::run_diffusion(comm, s, folder + "/trips.h5", "", io::Mode::automatic, forced);
  const auto resumed = test::run_diffusion(comm, s, folder + "/resumed.h5", folder + "/one_step.h5.checkpoint.h5",
                                           io::Mode::automatic, forced);
  ASSERT_EQ(trips.steps, one_step.steps);
  EXPECT_EQ(trips.steps.size(), 14u);  // 0, 7, ..., 84 and 90
  EXPECT_TRUE(test::bitwise_equal(trips.field, one_step.field));
  EXPECT_TRUE(test::bitwise_equal(trips.laplacian, one_step.laplacian));
  ASSERT_EQ(resumed.steps, (std::vector<std::int64_t>{80, 84, 90}));
  const auto last_two = [](const std::vector<double>& frames) {
    return std::vector<double>(frames.end() - 2 * kNx * kNy, frames.end());
  };
  EXPECT_TRUE(test::bitwise_equal(last_two(resumed.field), last_two(one_step.field)));
  EXPECT_TRUE(test::bitwise_equal(last_two(resumed.laplacian), last_two(one_step.laplacian)));
  if (mpi::rank(comm) == 0) {
    diffusion::DiffusionSettings alone = s;
    alone.ranks = {0, 0};
    const auto one = test::run_diffusion(MPI_COMM_SELF, alone, folder + "/one.h5", "", io::Mode::automatic, single);
    EXPECT_TRUE(test::bitwise_equal(trips.field, one.field));
    EXPECT_TRUE(test::bitwise_equal(trips.laplacian, one.laplacian));
    // the rule changed the run: not the default deck's
    diffusion::DiffusionSettings plain;
    plain.nx = kNx;
    plain.ny = kNy;
    plain.steps = s.steps;
    plain.precision = precision;
    plain.c = 0.2;
    plain.output_every = s.output_every;
    plain.start.seed = s.start.seed;
    const auto zero = test::run_diffusion(MPI_COMM_SELF, plain, folder + "/plain.h5");
    EXPECT_FALSE(test::bitwise_equal(trips.field, zero.field));
  }
  MPI_Barrier(comm);
}

const auto kRules = testing::Values("neumann", "neumann_dirichlet", "neumann_periodic", "convective", "periodic",
                                    "periodic_x", "periodic_y", "dirichlet_1", "mixed", "source_number",
                                    "source_field", "anisotropic", "anisotropic_rules", "c_field", "c_field_rules");

const auto kName = [](const auto& info) {
  return std::get<0>(info.param) + "_m" + std::to_string(std::get<1>(info.param)) + "_w" +
         std::to_string(std::get<2>(info.param)) + "_" + std::get<3>(info.param) + "_" +
         core::precision_name(std::get<4>(info.param)) +
         (std::get<5>(info.param) == Tiles::chained         ? "_chained"
          : std::get<5>(info.param) == Tiles::wrapped_chain ? "_wrapped_chain"
                                                            : "_small_tiles");
};

// Trips of 3 steps (the 4-step instance, its length known at run time only) with halos 5
// deep (an exchange every 5 steps: trips of the inside while halos travel, then the rest),
// and of 8 (the 8-step instance at full length) with the default halo.
INSTANTIATE_TEST_SUITE_P(Float32, MpiDiffusionTripRules,
                         testing::Combine(kRules, testing::Values(3), testing::Values(5L), testing::Values("auto"),
                                          testing::Values(Precision::float32), testing::Values(Tiles::small_with_tail)),
                         kName);
INSTANTIATE_TEST_SUITE_P(Float32Long, MpiDiffusionTripRules,
                         testing::Combine(kRules, testing::Values(8), testing::Values(0L), testing::Values("auto"),
                                          testing::Values(Precision::float32), testing::Values(Tiles::small_with_tail)),
                         kName);

// Blocks of 7 and 8 rows on 4 ranks: those under a trip's 8 steps set neumann's ghosts at
// each step, the others mirror them, in one run.
INSTANTIATE_TEST_SUITE_P(Float32Rows, MpiDiffusionTripRules,
                         testing::Combine(testing::Values("neumann", "neumann_periodic"), testing::Values(8),
                                          testing::Values(0L), testing::Values("rows"),
                                          testing::Values(Precision::float32), testing::Values(Tiles::small_with_tail)),
                         kName);

// Strips of 13 columns and bands of 10 rows, whose last ones (11 and 9) hold a trip's reach:
// on one rank (a block alone, periodic axes read wrapped) a device chains trips of 2 and 3
// steps (3 and 2 a chain between the frames, 7 steps apart) across the wrap, where strips of 9
// (the last of 1 column) run one launch a trip.
INSTANTIATE_TEST_SUITE_P(Wrapped, MpiDiffusionTripRules,
                         testing::Combine(testing::Values("periodic", "periodic_x", "periodic_y"),
                                          testing::Values(2, 3), testing::Values(0L), testing::Values("auto"),
                                          testing::Values(Precision::float32, Precision::float64),
                                          testing::Values(Tiles::wrapped_chain)),
                         kName);

// Float's chains with ghosts that follow their edge cells (float64's are below): on a device a
// chain's edge tiles set those ghosts in cell() at each step (trip_kernel.hpp).
INSTANTIATE_TEST_SUITE_P(Float32Chained, MpiDiffusionTripRules,
                         testing::Combine(testing::Values("convective", "mixed"), testing::Values(8),
                                          testing::Values(0L), testing::Values("columns"),
                                          testing::Values(Precision::float32), testing::Values(Tiles::chained)),
                         kName);

INSTANTIATE_TEST_SUITE_P(Float64, MpiDiffusionTripRules,
                         testing::Combine(kRules, testing::Values(8), testing::Values(0L), testing::Values("columns"),
                                          testing::Values(Precision::float64), testing::Values(Tiles::chained)),
                         kName);

// A convective west side whose ambient is near the type's largest value, with h = c (the
// ghost holds the ambient): the west edge's cells grow until 4u overflows a few steps into
// the first trip, where the trips set that ghost at each step (a single trip's edge tiles in
// the step's sides, a chain's in cell()). They stop where the one-step run stops, keeping the
// same frames, on these ranks.
class MpiDiffusionTripRulesOverflow : public testing::TestWithParam<std::tuple<Precision, Tiles>> {};

TEST_P(MpiDiffusionTripRulesOverflow, AFollowingEdgeThatOverflowsStopsTheTripsAtTheOneStepRunsStep) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const auto [precision, tiles] = GetParam();
  const std::string folder = test::scratch_folder(
      comm, std::string("trip_rules_overflow_") + core::precision_name(precision) + "_" + std::to_string(int(tiles)));
  diffusion::DiffusionSettings s = rule_deck(comm, "dirichlet_1", 0, precision, folder);
  s.boundary[0] = convective(0.2, precision == Precision::float32 ? 3e38 : 1.7e308);
  s.ranks = test::layout("columns", mpi::size(comm));
  const auto stop = [&](const diffusion::StudyTestHooks& hooks, const std::string& name) {
    try {
      test::run_diffusion(comm, s, folder + "/" + name + ".h5", "", io::Mode::automatic, hooks);
    } catch (const StudyStopped& e) {
      EXPECT_EQ(e.exit_code(), kExitRunFailure);
      return std::string(e.what());
    }
    return std::string("no stop");
  };
  diffusion::StudyTestHooks single, forced;
  single.trips.steps = 1;
  forced.trips = tiles == Tiles::chained ? TripShape{8, 9, 10} : TripShape{8, 3, 4, 2, 2};
  const std::string one_step = stop(single, "one_step");
  // "... at step N; the output keeps the 1 frame written before it": inside the first trip, not at its first step
  const std::size_t at = one_step.find("at step ");
  ASSERT_NE(at, std::string::npos) << one_step;
  const long step = std::stol(one_step.substr(at + 8));
  EXPECT_GT(step, 1);
  EXPECT_LT(step, s.output_every);
  EXPECT_EQ(stop(forced, "trips"), one_step);
}

INSTANTIATE_TEST_SUITE_P(Overflow, MpiDiffusionTripRulesOverflow,
                         testing::Combine(testing::Values(Precision::float32, Precision::float64),
                                          testing::Values(Tiles::small_with_tail, Tiles::chained)),
                         [](const auto& info) {
                           return std::string(core::precision_name(std::get<0>(info.param))) +
                                  (std::get<1>(info.param) == Tiles::chained ? "_chained" : "_small_tiles");
                         });

}  // namespace
}  // namespace trident
