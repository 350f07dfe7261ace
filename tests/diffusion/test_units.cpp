// diffusion.D with dx, dy and dt: c_x = D dt / dx^2 and c_y = D dt / dy^2. With dx = dy the
// run is c's run bit for bit; with dx != dy the anisotropic step against a serial float64
// loop, against a serial loop of its documented order in the run's precision (bit for bit, on
// a CPU), a periodic Fourier mode's exact decay, and the same bits on any rank count,
// layout, halo width and trip length through restarts.
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

// D = 2e-5 m^2/s on cells of 1 cm by 2 cm, 1.5 s a step: c_x = 0.3, c_y = 0.075.
diffusion::DiffusionSettings physical(diffusion::DiffusionSettings s) {
  s.D = 2e-5;
  s.dx = 0.01;
  s.dy = 0.02;
  s.dt = 1.5;
  return s;
}

class MpiDiffusionUnits : public testing::TestWithParam<std::tuple<long, std::string, int, bool>> {};

TEST_P(MpiDiffusionUnits, EveryLayoutHaloAndTripGivesTheOneRankBits) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const auto [width, shape, trip, rules] = GetParam();
  const std::string folder = test::scratch_folder(comm, "units_" + std::to_string(width) + "_" + shape + "_" +
                                                            std::to_string(trip) + (rules ? "_rules" : ""));
  diffusion::DiffusionSettings s = physical(test::grid(37, 29, 90));
  s.laplacian = true;
  s.output_every = 7;
  s.checkpoint_every = 40;
  s.start.seed = 5;
  s.halo_width = width;
  s.ranks = test::layout(shape, mpi::size(comm));
  if (rules) {
    s.boundary = {Boundary{BoundaryKind::convective, 1.0, 0.1}, Boundary{BoundaryKind::neumann, 0.0, 0.0},
                  Boundary{BoundaryKind::periodic, 0.0, 0.0}, Boundary{BoundaryKind::periodic, 0.0, 0.0}};
    s.source.value = 0.001;
  }
  diffusion::StudyTestHooks hooks;
  if (trip > 0) hooks.trips = diffusion::TripShape{trip, 9, 10};
  test::LayoutRuns runs;
  test::check_layout_runs(comm, s, folder, hooks, /*resumed_laplacian=*/true, runs);
  MPI_Barrier(comm);
}

INSTANTIATE_TEST_SUITE_P(Layouts, MpiDiffusionUnits,
                         testing::Combine(testing::Values(1L, 4L), testing::Values("auto", "rows", "columns"),
                                          testing::Values(0, 4), testing::Values(false, true)),
                         [](const auto& info) {
                           return "w" + std::to_string(std::get<0>(info.param)) + "_" + std::get<1>(info.param) + "_m" +
                                  std::to_string(std::get<2>(info.param)) + (std::get<3>(info.param) ? "_rules" : "");
                         });

// dx = dy: c = D dt / dx^2 runs c's kernels, and gives c's run bit for bit (trips included).
TEST(MpiDiffusionUnitsAnswers, SquareCellsGiveTheRunOfTheirC) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "units_square");
  diffusion::DiffusionSettings s = test::grid(37, 29, 60);
  s.c = 0.2;
  s.laplacian = true;
  s.output_every = 9;
  diffusion::DiffusionSettings d = s;
  d.D = 0.05;  // 0.05 * 4 / 1^2 = 0.2 exactly
  d.dt = 4;
  diffusion::StudyTestHooks hooks;
  hooks.trips = diffusion::TripShape{4, 9, 10};
  const auto with_c = test::run_diffusion(comm, s, folder + "/c.h5", "", io::Mode::automatic, hooks);
  const auto with_d = test::run_diffusion(comm, d, folder + "/d.h5", "", io::Mode::automatic, hooks);
  EXPECT_TRUE(test::bitwise_equal(with_c.field, with_d.field));
  EXPECT_TRUE(test::bitwise_equal(with_c.laplacian, with_d.laplacian));
}

