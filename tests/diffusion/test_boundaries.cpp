// diffusion.boundary: each rule against its exact answer (neumann keeps the total, convective
// changes it by the edges' fluxes, periodic decays a Fourier mode by the scheme's factor,
// dirichlet and neumann reach the linear steady profile), each rule's ghost and the step's
// order against a serial loop in the run's precision (bit for bit, on a CPU), and every rule
// bitwise the same on any rank count, block layout, halo width and trip length, through
// restarts; a restart with another boundary is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "harness.hpp"
#include "support/test_support.hpp"

namespace trident {
namespace {

using core::Precision;
using diffusion::Boundary;
using diffusion::BoundaryKind;

Boundary dirichlet(double v) { return {BoundaryKind::dirichlet, v, 0.0}; }
Boundary convective(double h, double ambient) { return {BoundaryKind::convective, ambient, h}; }
const Boundary kNeumann{BoundaryKind::neumann, 0.0, 0.0};
const Boundary kPeriodic{BoundaryKind::periodic, 0.0, 0.0};

// The rule sets the tests run, by name.
std::array<Boundary, 4> sides_named(const std::string& name) {
  if (name == "dirichlet") return {dirichlet(1), dirichlet(-0.5), dirichlet(0.25), dirichlet(2)};
  if (name == "neumann") return {kNeumann, kNeumann, kNeumann, kNeumann};
  if (name == "periodic") return {kPeriodic, kPeriodic, kPeriodic, kPeriodic};
  if (name == "periodic_x") return {kPeriodic, kPeriodic, dirichlet(1), kNeumann};
  if (name == "periodic_y") return {convective(0.3, -1), dirichlet(0.5), kPeriodic, kPeriodic};
  return {convective(0.1, 2), kNeumann, dirichlet(1), convective(0.05, -1)};  // "mixed"
}

std::vector<double> random_field(long nx, long ny, unsigned seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> value(0.0, 1.0);
  std::vector<double> u(static_cast<std::size_t>(nx * ny));
  for (double& v : u) v = value(random);
  return u;
}

double total(const std::vector<double>& u, std::size_t frame, std::size_t cells) {
  double sum = 0;
  for (std::size_t k = frame * cells; k < (frame + 1) * cells; ++k) sum += u[k];
  return sum;
}

class MpiDiffusionBoundaries
    : public testing::TestWithParam<std::tuple<std::string, long, std::string, int, Precision>> {};

// Every frame (field and Laplacian) of a run on these ranks, with this halo and trips of this
// length, against one rank with one step a trip; and a run resumed from a checkpoint.
TEST_P(MpiDiffusionBoundaries, EveryLayoutHaloAndTripGivesTheOneRankBits) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const auto [name, width, shape, trip, precision] = GetParam();
  const std::string folder = test::scratch_folder(
      comm, "boundaries_" + name + "_" + std::to_string(width) + "_" + shape + "_" + std::to_string(trip) + "_" +
                core::precision_name(precision));
  diffusion::DiffusionSettings s = test::grid(37, 29, 90, precision);
  s.c = 0.2;
  s.laplacian = true;
  s.output_every = 7;
  s.checkpoint_every = 40;
  s.start.seed = 5;
  s.halo_width = width;
  s.boundary = sides_named(name);
  s.ranks = test::layout(shape, mpi::size(comm));
  diffusion::StudyTestHooks hooks;
  if (trip > 0) hooks.trips = diffusion::TripShape{trip, 9, 10};
  test::LayoutRuns runs;
  test::check_layout_runs(comm, s, folder, hooks, /*resumed_laplacian=*/true, runs);
  EXPECT_EQ(runs.resumed.steps, (std::vector<std::int64_t>{80, 84, 90}));
  if (mpi::rank(comm) == 0 && !HasFatalFailure()) {
    // the rules changed the field: not the default's run
    diffusion::DiffusionSettings plain = s;
    plain.ranks = {0, 0};
    plain.halo_width = 0;
    plain.boundary = {};
    const auto zero = test::run_diffusion(MPI_COMM_SELF, plain, folder + "/plain.h5");
    EXPECT_FALSE(test::bitwise_equal(runs.many.field, zero.field));
  }
  MPI_Barrier(comm);
}

const auto kName = [](const auto& info) {
  return std::get<0>(info.param) + "_w" + std::to_string(std::get<1>(info.param)) + "_" + std::get<2>(info.param) +
         "_m" + std::to_string(std::get<3>(info.param)) + "_" + core::precision_name(std::get<4>(info.param));
};

INSTANTIATE_TEST_SUITE_P(
    Rules, MpiDiffusionBoundaries,
    testing::Combine(testing::Values("dirichlet", "neumann", "periodic", "periodic_x", "periodic_y", "mixed"),
                     testing::Values(1L, 4L), testing::Values("auto", "rows", "columns"), testing::Values(0, 4),
                     testing::Values(Precision::float32)),
    kName);

INSTANTIATE_TEST_SUITE_P(
    Float64, MpiDiffusionBoundaries,
    testing::Combine(testing::Values("periodic", "mixed"), testing::Values(0L), testing::Values("auto"),
                     testing::Values(3), testing::Values(Precision::float64)),
    kName);

// Settings for the exact answers: float64, the start field from `path`:/u0.
diffusion::DiffusionSettings exact(MPI_Comm comm, const std::string& path, const std::vector<double>& u0, long nx, long ny,
                              long steps) {
  test::write_start_file(comm, path, u0, nx, ny);
  diffusion::DiffusionSettings s = test::from_file(nx, ny, steps, path);
  s.precision = Precision::float64;
  return s;
}

// No flux through any edge: the total stays what it was, to rounding, over 10^4 steps.
TEST(MpiDiffusionBoundaryAnswers, NeumannKeepsTheTotal) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "boundary_neumann_total");
  const long nx = 24, ny = 20;
  diffusion::DiffusionSettings s = exact(comm, folder + "/u0.h5", random_field(nx, ny, 11), nx, ny, 10000);
  s.c = 0.24;
  s.boundary = sides_named("neumann");
  const auto out = test::run_diffusion(comm, s, folder + "/out.h5");
  const std::size_t cells = std::size_t(nx * ny);
  const double before = total(out.field, 0, cells), after = total(out.field, 1, cells);
  EXPECT_NEAR(after, before, 1e-12 * before);
  // and it has diffused: the field is nearly flat at the mean
  const auto last = out.last_field();
  for (double v : last) EXPECT_NEAR(v, before / double(cells), 1e-6);
}

