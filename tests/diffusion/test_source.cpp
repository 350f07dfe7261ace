// diffusion.source: a number or a field added after the neighbour sum, each against a serial
// float64 loop and the totals it must give, and the same bits on any rank count, layout,
// halo width and trip length through restarts; a source file with a NaN is refused naming
// the cell.
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

std::vector<double> random_field(long nx, long ny, unsigned seed, double low, double high) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> value(low, high);
  std::vector<double> u(static_cast<std::size_t>(nx * ny));
  for (double& v : u) v = value(random);
  return u;
}

// Writes `values` (ny x nx) to `path`:/s.
void write_source(MPI_Comm comm, const std::string& path, const std::vector<double>& values, long nx, long ny) {
  io::OutputFile file(comm, path, true);
  file.write_array<double>("/s", values, {static_cast<std::uint64_t>(ny), static_cast<std::uint64_t>(nx)});
  file.commit();
}

// u after `steps` of u <- (u - c L(u)) + s_i on an nx x ny grid (s: each cell's source),
// the west ghost holding `west` (dirichlet) and the other sides neumann: the plain serial
// float64 loop the runs are held to.
std::vector<double> serial_steps(std::vector<double> u, long nx, long ny, long steps, double c, double west,
                                 const std::vector<double>& s) {
  std::vector<double> next(u.size());
  for (long k = 0; k < steps; ++k) {
    const auto at = [&](long i, long j) {
      i = i < 0 ? -1 : std::min(i, nx - 1);  // west ghost: the dirichlet value; east: the edge
      j = std::max(0L, std::min(j, ny - 1));  // south and north: the edge
      return i < 0 ? west : u[std::size_t(j * nx + i)];
    };
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) {
        const double l = 4 * at(i, j) - (((at(i - 1, j) + at(i + 1, j)) + at(i, j - 1)) + at(i, j + 1));
        next[std::size_t(j * nx + i)] = (at(i, j) - c * l) + s[std::size_t(j * nx + i)];
      }
    u.swap(next);
  }
  return u;
}

// Every step of `closed` (a frame each step, all sides neumann) adds `added` to the total.
void expect_total_grows_by(const test::DiffusionOutput& closed, std::size_t cells, double added) {
  for (std::size_t k = 0; k + 1 < closed.steps.size(); ++k) {
    double before = 0, after = 0;
    for (std::size_t q = 0; q < cells; ++q) {
      before += closed.field[k * cells + q];
      after += closed.field[(k + 1) * cells + q];
    }
    EXPECT_NEAR(after - before, added, 1e-12) << "step " << k;
  }
}

class MpiDiffusionSource : public testing::TestWithParam<std::tuple<std::string, long, std::string, int>> {};

TEST_P(MpiDiffusionSource, EveryLayoutHaloAndTripGivesTheOneRankBits) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const auto [kind, width, shape, trip] = GetParam();
  const std::string folder = test::scratch_folder(
      comm, "source_" + kind + "_" + std::to_string(width) + "_" + shape + "_" + std::to_string(trip));
  diffusion::DiffusionSettings s = test::grid(37, 29, 90);
  s.c = 0.2;
  s.laplacian = true;
  s.output_every = 7;
  s.checkpoint_every = 40;
  s.start.seed = 5;
  s.halo_width = width;
  s.ranks = test::layout(shape, mpi::size(comm));
  if (kind == "number") {
    s.source.value = 0.01;
  } else {
    write_source(comm, folder + "/s.h5", random_field(37, 29, 3, -0.02, 0.03), 37, 29);
    s.source.from_file = true;
    s.source.file = folder + "/s.h5";
    s.source.dataset = "/s";
    if (kind == "field_periodic") s.boundary.fill({BoundaryKind::periodic, 0.0, 0.0});
  }
  diffusion::StudyTestHooks hooks;
  if (trip > 0) hooks.trips = diffusion::TripShape{trip, 9, 10};
  test::LayoutRuns runs;
  test::check_layout_runs(comm, s, folder, hooks, /*resumed_laplacian=*/false, runs);
  MPI_Barrier(comm);
}

INSTANTIATE_TEST_SUITE_P(
    Sources, MpiDiffusionSource,
    testing::Combine(testing::Values("number", "field", "field_periodic"), testing::Values(1L, 4L),
                     testing::Values("auto", "rows", "columns"), testing::Values(0, 4)),
    [](const auto& info) {
      return std::get<0>(info.param) + "_w" + std::to_string(std::get<1>(info.param)) + "_" + std::get<2>(info.param) +
             "_m" + std::to_string(std::get<3>(info.param));
    });

