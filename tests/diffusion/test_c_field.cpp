// diffusion.c: {file, dataset}: a diffusivity cell by cell with harmonic-mean faces. A
// two-material field against a serial float64 loop of the formula (1e-12; float32 1e-6), a
// field of random c against a serial loop of its documented order in the run's precision (bit
// for bit, the field and A(u)),
// the same bits on any rank count, layout, halo width and trip length with every boundary
// rule through restarts, and the refusals naming the cell (negative, unstable, convective
// edge at c = 0).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "harness.hpp"
#include "support/test_support.hpp"

namespace trident {
namespace {

using core::Precision;
using diffusion::Boundary;
using diffusion::BoundaryKind;

// Two materials: c = 0.2 outside a disc, `inside` in it (centre (13, 9), radius 6).
std::vector<double> two_materials(long nx, long ny, double inside) {
  std::vector<double> c(std::size_t(nx * ny));
  for (long j = 0; j < ny; ++j)
    for (long i = 0; i < nx; ++i)
      c[std::size_t(j * nx + i)] = (i - 13) * (i - 13) + (j - 9) * (j - 9) < 36 ? inside : 0.2;
  return c;
}

void write_c(MPI_Comm comm, const std::string& path, const std::vector<double>& c, long nx, long ny) {
  io::OutputFile file(comm, path, true);
  file.write_array<double>("/c", c, {static_cast<std::uint64_t>(ny), static_cast<std::uint64_t>(nx)});
  file.commit();
}

diffusion::DiffusionSettings with_field(diffusion::DiffusionSettings s, const std::string& path) {
  s.c_file = path;
  s.c_dataset = "/c";
  s.c = 0.0;
  return s;
}

double face(double a, double b) { return a + b == 0 ? 0.0 : 2 * a * b / (a + b); }

// The formula with zero ghosts (dirichlet 0, a ghost with its edge cell's c), in float64
// from the values the run starts from (c and u rounded to `precision`): the field and A(u)
// within `tolerance` of the run's. Float32 and float64 lay the faces out differently
// (stencil_field.hpp), so each is held to the loop.
void check_two_materials(const Precision precision, const double tolerance) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "c_field_serial");
  const long nx = 29, ny = 21, steps = 70;
  std::vector<double> c = two_materials(nx, ny, 0.01);
  write_c(comm, folder + "/c.h5", c, nx, ny);
  std::mt19937_64 random(41);
  std::uniform_real_distribution<double> value(0.0, 1.0);
  std::vector<double> u(std::size_t(nx * ny)), next(u.size());
  for (double& v : u) v = value(random);
  test::write_start_file(comm, folder + "/u0.h5", u, nx, ny);
  diffusion::DiffusionSettings s = with_field(test::from_file(nx, ny, steps, folder + "/u0.h5"), folder + "/c.h5");
  s.precision = precision;
  s.laplacian = true;
  const auto out = test::run_diffusion(comm, s, folder + "/out.h5");
  if (precision == Precision::float32) {
    for (double& v : c) v = static_cast<float>(v);
    for (double& v : u) v = static_cast<float>(v);
  }
  const auto change_at = [&](const std::vector<double>& f, long i, long j) {
    const auto uu = [&](long a, long b) { return (a < 0 || b < 0 || a >= nx || b >= ny) ? 0.0 : f[std::size_t(b * nx + a)]; };
    const auto cc = [&](long a, long b) {
      a = std::max(0L, std::min(a, nx - 1));
      b = std::max(0L, std::min(b, ny - 1));
      return c[std::size_t(b * nx + a)];
    };
    const double ci = cc(i, j), ui = uu(i, j);
    return face(ci, cc(i - 1, j)) * (uu(i - 1, j) - ui) + face(ci, cc(i + 1, j)) * (uu(i + 1, j) - ui) +
           face(ci, cc(i, j - 1)) * (uu(i, j - 1) - ui) + face(ci, cc(i, j + 1)) * (uu(i, j + 1) - ui);
  };
  for (long k = 0; k < steps; ++k) {
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) next[std::size_t(j * nx + i)] = u[std::size_t(j * nx + i)] + change_at(u, i, j);
    u.swap(next);
  }
  EXPECT_LT(test::max_abs_difference(out.last_field(), u), tolerance);
  std::vector<double> applied(u.size());
  for (long j = 0; j < ny; ++j)
    for (long i = 0; i < nx; ++i) applied[std::size_t(j * nx + i)] = -change_at(u, i, j);
  EXPECT_LT(test::max_abs_difference(out.last_laplacian(), applied), tolerance);
}

