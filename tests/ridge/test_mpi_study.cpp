// The whole ridge study through its driver: deck text in, /ridge in a real HDF5 file out,
// on 1 to 4 ranks; and bad data failing on every rank with exit code 2.
#include <gtest/gtest.h>

#include <mpi.h>

#include <algorithm>
#include <cmath>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/overrides.hpp"
#include "core/run_context.hpp"
#include "deck/deck.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "ridge/detail/engine_options.hpp"
#include "ridge/detail/lsmr_sweep.hpp"
#include "ridge/detail/matrix_market.hpp"
#include "ridge/detail/problem.hpp"
#include "ridge/detail/study.hpp"
#include "ridge/detail/sweep.hpp"
#include "run_deck.hpp"
#include "support/test_support.hpp"

namespace trident::ridge {
namespace {

using test::run_deck;

TEST(MpiRidgeStudy, WritesTheLCurveItsCornerAndTheSolutions) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "ridge_study");
  // A Matrix Market file with signed values, so the test can rebuild A exactly.
  if (mpi::rank(MPI_COMM_WORLD) == 0) {
    std::string mm = "%%MatrixMarket matrix coordinate real general\n% test\n30 20 ";
    std::string entries;
    int count = 0;
    for (int i = 1; i <= 30; ++i)
      for (int j = 1; j <= 20; ++j)
        if ((i * 7 + j * 3) % 5 == 0 || i == j) {
          entries += std::to_string(i) + " " + std::to_string(j) + " " +
                     std::to_string(0.1 * ((i * j) % 11) - 0.4) + "\n";
          ++count;
        }
    trident::test::write_text(folder + "/a.mtx", mm + std::to_string(count) + "\n" + entries);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string deck =
      "ridge:\n"
      "  matrix: {matrix_market: a.mtx}\n"
      "  rhs: {generate: {mean: 1, std: 2, seed: 5}}\n"
      "  lambdas: {geomspace: [0.01, 100, 7]}\n"
      "  solver: {atol: 1e-10, btol: 1e-10, max_iterations: 200}\n"
      "  precision: float64\n"
      "  keep_solutions: true\n"
      "  refine_corner: 2\n";
  run_deck(folder, deck, folder + "/out.h5");

  // The same λ solved on this rank alone, from the same A and b.
  Problem p;
  p.a = read_matrix_market(folder + "/a.mtx");
  p.b = generate_rhs(30, 1, 2, 5);
  io::InputFile in(folder + "/out.h5", "ridge output");
  const std::vector<double> lambdas = in.read<double>("/ridge/lambda");
  ASSERT_EQ(lambdas.size(), 9u);  // 7 + 2 around the corner
  for (std::size_t j = 1; j < lambdas.size(); ++j) EXPECT_LT(lambdas[j - 1], lambdas[j]);
  LsmrOptions options;
  options.atol = options.btol = 1e-10;
  options.max_iterations = 200;
  SweepSolver solver(p, true);
  const SweepOutcome alone = solver.solve(lambdas, options, true);
  const auto residual = in.read<double>("/ridge/residual_norm");
  const auto norm = in.read<double>("/ridge/solution_norm");
  const auto iterations = in.read<std::int64_t>("/ridge/iterations");
  const auto stop = in.read<std::int32_t>("/ridge/stop_reason");
  const auto solutions = in.read<double>("/ridge/solutions");
  ASSERT_EQ(in.dims("/ridge/solutions"), (std::vector<std::uint64_t>{9, 20}));
  for (std::size_t j = 0; j < lambdas.size(); ++j) {
    EXPECT_DOUBLE_EQ(residual[j], alone.lambdas[j].residual_norm);
    EXPECT_DOUBLE_EQ(norm[j], alone.lambdas[j].solution_norm);
    EXPECT_EQ(iterations[j], alone.lambdas[j].iterations);
    EXPECT_EQ(stop[j], alone.lambdas[j].stop_reason);
    for (int i = 0; i < 20; ++i) EXPECT_DOUBLE_EQ(solutions[j * 20 + i], alone.solutions[j * 20 + i]);
  }
  // Where refine_corner put its two λ: the deck's seven are 10^(-2 + 2k/3), k = 0..6, so
  // 3 log10(λ) + 6 is 0, 2, ..., 12 for them; one extra λ goes to the geometric middle on each
  // side of the first sweep's corner k (2k - 1 and 2k + 1), an interior point.
  std::vector<long> thirds;
  for (double l : lambdas) {
    const double t = 3 * std::log10(l) + 6;
    thirds.push_back(std::lround(t));
    EXPECT_NEAR(t, double(thirds.back()), 1e-9) << "λ " << l;
  }
  std::vector<long> extra;
  for (long t : thirds)
    if (t % 2 != 0) extra.push_back(t);
  ASSERT_EQ(extra.size(), 2u);
  EXPECT_EQ(extra[1], extra[0] + 2);  // either side of one of the seven
  const long first_corner = (extra[0] + 1) / 2;
  EXPECT_GE(first_corner, 1);
  EXPECT_LE(first_corner, 5);
  std::vector<long> expected_thirds = {0, 2, 4, 6, 8, 10, 12, 2 * first_corner - 1, 2 * first_corner + 1};
  std::sort(expected_thirds.begin(), expected_thirds.end());
  EXPECT_EQ(thirds, expected_thirds);
  // The corner written for the refined curve: its curvature computed here another way, from
  // the angle at each point by the law of cosines: kappa = 2 sin(angle) / (far side), the
  // inverse radius of the circle through the point and its neighbours. The corner is the
  // greatest, clear of the others (so no tie rule or rounding decides it).
  std::vector<double> kappa(lambdas.size(), 0.0);
  for (std::size_t j = 1; j + 1 < lambdas.size(); ++j) {
    const double x[3] = {std::log10(residual[j - 1]), std::log10(residual[j]), std::log10(residual[j + 1])};
    const double y[3] = {std::log10(norm[j - 1]), std::log10(norm[j]), std::log10(norm[j + 1])};
    const double a2 = (x[1] - x[0]) * (x[1] - x[0]) + (y[1] - y[0]) * (y[1] - y[0]);
    const double b2 = (x[2] - x[1]) * (x[2] - x[1]) + (y[2] - y[1]) * (y[2] - y[1]);
    const double c2 = (x[2] - x[0]) * (x[2] - x[0]) + (y[2] - y[0]) * (y[2] - y[0]);
    const double cosine = (a2 + b2 - c2) / (2 * std::sqrt(a2 * b2));
    kappa[j] = 2 * std::sqrt(std::max(0.0, 1 - cosine * cosine)) / std::sqrt(c2);
  }
  const long written = in.integer_attribute("/ridge/corner", "index");
  ASSERT_GE(written, 1);
  ASSERT_LE(written, 7);
  const std::size_t index = static_cast<std::size_t>(written);
  for (std::size_t j = 1; j + 1 < lambdas.size(); ++j)
    if (j != index) EXPECT_LT(kappa[j], kappa[index] * (1 - 1e-6)) << "point " << j << " of 9";
  EXPECT_EQ(in.real_attribute("/ridge/corner", "lambda"), lambdas[index]);
  EXPECT_NEAR(in.real_attribute("/ridge/corner", "curvature"), kappa[index], 1e-8 * kappa[index]);
  EXPECT_NE(in.string_attribute("/ridge/stop_reason", "meaning").find("7: max_iterations reached"),
            std::string::npos);
  EXPECT_EQ(in.string_attribute("/ridge", "kernels"), "fused");
  EXPECT_EQ(in.integer_attribute("/ridge", "bytes_per_iteration"), solver.bytes_per_iteration());
  EXPECT_EQ(in.integer_attribute("/ridge", "rows"), 30);
  EXPECT_EQ(in.integer_attribute("/ridge", "nonzeros"), p.a.nonzeros());
}

// The run's TRIDENT_RIDGE_* overrides reach the fused engine's row schedules: rows cut
// into segments of one pack read more offsets an iteration (bytes_per_iteration, the same
// as a solver given those options) and give the same curve to rounding (the sums' order
// differs), on any rank count.
TEST(MpiRidgeStudy, TheRunsOverridesReachTheProductSchedule) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "ridge_study_overrides");
  const std::string deck =
      "ridge:\n"
      "  matrix: {generate: {rows: 40, columns: 30, density: 0.4, seed: 3}}\n"
      "  lambdas: [0.1, 1, 10]\n"
      "  solver: {atol: 1e-12, btol: 1e-12, max_iterations: 200}\n"
      "  precision: float64\n";
  run_deck(folder, deck, folder + "/auto.h5");
  const core::Overrides cut = core::parse_overrides({"TRIDENT_RIDGE_ROW_SEGMENTS=1"});
  run_deck(folder, deck, folder + "/cut.h5", cut);

  Problem p;
  p.a = generate_matrix(40, 30, 0.4, 3);
  p.b = generate_rhs(40, 3.0, 1.0, 2);  // the deck's default right-hand side
  const SweepSolver whole(p, core::Precision::float64);
  const SweepSolver segments(p, core::Precision::float64, ridge::RidgeKernels::fused, nullptr,
                             EngineOptions::from_overrides(cut));
  ASSERT_NE(segments.bytes_per_iteration(), whole.bytes_per_iteration());
  io::InputFile automatic(folder + "/auto.h5", "ridge output"), overridden(folder + "/cut.h5", "ridge output");
  EXPECT_EQ(automatic.integer_attribute("/ridge", "bytes_per_iteration"), whole.bytes_per_iteration());
  EXPECT_EQ(overridden.integer_attribute("/ridge", "bytes_per_iteration"), segments.bytes_per_iteration());
  const auto a = automatic.read<double>("/ridge/residual_norm"), b = overridden.read<double>("/ridge/residual_norm");
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  for (std::size_t j = 0; j < a.size(); ++j) EXPECT_NEAR(b[j], a[j], 1e-10 * a[j]);
}