// With convective sides, each step changes the total by the sum over the edge faces of
// h (ambient - u_edge) (a corner cell has two); the other sides here are neumann (no flux).
TEST(MpiDiffusionBoundaryAnswers, ConvectiveSidesChangeTheTotalByTheEdgeFluxes) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "boundary_convective_flux");
  const long nx = 17, ny = 13;
  diffusion::DiffusionSettings s = exact(comm, folder + "/u0.h5", random_field(nx, ny, 12), nx, ny, 30);
  s.c = 0.2;
  s.output_every = 1;
  s.boundary = {convective(0.1, 2.0), kNeumann, convective(0.3, -1.0), convective(0.05, 0.5)};
  const auto out = test::run_diffusion(comm, s, folder + "/out.h5");
  ASSERT_EQ(out.steps.size(), 31u);
  const std::size_t cells = std::size_t(nx * ny);
  for (std::size_t k = 0; k + 1 < out.steps.size(); ++k) {
    const double* u = out.field.data() + k * cells;
    double flux = 0;
    for (long j = 0; j < ny; ++j) flux += 0.1 * (2.0 - u[j * nx]);                // west
    for (long i = 0; i < nx; ++i) flux += 0.3 * (-1.0 - u[i]);                    // south
    for (long i = 0; i < nx; ++i) flux += 0.05 * (0.5 - u[(ny - 1) * nx + i]);   // north
    EXPECT_NEAR(total(out.field, k + 1, cells) - total(out.field, k, cells), flux, 1e-12) << "step " << k;
  }
}