// dx != dy against the plain loop u <- u + c_x (W + E - 2u) + c_y (S + N - 2u), zero outside,
// and the frames' A(u) = u - u_new.
TEST(MpiDiffusionUnitsAnswers, TheAnisotropicStepMatchesASerialLoop) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "units_serial");
  const long nx = 23, ny = 17, steps = 50;
  std::mt19937_64 random(31);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<double> u(std::size_t(nx * ny)), next(u.size()), applied(u.size());
  for (double& v : u) v = value(random);
  test::write_start_file(comm, folder + "/u0.h5", u, nx, ny);
  diffusion::DiffusionSettings s = physical(test::from_file(nx, ny, steps, folder + "/u0.h5"));
  s.precision = Precision::float64;
  s.laplacian = true;
  const auto out = test::run_diffusion(comm, s, folder + "/out.h5");
  const double cx = 2e-5 * 1.5 / (0.01 * 0.01), cy = 2e-5 * 1.5 / (0.02 * 0.02);
  for (long k = 0; k < steps; ++k) {
    const auto at = [&](long i, long j) { return (i < 0 || j < 0 || i >= nx || j >= ny) ? 0.0 : u[std::size_t(j * nx + i)]; };
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) {
        const double change = cx * (at(i - 1, j) + at(i + 1, j) - 2 * at(i, j)) + cy * (at(i, j - 1) + at(i, j + 1) - 2 * at(i, j));
        next[std::size_t(j * nx + i)] = at(i, j) + change;
        applied[std::size_t(j * nx + i)] = -change;
      }
    u.swap(next);
  }
  EXPECT_LT(test::max_abs_difference(out.last_field(), u), 1e-12);
  // the last frame's A(u) is of the final field: one more step's change
  const std::vector<double> final_field = u;
  for (long j = 0; j < ny; ++j)
    for (long i = 0; i < nx; ++i) {
      const auto at = [&](long a, long b) {
        return (a < 0 || b < 0 || a >= nx || b >= ny) ? 0.0 : final_field[std::size_t(b * nx + a)];
      };
      applied[std::size_t(j * nx + i)] =
          -(cx * (at(i - 1, j) + at(i + 1, j) - 2 * at(i, j)) + cy * (at(i, j - 1) + at(i, j + 1) - 2 * at(i, j)));
    }
  EXPECT_LT(test::max_abs_difference(out.last_laplacian(), applied), 1e-12);
}

// The step's documented order (stencil_anisotropic.hpp, docs/diffusion.md) in the run's
// precision, each product and sum rounded: u <- (u + c_x ((W + E) - 2u)) + c_y ((S + N) - 2u),
// and A(u) = -(c_x ((W + E) - 2u) + c_y ((S + N) - 2u)), bit for bit; the loop above holds
// float64 to 1e-12, which any order passes. On a GPU nvcc fuses products into the sums as it
// chooses, so there the kernels are held to each other (MpiDiffusionTripRules) instead.
template <class T>
void check_anisotropic_order(const Precision precision) {
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  GTEST_SKIP() << "a GPU build's products are fused into its sums by the compiler";
#endif
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "units_order");
  const long nx = 21, ny = 15, steps = 8;
  std::mt19937_64 random(37);
  std::uniform_real_distribution<double> value(0.5, 1.5);
  std::vector<double> u0(std::size_t(nx * ny));
  for (double& v : u0) v = T(value(random));
  test::write_start_file(comm, folder + "/u0.h5", u0, nx, ny);
  diffusion::DiffusionSettings s = physical(test::from_file(nx, ny, steps, folder + "/u0.h5"));
  s.precision = precision;
  s.laplacian = true;
  const auto out = test::run_diffusion(comm, s, folder + "/out.h5");
  const T cx = T(s.c_x()), cy = T(s.c_y());
  std::vector<T> u(u0.begin(), u0.end()), next(u.size());
  const auto at = [&](long i, long j) {  // dirichlet 0 ghosts
    return i < 0 || j < 0 || i >= nx || j >= ny ? T(0) : u[std::size_t(j * nx + i)];
  };
  const auto sides = [&](long i, long j, T& x, T& y) {
    x = (at(i - 1, j) + at(i + 1, j)) - T(2) * at(i, j);
    y = (at(i, j - 1) + at(i, j + 1)) - T(2) * at(i, j);
  };
  for (long k = 0; k < steps; ++k) {
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) {
        T x, y;
        sides(i, j, x, y);
        next[std::size_t(j * nx + i)] = (at(i, j) + cx * x) + cy * y;
      }
    u.swap(next);
  }
  EXPECT_TRUE(test::bitwise_equal(out.last_field(), std::vector<double>(u.begin(), u.end())));
  std::vector<double> applied(u.size());
  for (long j = 0; j < ny; ++j)
    for (long i = 0; i < nx; ++i) {
      T x, y;
      sides(i, j, x, y);
      applied[std::size_t(j * nx + i)] = -(cx * x + cy * y);
    }
  EXPECT_TRUE(test::bitwise_equal(out.last_laplacian(), applied));
}