TEST(MpiRidgeStudy, MoreRanksThanLambdasStillWritesEverySolution) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "ridge_study_few");
  const std::string deck =
      "ridge:\n"
      "  matrix: {generate: {rows: 25, columns: 15, density: 0.4, seed: 3}}\n"
      "  lambdas: [3, 0.5]\n"
      "  solver: {max_iterations: 100}\n"
      "  precision: float64\n"
      "  keep_solutions: true\n";
  run_deck(folder, deck, folder + "/out.h5");
  Problem p;
  p.a = generate_matrix(25, 15, 0.4, 3);
  p.b = generate_rhs(25, 3.0, 1.0, 2);  // the default right-hand side
  LsmrOptions options;
  options.max_iterations = 100;
  SweepSolver solver(p, true);
  const SweepOutcome alone = solver.solve({0.5, 3}, options, true);
  io::InputFile in(folder + "/out.h5", "ridge output");
  EXPECT_EQ(in.read<double>("/ridge/lambda"), (std::vector<double>{0.5, 3}));
  EXPECT_EQ(in.read<double>("/ridge/solutions"), alone.solutions);
  EXPECT_EQ(in.integer_attribute("/ridge/corner", "index"), -1);  // two points: no corner
}

TEST(MpiRidgeStudy, TruncatedMatrixMarketFailsOnEveryRankWithExitCodeTwo) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "ridge_study_bad");
  if (mpi::rank(MPI_COMM_WORLD) == 0)
    trident::test::write_text(folder + "/a.mtx",
                              "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1\n2 2 1\n");
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string deck = "ridge:\n  matrix: {matrix_market: a.mtx}\n  lambdas: [1, 2]\n";
  try {
    run_deck(folder, deck, folder + "/out.h5");
    FAIL() << "expected a CollectiveError";
  } catch (const CollectiveError& e) {
    EXPECT_EQ(e.exit_code(), kExitBadInput);
    EXPECT_EQ(std::string(e.what()),
              folder + "/a.mtx:5: the file ends after 2 of the 4 entries the size line announced "
                       "(is it truncated?)");
  }
}