// On a periodic grid cos(2 pi m x / nx) cos(2 pi n y / ny) is an eigenvector of the step:
// each step multiplies it by 1 - c (4 - 2 cos(2 pi m / nx) - 2 cos(2 pi n / ny)).
TEST(MpiDiffusionBoundaryAnswers, PeriodicDecaysAFourierModeByTheSchemesFactor) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const long nx = 32, ny = 24;
  for (const auto& [m, n, steps] : {std::tuple<int, int, long>{1, 1, 200}, {3, 2, 25}}) {
    const std::string folder =
        test::scratch_folder(comm, "boundary_fourier_" + std::to_string(m) + "_" + std::to_string(n));
    std::vector<double> u0(std::size_t(nx * ny));
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i)
        u0[std::size_t(j * nx + i)] = std::cos(2 * M_PI * m * double(i) / nx) * std::cos(2 * M_PI * n * double(j) / ny);
    diffusion::DiffusionSettings s = exact(comm, folder + "/u0.h5", u0, nx, ny, steps);
    s.c = 0.2;
    s.boundary = sides_named("periodic");
    const auto out = test::run_diffusion(comm, s, folder + "/out.h5");
    const double factor = std::pow(1 - 0.2 * (4 - 2 * std::cos(2 * M_PI * m / nx) - 2 * std::cos(2 * M_PI * n / ny)),
                                   double(steps));
    ASSERT_GT(factor, 1e-3);
    const auto last = out.last_field();
    double worst = 0;
    for (std::size_t k = 0; k < last.size(); ++k) worst = std::max(worst, std::abs(last[k] - factor * u0[k]));
    EXPECT_LT(worst, 1e-12) << "mode " << m << ", " << n;
  }
}

// dirichlet 1 on the west, 0 on the east, no flux through south and north: the field settles
// on the line through the ghosts' centres, u(i) = (nx - i) / (nx + 1), whatever the start.
TEST(MpiDiffusionBoundaryAnswers, DirichletAndNeumannReachTheLinearSteadyProfile) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "boundary_linear");
  const long nx = 12, ny = 8;
  diffusion::DiffusionSettings s = exact(comm, folder + "/u0.h5", random_field(nx, ny, 13), nx, ny, 4000);
  s.c = 0.25;
  s.boundary = {dirichlet(1), dirichlet(0), kNeumann, kNeumann};
  const auto last = test::run_diffusion(comm, s, folder + "/out.h5").last_field();
  for (long j = 0; j < ny; ++j)
    for (long i = 0; i < nx; ++i) EXPECT_NEAR(last[std::size_t(j * nx + i)], double(nx - i) / double(nx + 1), 1e-10);
}