// A field source with dirichlet 0.5 on the west and neumann elsewhere against a plain serial
// float64 loop of u <- (u - c L(u)) + s; and, all sides neumann, the total grows by the
// source's sum each step.
TEST(MpiDiffusionSourceAnswers, AFieldSourceMatchesASerialLoopAndAddsItsSumEachStep) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "source_answers");
  const long nx = 19, ny = 14, steps = 120;
  const std::vector<double> u0 = random_field(nx, ny, 21, 0.0, 1.0), src = random_field(nx, ny, 22, -0.01, 0.02);
  test::write_start_file(comm, folder + "/u0.h5", u0, nx, ny);
  write_source(comm, folder + "/s.h5", src, nx, ny);
  diffusion::DiffusionSettings s = test::from_file(nx, ny, steps, folder + "/u0.h5");
  s.precision = Precision::float64;
  s.c = 0.22;
  s.source.from_file = true;
  s.source.file = folder + "/s.h5";
  s.source.dataset = "/s";
  const Boundary neumann{BoundaryKind::neumann, 0.0, 0.0};
  s.boundary = {Boundary{BoundaryKind::dirichlet, 0.5, 0.0}, neumann, neumann, neumann};
  const auto out = test::run_diffusion(comm, s, folder + "/out.h5");
  EXPECT_LT(test::max_abs_difference(out.last_field(), serial_steps(u0, nx, ny, steps, 0.22, 0.5, src)), 1e-12);

  s.boundary.fill(neumann);
  s.output_every = 1;
  s.steps = 20;
  double added = 0;
  for (double v : src) added += v;
  expect_total_grows_by(test::run_diffusion(comm, s, folder + "/closed.h5"), std::size_t(nx * ny), added);
}

// A number as the source: against the same serial float64 loop (dirichlet -0.25 west, neumann
// elsewhere), and, all sides neumann, the total grows by the number times the cells each
// step.
TEST(MpiDiffusionSourceAnswers, ANumberSourceMatchesASerialLoopAndAddsItOnEveryCell) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "source_number_answers");
  const long nx = 17, ny = 12, steps = 90;
  const double value = 0.0037;
  const std::vector<double> u0 = random_field(nx, ny, 31, 0.0, 1.0);
  test::write_start_file(comm, folder + "/u0.h5", u0, nx, ny);
  diffusion::DiffusionSettings s = test::from_file(nx, ny, steps, folder + "/u0.h5");
  s.precision = Precision::float64;
  s.c = 0.2;
  s.source.value = value;
  const Boundary neumann{BoundaryKind::neumann, 0.0, 0.0};
  s.boundary = {Boundary{BoundaryKind::dirichlet, -0.25, 0.0}, neumann, neumann, neumann};
  const auto out = test::run_diffusion(comm, s, folder + "/out.h5");
  const std::vector<double> everywhere(u0.size(), value);
  EXPECT_LT(test::max_abs_difference(out.last_field(), serial_steps(u0, nx, ny, steps, 0.2, -0.25, everywhere)), 1e-12);

  s.boundary.fill(neumann);
  s.output_every = 1;
  s.steps = 15;
  expect_total_grows_by(test::run_diffusion(comm, s, folder + "/closed.h5"), std::size_t(nx * ny),
                        value * static_cast<double>(nx * ny));
}

// A source file with a NaN is refused before any step, naming the file, the dataset and
// the cell as (y, x).
TEST(MpiDiffusionSourceAnswers, ANonFiniteSourceIsRefusedNamingTheCell) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "source_nan");
  std::vector<double> src(12 * 10, 0.0);
  src[7 * 12 + 3] = NAN;
  write_source(comm, folder + "/s.h5", src, 12, 10);
  diffusion::DiffusionSettings s = test::grid(12, 10, 5);
  s.source.from_file = true;
  s.source.file = folder + "/s.h5";
  s.source.dataset = "/s";
  try {
    test::run_diffusion(comm, s, folder + "/out.h5");
    FAIL() << "a NaN in the source went through";
  } catch (const CollectiveError& e) {
    EXPECT_EQ(e.exit_code(), kExitBadInput);
    EXPECT_NE(std::string(e.what()).find("(7, 3)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("s.h5"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace trident