TEST(MpiDiffusionUnitsAnswers, FloatStepsAreTheDocumentedOrderBitForBit) {
  check_anisotropic_order<float>(Precision::float32);
}
TEST(MpiDiffusionUnitsAnswers, DoubleStepsAreTheDocumentedOrderBitForBit) {
  check_anisotropic_order<double>(Precision::float64);
}

// Periodic both ways: cos(2 pi m x / nx) cos(2 pi n y / ny) decays by
// 1 - c_x (2 - 2 cos(2 pi m / nx)) - c_y (2 - 2 cos(2 pi n / ny)) a step.
TEST(MpiDiffusionUnitsAnswers, APeriodicFourierModeDecaysByTheAnisotropicFactor) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "units_fourier");
  const long nx = 32, ny = 24, steps = 80, m = 2, n = 1;
  std::vector<double> u0(std::size_t(nx * ny));
  for (long j = 0; j < ny; ++j)
    for (long i = 0; i < nx; ++i)
      u0[std::size_t(j * nx + i)] = std::cos(2 * M_PI * m * double(i) / nx) * std::cos(2 * M_PI * n * double(j) / ny);
  test::write_start_file(comm, folder + "/u0.h5", u0, nx, ny);
  diffusion::DiffusionSettings s = physical(test::from_file(nx, ny, steps, folder + "/u0.h5"));
  s.precision = Precision::float64;
  s.boundary.fill(Boundary{BoundaryKind::periodic, 0.0, 0.0});
  const auto last = test::run_diffusion(comm, s, folder + "/out.h5").last_field();
  const double cx = s.c_x(), cy = s.c_y();
  const double factor =
      std::pow(1 - cx * (2 - 2 * std::cos(2 * M_PI * m / nx)) - cy * (2 - 2 * std::cos(2 * M_PI * n / ny)), double(steps));
  ASSERT_GT(factor, 1e-3);
  double worst = 0;
  for (std::size_t k = 0; k < last.size(); ++k) worst = std::max(worst, std::abs(last[k] - factor * u0[k]));
  EXPECT_LT(worst, 1e-12);
}

// dx != dy with convective west and south sides (neumann east and north): each step changes
// the total by the sum over the convective faces of h (ambient - u_edge), whichever c the
// side has (c_x on the west, c_y on the south).
TEST(MpiDiffusionUnitsAnswers, ConvectiveSidesPassTheirFluxWithEitherC) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "units_convective");
  const long nx = 15, ny = 11;
  std::mt19937_64 random(33);
  std::uniform_real_distribution<double> value(0.0, 1.0);
  std::vector<double> u0(std::size_t(nx * ny));
  for (double& v : u0) v = value(random);
  test::write_start_file(comm, folder + "/u0.h5", u0, nx, ny);
  diffusion::DiffusionSettings s = physical(test::from_file(nx, ny, 25, folder + "/u0.h5"));
  s.precision = Precision::float64;
  s.output_every = 1;
  const Boundary neumann{BoundaryKind::neumann, 0.0, 0.0};
  s.boundary = {Boundary{BoundaryKind::convective, 2.0, 0.1}, neumann, Boundary{BoundaryKind::convective, -1.0, 0.2},
                neumann};
  const auto out = test::run_diffusion(comm, s, folder + "/out.h5");
  ASSERT_EQ(out.steps.size(), 26u);
  const std::size_t cells = std::size_t(nx * ny);
  for (std::size_t k = 0; k + 1 < out.steps.size(); ++k) {
    const double* u = out.field.data() + k * cells;
    double flux = 0, before = 0, after = 0;
    for (long j = 0; j < ny; ++j) flux += 0.1 * (2.0 - u[j * nx]);
    for (long i = 0; i < nx; ++i) flux += 0.2 * (-1.0 - u[i]);
    for (std::size_t q = 0; q < cells; ++q) {
      before += u[q];
      after += out.field[(k + 1) * cells + q];
    }
    EXPECT_NEAR(after - before, flux, 1e-12) << "step " << k;
  }
}

}  // namespace
}  // namespace trident