TEST(MpiDiffusionCField, TwoMaterialsMatchASerialLoopOfTheFormula) { check_two_materials(Precision::float64, 1e-12); }

// Float32's rounding over 70 steps left at most 1.5e-7 on the CPU build (values in [0, 1]);
// a face made from the wrong cell's c moves the field by about 1e-2.
TEST(MpiDiffusionCField, TwoMaterialsInFloat32MatchASerialLoopOfTheFormula) {
  check_two_materials(Precision::float32, 1e-6);
}

// The step's documented order (stencil_field.hpp, docs/diffusion.md), in the run's precision:
// u + (((c_W (W - u) + c_E (E - u)) + c_S (S - u)) + c_N (N - u)), each product and sum rounded
// on a CPU and on a GPU the east, south and north products fused with the sum before them (as
// multiply_add says), on a field whose every face differs. Another order or pairing changes
// some bit within a few steps.
template <class T>
void check_documented_order(const Precision precision) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "c_field_order");
  const long nx = 19, ny = 13, steps = 6;
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> value(0.0, 1.0);
  std::vector<double> c(std::size_t(nx * ny)), u0(c.size());
  for (double& v : c) v = T(0.02 + 0.2 * value(random));  // faces at most 0.22: stable
  for (double& v : u0) v = T(0.5 + value(random));
  write_c(comm, folder + "/c.h5", c, nx, ny);
  test::write_start_file(comm, folder + "/u0.h5", u0, nx, ny);
  diffusion::DiffusionSettings s = with_field(test::from_file(nx, ny, steps, folder + "/u0.h5"), folder + "/c.h5");
  s.precision = precision;
  s.laplacian = true;
  const auto out = test::run_diffusion(comm, s, folder + "/out.h5");
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  const auto fused = [](T a, T b, T sum) { return T(std::fma(a, b, sum)); };  // rounded once
#else
  const auto fused = [](T a, T b, T sum) { return a * b + sum; };
#endif
  const auto face = [](T a, T b) { return a + b == T(0) ? T(0) : T(2) * a * b / (a + b); };
  std::vector<T> u(u0.begin(), u0.end()), next(u.size());
  const auto c_at = [&](long i, long j) {  // a ghost has its edge cell's c
    return T(c[std::size_t(std::clamp(j, 0L, ny - 1) * nx + std::clamp(i, 0L, nx - 1))]);
  };
  const auto u_at = [&](long i, long j) {  // dirichlet 0 ghosts
    return i < 0 || j < 0 || i >= nx || j >= ny ? T(0) : u[std::size_t(j * nx + i)];
  };
  const auto change_at = [&](long i, long j) {
    const T ci = c_at(i, j), centre = u_at(i, j);
    const T w = face(ci, c_at(i - 1, j)), e = face(c_at(i + 1, j), ci), so = face(ci, c_at(i, j - 1));
    const T n = face(c_at(i, j + 1), ci);
    const T west_east = fused(e, u_at(i + 1, j) - centre, w * (u_at(i - 1, j) - centre));
    return fused(n, u_at(i, j + 1) - centre, fused(so, u_at(i, j - 1) - centre, west_east));
  };
  for (long k = 0; k < steps; ++k) {
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) next[std::size_t(j * nx + i)] = u[std::size_t(j * nx + i)] + change_at(i, j);
    u.swap(next);
  }
  EXPECT_TRUE(test::bitwise_equal(out.last_field(), std::vector<double>(u.begin(), u.end())));
  std::vector<double> applied(u.size());  // the last frame's A(u) = -(the change)
  for (long j = 0; j < ny; ++j)
    for (long i = 0; i < nx; ++i) applied[std::size_t(j * nx + i)] = -change_at(i, j);
  EXPECT_TRUE(test::bitwise_equal(out.last_laplacian(), applied));
}