TEST(MpiRidgeStudy, RightHandSideOfTheWrongLengthFailsWithExitCodeTwo) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "ridge_study_rhs");
  if (mpi::rank(MPI_COMM_WORLD) == 0)
    trident::test::write_text(folder + "/a.mtx",
                              "%%MatrixMarket matrix coordinate real general\n3 2 2\n1 1 1\n3 2 1\n");
  MPI_Barrier(MPI_COMM_WORLD);
  // A right-hand side of 2 entries for a matrix of 3 rows.
  {
    io::OutputFile b(MPI_COMM_WORLD, folder + "/b.h5", true);
    b.write_array<double>("/b", {1.0, 2.0}, {2});
    b.commit();
  }
  const std::string deck =
      "ridge:\n  matrix: {matrix_market: a.mtx}\n  rhs: {hdf5: {file: b.h5}}\n  lambdas: [1]\n";
  try {
    run_deck(folder, deck, folder + "/out.h5");
    FAIL() << "expected a CollectiveError";
  } catch (const CollectiveError& e) {
    EXPECT_EQ(e.exit_code(), kExitBadInput);
    EXPECT_EQ(std::string(e.what()), folder + "/b.h5:/b: the right-hand side has 2 entries but the "
                                              "matrix has 3 rows (" + folder +
                                         "/deck.yaml:3:8: ridge.rhs)");
  }
}