// Each rule's ghost as docs/diffusion.md gives it, and the step's documented order, in the
// run's precision: the ghosts from this step's edge cells (dirichlet V, neumann u_e,
// convective u_e + r (A - u_e) with r = h / c rounded once), then L(u) = 4u - (((W + E) + S) + N)
// and u - c L(u), each product and sum rounded; the field and the last frame's L(u) bit for bit.
// The answers above hold to 1e-12, which other orders pass. On a GPU nvcc fuses products into
// sums as it chooses, so there the kernels are held to each other (MpiDiffusionTripRules).
template <class T>
void check_ghosts_and_order(const Precision precision) {
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  GTEST_SKIP() << "a GPU build's products are fused into its sums by the compiler";
#endif
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "boundary_order");
  const long nx = 19, ny = 14, steps = 12;
  std::vector<double> u0 = random_field(nx, ny, 13);
  for (double& v : u0) v = T(v);
  diffusion::DiffusionSettings s = exact(comm, folder + "/u0.h5", u0, nx, ny, steps);
  s.precision = precision;
  s.c = 0.2;
  s.laplacian = true;
  s.boundary = {convective(0.1, 2.0), dirichlet(-0.5), kNeumann, convective(0.07, 0.25)};
  const auto out = test::run_diffusion(comm, s, folder + "/out.h5");
  const T c = T(s.c);
  std::vector<T> u(u0.begin(), u0.end()), next(u.size());
  const auto ghost = [&](const Boundary& b, T edge) {
    if (b.kind == BoundaryKind::dirichlet) return T(b.value);
    if (b.kind == BoundaryKind::neumann) return edge;
    return edge + T(b.h / s.c) * (T(b.value) - edge);
  };
  const auto at = [&](long i, long j) {  // a ghost from the edge cell beside it
    if (i < 0) return ghost(s.boundary[diffusion::kWest], u[std::size_t(j * nx)]);
    if (i >= nx) return ghost(s.boundary[diffusion::kEast], u[std::size_t(j * nx + nx - 1)]);
    if (j < 0) return ghost(s.boundary[diffusion::kSouth], u[std::size_t(i)]);
    if (j >= ny) return ghost(s.boundary[diffusion::kNorth], u[std::size_t((ny - 1) * nx + i)]);
    return u[std::size_t(j * nx + i)];
  };
  const auto laplacian = [&](long i, long j) {
    return T(4) * at(i, j) - (((at(i - 1, j) + at(i + 1, j)) + at(i, j - 1)) + at(i, j + 1));
  };
  for (long k = 0; k < steps; ++k) {
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) next[std::size_t(j * nx + i)] = at(i, j) - c * laplacian(i, j);
    u.swap(next);
  }
  EXPECT_TRUE(test::bitwise_equal(out.last_field(), std::vector<double>(u.begin(), u.end())));
  std::vector<double> applied(u.size());
  for (long j = 0; j < ny; ++j)
    for (long i = 0; i < nx; ++i) applied[std::size_t(j * nx + i)] = laplacian(i, j);
  EXPECT_TRUE(test::bitwise_equal(out.last_laplacian(), applied));
}

TEST(MpiDiffusionBoundaryAnswers, FloatGhostsAndStepsAreTheDocumentedOnesBitForBit) {
  check_ghosts_and_order<float>(Precision::float32);
}
TEST(MpiDiffusionBoundaryAnswers, DoubleGhostsAndStepsAreTheDocumentedOnesBitForBit) {
  check_ghosts_and_order<double>(Precision::float64);
}

// A restart with another boundary than the checkpoint's is refused, naming the key.
TEST(MpiDiffusionBoundaryAnswers, ARestartRefusesAnotherBoundary) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "boundary_restart");
  diffusion::DiffusionSettings s = test::grid(16, 12, 20);
  s.checkpoint_every = 10;
  s.boundary = sides_named("neumann");
  test::run_diffusion(comm, s, folder + "/out.h5");
  diffusion::DiffusionSettings changed = s;
  changed.boundary[diffusion::kNorth] = dirichlet(1);
  try {
    test::run_diffusion(comm, changed, folder + "/resumed.h5", folder + "/out.h5.checkpoint.h5");
    FAIL() << "a restart with another boundary went on";
  } catch (const CollectiveError& e) {
    EXPECT_EQ(e.exit_code(), kExitBadInput);
    EXPECT_EQ(std::string(e.what()),
              folder + "/out.h5.checkpoint.h5: the checkpoint was written with diffusion.boundary = 'west neumann, "
                       "east neumann, south neumann, north neumann', but the deck has 'west neumann, east neumann, "
                       "south neumann, north dirichlet 1'; restart with the deck that wrote it");
  }
}

}  // namespace
}  // namespace trident