TEST(MpiDiffusionCField, FloatStepsAreTheDocumentedOrderBitForBit) { check_documented_order<float>(Precision::float32); }
TEST(MpiDiffusionCField, DoubleStepsAreTheDocumentedOrderBitForBit) {
  check_documented_order<double>(Precision::float64);
}

class MpiDiffusionCFieldLayouts : public testing::TestWithParam<std::tuple<std::string, long, std::string, int>> {};

TEST_P(MpiDiffusionCFieldLayouts, EveryLayoutHaloAndTripGivesTheOneRankBits) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const auto [rules, width, shape, trip] = GetParam();
  const std::string folder =
      test::scratch_folder(comm, "c_field_" + rules + "_" + std::to_string(width) + "_" + shape + "_" + std::to_string(trip));
  write_c(comm, folder + "/c.h5", two_materials(37, 29, 0.0), 37, 29);
  diffusion::DiffusionSettings s = with_field(test::grid(37, 29, 90), folder + "/c.h5");
  s.laplacian = true;
  s.output_every = 7;
  s.checkpoint_every = 40;
  s.start.seed = 5;
  s.halo_width = width;
  s.ranks = test::layout(shape, mpi::size(comm));
  const Boundary periodic{BoundaryKind::periodic, 0.0, 0.0};
  if (rules == "periodic") s.boundary.fill(periodic);
  if (rules == "mixed")
    s.boundary = {Boundary{BoundaryKind::convective, 1.0, 0.1}, Boundary{BoundaryKind::dirichlet, 0.5, 0.0}, periodic,
                  periodic};
  diffusion::StudyTestHooks hooks;
  if (trip > 0) hooks.trips = diffusion::TripShape{trip, 9, 10};
  test::LayoutRuns runs;
  test::check_layout_runs(comm, s, folder, hooks, /*resumed_laplacian=*/true, runs);
  MPI_Barrier(comm);
}

INSTANTIATE_TEST_SUITE_P(Rules, MpiDiffusionCFieldLayouts,
                         testing::Combine(testing::Values("zero", "periodic", "mixed"), testing::Values(1L, 4L),
                                          testing::Values("auto", "rows", "columns"), testing::Values(0, 4)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_w" + std::to_string(std::get<1>(info.param)) + "_" +
                                  std::get<2>(info.param) + "_m" + std::to_string(std::get<3>(info.param));
                         });

// Refused before any step, naming the first bad cell as (y, x) on every rank count.
TEST(MpiDiffusionCField, BadFieldsAreRefusedNamingTheCell) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "c_field_bad");
  const long nx = 16, ny = 12;
  const auto refused = [&](std::vector<double> c, const std::array<Boundary, 4>& sides, const std::string& words) {
    write_c(comm, folder + "/c.h5", c, nx, ny);
    diffusion::DiffusionSettings s = with_field(test::grid(nx, ny, 5), folder + "/c.h5");
    s.boundary = sides;
    try {
      test::run_diffusion(comm, s, folder + "/out.h5");
      ADD_FAILURE() << "accepted: " << words;
    } catch (const CollectiveError& e) {
      EXPECT_EQ(e.exit_code(), kExitBadInput);
      const std::string expected = "diffusion.c: " + folder + "/c.h5: dataset '/c': " + words;
      EXPECT_EQ(std::string(e.what()).substr(0, expected.size()), expected);
    }
  };
  std::vector<double> c(std::size_t(nx * ny), 0.2);
  c[7 * nx + 11] = -0.5;
  c[9 * nx + 2] = -1;
  refused(c, {}, "cell (7, 11) has c = -0.5; expected c at least 0");
  c.assign(c.size(), 0.2);
  c[5 * nx + 8] = 0.3;  // (5, 8) and (5, 9) each pass 0.3 + 3 x 0.24 = 1.02 (the words give it as
  c[5 * nx + 9] = 0.3;  // the precision's sum shows it); (5, 8) comes first
  refused(c, {}, "the faces of cell (5, 8) pass 1.0");
  c.assign(c.size(), 0.2);
  c[4 * nx + 0] = 0.0;
  refused(c, {Boundary{BoundaryKind::convective, 1.0, 0.1}, {}, {}, {}},
          "cell (4, 0) lies on a convective edge with c = 0; a convective face needs c > 0 there");
}

}  // namespace
}  // namespace trident