TEST(MpiRidgeStudy, DeviceMemoryShortfallSaysHowMuchIsNeededAndThere) {
  using ridge::RidgeKernels;
  using core::Precision;
  // Kokkos Kernels: 4-byte indices, and a rows x λ block of products A x.
  EXPECT_EQ(device_bytes_needed(15000, 15000, 22500000, Precision::float32, 10,
                                RidgeKernels::kokkos_kernels),
            2 * 22500000LL * 8 + 30002LL * 4 + 4 * 15000LL * 4 + 10 * 4 * 15000LL * 4);
  EXPECT_EQ(device_bytes_needed(15000, 15000, 22500000, Precision::mixed, 10,
                                RidgeKernels::kokkos_kernels),
            2 * 22500000LL * 8 + 30002LL * 4 + 4 * 15000LL * 8 + 10 * 4 * 15000LL * 8);
  EXPECT_EQ(device_bytes_needed(15000, 15000, 22500000, Precision::float64, 10,
                                RidgeKernels::kokkos_kernels),
            2 * 22500000LL * 12 + 30002LL * 4 + 4 * 15000LL * 8 + 10 * 4 * 15000LL * 8);
  // Fused: 2-byte indices up to 65536 columns (A) or rows (A^T), b also in double, v twice,
  // per work item (a row of the longer side, or one of at most a segment or band piece per
  // 16 nonzeros) a sum in double, two offsets and the padding of a piece (3 floats or 1
  // double, with a 4-byte index), the offsets of rows again for the long rows, per λ h,
  // hbar, x and a partial norm per 256 columns, no block; the finishing passes' partials (a
  // warp per 128 rows or per further segment, and a partial and a count per 64 warps) and
  // a bit per row of A and A^T, worked out here for the two shapes:
  //   15000 x 15000, 22.5 M nonzeros: 117 + 1406250 + 1 = 1406368 warps, 8 bytes each
  //     (11250944); 21974 + 1 = 21975 groups of 64, 12 bytes each (263700); 30000 bits (3750
  //     bytes); and 8: 11518402 bytes.
  //   70000 x 15000: 546 + 1406250 + 1 = 1406797 warps (11254376); 21981 + 1 = 21982 groups
  //     (263784); 85000 bits (10625 bytes); and 8: 11528793 bytes.
  const long long finish_square = 11518402, finish_tall = 11528793;
  EXPECT_EQ(device_bytes_needed(15000, 15000, 22500000, Precision::float32, 10,
                                RidgeKernels::fused),
            2 * 22500000LL * 6 + 30002LL * 4 + 15000LL * 16 + 3 * 15000LL * 4 +
                (15000LL + 22500000LL / 16) * (8 + 8 + 3 * 8) + 30002LL * 4 + finish_square +
                10 * (3 * 15000LL * 4 + 59 * 8));
  EXPECT_EQ(device_bytes_needed(70000, 15000, 22500000, Precision::float64, 10,
                                RidgeKernels::fused),
            22500000LL * (16 + 2 + 4) + 85002LL * 4 + 70000LL * 24 + 3 * 15000LL * 8 +
                (70000LL + 22500000LL / 16) * (8 + 8 + 1 * 12) + 85002LL * 4 + finish_tall +
                10 * (3 * 15000LL * 8 + 59 * 8));
  // Rows over ranks add the all-reduce's buffer in double: columns + 2 numbers for Kokkos
  // Kernels; for the fused engine a head and a sum per work item of A^T.
  EXPECT_EQ(device_bytes_needed(7500, 15000, 11250000, Precision::float32, 10, RidgeKernels::kokkos_kernels,
                                true) -
                device_bytes_needed(7500, 15000, 11250000, Precision::float32, 10,
                                    RidgeKernels::kokkos_kernels),
            15002LL * 8);
  EXPECT_EQ(device_bytes_needed(7500, 15000, 11250000, Precision::float32, 10, RidgeKernels::fused, true) -
                device_bytes_needed(7500, 15000, 11250000, Precision::float32, 10, RidgeKernels::fused),
            (1 + 15000LL + 11250000LL / 16) * 8);
  EXPECT_NO_THROW(check_device_memory(100, 100, "d.yaml:2:11: ridge.matrix", "A", "GPU"));
  EXPECT_NO_THROW(check_device_memory(100, -1, "d.yaml:2:11: ridge.matrix", "A", "GPU"));
  try {
    check_device_memory(3LL << 30, 1LL << 29, "d.yaml:2:11: ridge.matrix", "the 9 x 9 matrix",
                        "NVIDIA H200");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "d.yaml:2:11: ridge.matrix: the 9 x 9 matrix needs 3.00 GiB of device "
                           "memory but NVIDIA H200 has 0.50 GiB free");
  }
}

}  // namespace
}  // namespace trident::ridge
