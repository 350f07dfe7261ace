// The diffusion study against exact and independent answers, on 1-4 ranks.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "diffusion/detail/start_field.hpp"
#include "diffusion/detail/xdmf.hpp"
#include "harness.hpp"
#include "support/test_support.hpp"

namespace trident {
namespace {

using test::run_diffusion;
using core::Precision;

// u0 = sin(p pi (i+1)/(nx+1)) sin(q pi (j+1)/(ny+1)) is an eigenvector of L with
// eigenvalue mu = 4 - 2cos(p pi/(nx+1)) - 2cos(q pi/(ny+1)): after s steps u = (1 - c mu)^s u0.
class MpiDiffusionEigenvector : public testing::TestWithParam<Precision> {};

TEST_P(MpiDiffusionEigenvector, DecaysExactlyByItsEigenvalue) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, std::string("eigen_") + core::precision_name(GetParam()));
  const long nx = 37, ny = 29, p = 3, q = 2, steps = 80;
  const double pi = std::acos(-1.0), c = 0.2;
  std::vector<double> u0(static_cast<std::size_t>(nx * ny));
  for (long j = 0; j < ny; ++j)
    for (long i = 0; i < nx; ++i)
      u0[j * nx + i] = std::sin(p * pi * (i + 1) / (nx + 1)) * std::sin(q * pi * (j + 1) / (ny + 1));
  test::write_start_file(comm, folder + "/u0.h5", u0, nx, ny);
  diffusion::DiffusionSettings s = test::from_file(nx, ny, steps, folder + "/u0.h5");
  s.precision = GetParam();
  s.c = c;
  s.laplacian = true;
  const auto out = run_diffusion(comm, s, folder + "/out.h5");
  const double mu = 4 - 2 * std::cos(p * pi / (nx + 1)) - 2 * std::cos(q * pi / (ny + 1));
  std::vector<double> exact(u0.size()), exact_laplacian(u0.size());
  for (std::size_t k = 0; k < u0.size(); ++k) {
    exact[k] = std::pow(1 - c * mu, steps) * u0[k];
    exact_laplacian[k] = mu * exact[k];
  }
  const double tolerance = GetParam() == Precision::float64 ? 1e-13 : 2e-6;
  ASSERT_EQ(out.steps.back(), steps);
  EXPECT_LT(test::max_abs_difference(out.last_field(), exact), tolerance * test::max_abs(exact));
  EXPECT_LT(test::max_abs_difference(out.last_laplacian(), exact_laplacian), 10 * tolerance * test::max_abs(exact));
}

INSTANTIATE_TEST_SUITE_P(Precisions, MpiDiffusionEigenvector, testing::Values(Precision::float64, Precision::float32));

TEST(MpiDiffusionReference, JaggedFieldMatchesASerialFloat64Loop) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "jagged_reference");
  const long nx = 41, ny = 33, steps = 120;
  diffusion::DiffusionSettings s = test::grid(nx, ny, steps, Precision::float64);
  s.start.seed = 11;
  s.output_every = 40;
  s.laplacian = true;
  const auto out = run_diffusion(comm, s, folder + "/out.h5");
  const std::vector<double> start = diffusion::start_block(MPI_COMM_SELF, s.start, nx, ny, {0, nx}, {0, ny});
  ASSERT_EQ(out.steps, (std::vector<std::int64_t>{0, 40, 80, 120}));
  const std::size_t n = start.size();
  for (std::size_t f = 0; f < out.steps.size(); ++f) {
    const std::vector<double> reference = test::reference_steps(start, nx, ny, 0.25, out.steps[f]);
    const std::vector<double> frame(out.field.begin() + f * n, out.field.begin() + (f + 1) * n);
    EXPECT_LT(test::max_abs_difference(frame, reference), 1e-13) << "frame " << f;
    const std::vector<double> laplacian(out.laplacian.begin() + f * n, out.laplacian.begin() + (f + 1) * n);
    EXPECT_LT(test::max_abs_difference(laplacian, test::reference_laplacian(reference, nx, ny)), 1e-12);
    EXPECT_DOUBLE_EQ(out.times[f], static_cast<double>(out.steps[f]));
  }
  // float32 follows the same trajectory within single-precision rounding.
  s.precision = Precision::float32;
  const auto single = run_diffusion(comm, s, folder + "/out32.h5");
  const std::vector<double> reference = test::reference_steps(start, nx, ny, 0.25, steps);
  EXPECT_LT(test::max_abs_difference(single.last_field(), reference), 1e-5);
}

}  // namespace
}  // namespace trident
