// The multi-shift LSMR sweep, with both engines (fused and Kokkos Kernels), against float64
// references: a dense Cholesky solve of the damped normal equations, and one-λ LSMR solves
// done separately.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "core/overrides.hpp"
#include "reference.hpp"
#include "ridge/detail/lsmr_sweep.hpp"
#include "ridge/detail/problem.hpp"
#include "ridge/detail/sweep_engine.hpp"

namespace trident::ridge {
namespace {

struct Shape {
  int rows, columns;
  const char* name;
};

Problem random_problem(const Shape& s, std::uint64_t seed) {
  Problem p;
  p.a = generate_matrix(s.rows, s.columns, 0.3, seed);
  // Signed values make a less benign matrix than the tutorial's [0, 1).
  for (std::size_t k = 0; k < p.a.values.size(); ++k)
    if (k % 3 == 1) p.a.values[k] = -2.0 * p.a.values[k];
  p.b = generate_rhs(static_cast<std::size_t>(s.rows), 0.5, 2.0, seed + 7);
  return p;
}

using ridge::RidgeKernels;
using test::relative_difference;
using test::solution_row;
using core::Precision;

const RidgeKernels kBothEngines[] = {RidgeKernels::fused, RidgeKernels::kokkos_kernels};

class RidgeAgainstDense
    : public testing::TestWithParam<std::tuple<Shape, Precision, RidgeKernels>> {};

TEST_P(RidgeAgainstDense, EachLambdaMatchesTheNormalEquations) {
  const Shape shape = std::get<0>(GetParam());
  const Precision precision = std::get<1>(GetParam());
  const RidgeKernels kernels = std::get<2>(GetParam());
  const bool single = precision == Precision::float32;
  const Problem p = random_problem(shape, 11);
  // mixed solves A rounded to float32 in float64 arithmetic: the reference uses that A.
  HostCsr reference_a = p.a;
  if (precision == Precision::mixed)
    for (double& v : reference_a.values) v = static_cast<double>(static_cast<float>(v));
  const test::Dense a = test::dense(reference_a);
  const std::vector<double> lambdas = {0.05, 0.3, 1.0, 4.0, 30.0};
  LsmrOptions options;
  options.atol = options.btol = single ? 1e-7 : 1e-12;
  options.max_iterations = 500;
  SweepSolver solver(p, precision, kernels);
  const SweepOutcome out = solver.solve(lambdas, options, true);
  ASSERT_EQ(out.lambdas.size(), lambdas.size());
  // float32 vectors: the accuracy LSMR can reach in single precision for these
  // condition numbers (cond of [A; λI] up to ~200 here); float64 and mixed: close to the
  // tolerance.
  const double tolerance = single ? 2e-4 : 1e-8;
  for (std::size_t j = 0; j < lambdas.size(); ++j) {
    const std::vector<double> expected = test::ridge_by_cholesky(a, p.b, lambdas[j]);
    const std::vector<double> x = solution_row(out.solutions, j, shape.columns);
    EXPECT_LT(relative_difference(x, expected), tolerance)
        << shape.name << " λ=" << lambdas[j] << " iterations " << out.lambdas[j].iterations
        << " stop " << out.lambdas[j].stop_reason;
    std::vector<double> r = test::multiply(a, expected);
    for (std::size_t i = 0; i < r.size(); ++i) r[i] = p.b[i] - r[i];
    EXPECT_NEAR(out.lambdas[j].residual_norm, test::norm(r), 10 * tolerance * test::norm(p.b));
    EXPECT_NEAR(out.lambdas[j].solution_norm, test::norm(expected), 10 * tolerance * test::norm(expected));
    EXPECT_GE(out.lambdas[j].stop_reason, 1);
    EXPECT_LE(out.lambdas[j].stop_reason, 2);
  }
  // Heavier damping converges sooner; the sweep lasts as long as its slowest λ.
  EXPECT_GE(out.lambdas.front().iterations, out.lambdas.back().iterations);
  std::int64_t most = 0;
  for (const auto& o : out.lambdas) most = std::max(most, o.iterations);
  EXPECT_EQ(out.shared_iterations, most);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, RidgeAgainstDense,
    testing::Combine(testing::Values(Shape{30, 30, "square"}, Shape{45, 20, "tall"},
                                     Shape{18, 40, "wide"}),
                     testing::Values(Precision::float32, Precision::float64,
                                     Precision::mixed),
                     testing::ValuesIn(kBothEngines)),
    [](const testing::TestParamInfo<RidgeAgainstDense::ParamType>& info) {
      std::string name = std::string(std::get<0>(info.param).name) + "_" +
                         core::precision_name(std::get<1>(info.param)) + "_" +
                         ridge::kernels_name(std::get<2>(info.param));
      for (char& c : name)
        if (c == '-') c = '_';
      return name;
    });

TEST(RidgeSweep, SharedBidiagonalizationEqualsSeparateSolves) {
  const Shape shapes[] = {{35, 25, "tall"}, {20, 32, "wide"}};
  for (const RidgeKernels kernels : kBothEngines)
  for (const Shape& shape : shapes) {
    SCOPED_TRACE(ridge::kernels_name(kernels));
    const Problem p = random_problem(shape, 5);
    const test::Dense a = test::dense(p.a);
    const std::vector<double> lambdas = {0.01, 0.2, 0.9, 3.0, 12.0, 100.0};
    LsmrOptions options;
    options.atol = options.btol = 1e-7;  // stops well above rounding noise, so both agree
    options.conlim = 1e8;
    options.max_iterations = 400;
    SweepSolver solver(p, true, kernels);
    const SweepOutcome together = solver.solve(lambdas, options, true);
    for (std::size_t j = 0; j < lambdas.size(); ++j) {
      // The same sweep code with this λ alone: the fused engine's products sum in a fixed
      // order, so the two agree to rounding of the update alone; cuSPARSE (under Kokkos
      // Kernels on GPUs) may sum in another order on each call, and rounding then grows over
      // the iterations as it does against the plain reference below.
      const bool deterministic = kernels == RidgeKernels::fused;
      const SweepOutcome alone = solver.solve({lambdas[j]}, options, true);
      EXPECT_NEAR(alone.lambdas[0].iterations, together.lambdas[j].iterations, deterministic ? 0 : 1);
      EXPECT_EQ(alone.lambdas[0].stop_reason, together.lambdas[j].stop_reason);
      EXPECT_LT(relative_difference(solution_row(together.solutions, j, shape.columns), alone.solutions),
                deterministic ? 1e-13 : 1e-6);
      // ...and an independent one-λ LSMR with dense products.
      const test::PlainLsmr plain = test::plain_lsmr(a, p.b, lambdas[j], options.atol,
                                                     options.btol, options.conlim, 400);
      // The stopping test compares a quantity with atol; where it lands within rounding of
      // atol, a different summation order (the fused engine sums packs of entries in two
      // chains) can move the stop by one iteration.
      EXPECT_NEAR(together.lambdas[j].iterations, plain.iterations, 1)
          << shape.name << " λ=" << lambdas[j] << " stop " << together.lambdas[j].stop_reason
          << " vs " << plain.istop;
      EXPECT_EQ(together.lambdas[j].stop_reason, plain.istop) << shape.name << " λ=" << lambdas[j];
      // Same recurrences, different rounding (u kept unnormalized, fused updates): late in
      // the Krylov space rounding grows to ~1e-7 here, while a wrong coefficient shows at 1e-2.
      EXPECT_LT(relative_difference(solution_row(together.solutions, j, shape.columns), plain.x), 1e-6)
          << shape.name << " λ=" << lambdas[j] << " iterations " << plain.iterations;
    }
  }
}

TEST(RidgeSweep, ThirtySevenLambdasEachMatchTheDenseSolve) {
  const Problem p = random_problem({24, 24, "square"}, 3);
  std::vector<double> lambdas;
  for (int k = 0; k < 37; ++k) lambdas.push_back(0.02 * std::pow(1.3, k));
  LsmrOptions options;
  options.atol = options.btol = 1e-10;
  options.max_iterations = 500;
  const test::Dense a = test::dense(p.a);
  for (const RidgeKernels kernels : kBothEngines) {
    SweepSolver solver(p, true, kernels);
    const SweepOutcome out = solver.solve(lambdas, options, true);
    for (std::size_t j = 0; j < lambdas.size(); ++j) {
      const std::vector<double> expected = test::ridge_by_cholesky(a, p.b, lambdas[j]);
      EXPECT_LT(relative_difference(solution_row(out.solutions, j, 24), expected), 1e-6)
          << ridge::kernels_name(kernels) << " λ=" << lambdas[j];
    }
  }
}

// More than 65536 columns (A's indices) or rows (A^T's) take 32-bit indices in the fused
// engine; the other matrix keeps 16-bit ones. Rows of 3 entries (fewer packs than a row's
// GPU lanes) and of ~35000 entries. The reference solves the 3 x 3 system
// (A A^T + λ^2 I) y = b for the wide matrix (x = A^T y) and (A^T A + λ^2 I) x = A^T b for
// the tall one.
TEST(RidgeSweep, MatricesBeyondSixteenBitIndicesInBothDirections) {
  const int n = 70000;
  for (const bool wide : {true, false}) {
    Problem p;
    const HostCsr tall = generate_matrix(n, 3, 0.5, wide ? 31 : 32);
    p.a = wide ? transpose(tall) : tall;
    p.b = generate_rhs(static_cast<std::size_t>(p.a.rows), 0.0, 1.0, 33);
    // Gram = T^T T (3 x 3) of the tall matrix T, and the system's right-hand side.
    double gram[3][3] = {}, rhs[3] = {};
    for (int i = 0; i < n; ++i)
      for (int k = tall.row_ptr[i]; k < tall.row_ptr[i + 1]; ++k) {
        for (int l = tall.row_ptr[i]; l < tall.row_ptr[i + 1]; ++l)
          gram[tall.col_ind[k]][tall.col_ind[l]] += tall.values[k] * tall.values[l];
        if (!wide) rhs[tall.col_ind[k]] += tall.values[k] * p.b[i];
      }
    if (wide)
      for (int r = 0; r < 3; ++r) rhs[r] = p.b[r];
    const double lambda = 2.0;
    double m[3][4];
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) m[r][c] = gram[r][c] + (r == c ? lambda * lambda : 0.0);
      m[r][3] = rhs[r];
    }
    for (int c = 0; c < 3; ++c)  // Gauss-Jordan: the matrix is symmetric positive definite
      for (int r = 0; r < 3; ++r)
        if (r != c) {
          const double f = m[r][c] / m[c][c];
          for (int q = c; q < 4; ++q) m[r][q] -= f * m[c][q];
        }
    std::vector<double> expected(static_cast<std::size_t>(p.a.columns), 0.0);
    if (wide) {
      for (int i = 0; i < n; ++i)  // x = A^T y = T y
        for (int k = tall.row_ptr[i]; k < tall.row_ptr[i + 1]; ++k)
          expected[i] += tall.values[k] * m[tall.col_ind[k]][3] / m[tall.col_ind[k]][tall.col_ind[k]];
    } else {
      for (int c = 0; c < 3; ++c) expected[c] = m[c][3] / m[c][c];
    }
    LsmrOptions options;
    options.atol = options.btol = 1e-12;
    for (const RidgeKernels kernels : kBothEngines) {
      SweepSolver solver(p, true, kernels);
      const SweepOutcome out = solver.solve({lambda}, options, true);
      EXPECT_LT(relative_difference(out.solutions, expected), 1e-9)
          << (wide ? "wide " : "tall ") << ridge::kernels_name(kernels);
    }
  }
}

// The bytes one iteration reads, the benchmark's floor: the fused engine pads each row to
// a 16-byte pack of values (4 floats, 2 doubles) and uses 2-byte indices; Kokkos Kernels
// reads 4-byte indices and no padding. Offsets are 4 bytes, rows + 1 per matrix.
TEST(RidgeSweep, BytesPerIterationCountPaddingIndicesAndOffsets) {
  Problem p;  // 3 x 5: row 0 holds column 2, row 1 columns 0, 1, 3 and 4, row 2 nothing
  p.a = csr_from_triplets(3, 5, {{0, 2, 1.0}, {1, 0, 2.0}, {1, 1, 3.0}, {1, 3, 4.0}, {1, 4, 5.0}});
  p.b = {1.0, 2.0, 3.0};
  // float32: A pads to 4 + 4 + 0 entries, A^T (five rows of one entry) to 5 x 4.
  EXPECT_EQ(SweepSolver(p, false).bytes_per_iteration(), (8 * 6 + 4 * 4) + (20 * 6 + 6 * 4));
  // float64: A pads to 2 + 4 + 0, A^T to 5 x 2, each entry 8 + 2 bytes.
  EXPECT_EQ(SweepSolver(p, true).bytes_per_iteration(), (6 * 10 + 4 * 4) + (10 * 10 + 6 * 4));
  EXPECT_EQ(SweepSolver(p, false, RidgeKernels::kokkos_kernels).bytes_per_iteration(),
            (5 * 8 + 4 * 4) + (5 * 8 + 6 * 4));
  // And the padded rows solve the same problem.
  LsmrOptions options;
  options.atol = options.btol = 1e-12;
  const test::Dense a = test::dense(p.a);
  for (const RidgeKernels kernels : kBothEngines) {
    const SweepOutcome out = SweepSolver(p, true, kernels).solve({0.5}, options, true);
    EXPECT_LT(relative_difference(out.solutions, test::ridge_by_cholesky(a, p.b, 0.5)), 1e-10)
        << ridge::kernels_name(kernels);
  }
}

TEST(RidgeSweep, ZeroRightHandSideStopsAtOnceWithZeroSolution) {
  Problem p = random_problem({10, 8, "tall"}, 9);
  std::fill(p.b.begin(), p.b.end(), 0.0);
  for (const RidgeKernels kernels : kBothEngines) {
    SweepSolver solver(p, false, kernels);
    const SweepOutcome out = solver.solve({0.5, 2.0}, LsmrOptions{}, true);
    for (const auto& o : out.lambdas) {
      EXPECT_EQ(o.stop_reason, kStopZeroSolution);
      EXPECT_EQ(o.iterations, 0);
      EXPECT_EQ(o.solution_norm, 0.0);
    }
    EXPECT_EQ(out.shared_iterations, 0);
  }
}

TEST(RidgeSweep, IterationLimitIsReportedAsStopReasonSeven) {
  const Problem p = random_problem({30, 30, "square"}, 4);
  LsmrOptions options;
  options.atol = options.btol = 1e-15;
  options.conlim = 0;
  options.max_iterations = 3;
  for (const RidgeKernels kernels : kBothEngines) {
    SweepSolver solver(p, true, kernels);
    const SweepOutcome out = solver.solve({0.01}, options, false);
    EXPECT_EQ(out.lambdas[0].iterations, 3);
    EXPECT_EQ(out.lambdas[0].stop_reason, kStopIterationLimit);
    EXPECT_EQ(out.shared_iterations, 3);
    EXPECT_TRUE(out.solutions.empty());
  }
}

// Iteration q tests iteration q - 1, so a sweep stopped by its iteration limit N runs the
// products of N + 1 iterations: no engine queues more (the fused engine once queued whole
// blocks of 32, whose iterations past the stop skipped their products but still scheduled
// their grids). A sweep stopped by its tolerances is looked at after blocks of at most 32.
TEST(RidgeSweep, NothingIsQueuedPastTheIterationLimit) {
  const Problem p = random_problem({300, 200, "tall"}, 12);
  LsmrOptions limited;
  limited.atol = limited.btol = 0;
  limited.conlim = 0;
  limited.max_iterations = 41;
  LsmrOptions converging;
  converging.atol = converging.btol = 1e-9;
  for (const RidgeKernels kernels : kBothEngines) {
    for (const bool float64 : {true, false}) {
      SweepSolver solver(p, float64, kernels);
      const SweepOutcome out = solver.solve({0.05, 5.0}, limited, false);
      EXPECT_EQ(out.shared_iterations, 41);
      EXPECT_EQ(out.queued_iterations, 42);
      const SweepOutcome free = solver.solve({0.05, 5.0}, converging, false);
      EXPECT_GT(free.shared_iterations, 64);
      EXPECT_GT(free.queued_iterations, free.shared_iterations);
      EXPECT_LE(free.queued_iterations, free.shared_iterations + (kernels == RidgeKernels::fused ? 32 : 1));
    }
  }
}

TEST(RidgeSweep, ChecksForTheStopAboutEveryFourMilliseconds) {
  EXPECT_EQ(iterations_per_check(0.0), 32);  // nothing measured
  EXPECT_EQ(iterations_per_check(std::nan("")), 32);
  EXPECT_EQ(iterations_per_check(1e-6), 32);
  EXPECT_EQ(iterations_per_check(100e-6), 32);  // the tutorial's iterations on an H200
  EXPECT_EQ(iterations_per_check(340e-6), 12);  // 2^24 nonzeros in float64
  EXPECT_EQ(iterations_per_check(2.2e-3), 2);   // 2^27 in float32
  EXPECT_EQ(iterations_per_check(1.0), 1);
}

// The fused engine records an iteration once and replays it on CUDA builds (CUDA graphs;
// iteration_graphs off, TRIDENT_RIDGE_GRAPHS=off, queues it kernel by kernel): the same
// kernels in the same order, so the same sweep bit for bit. On other builds both take the
// queued path.
TEST(RidgeSweep, RecordedIterationsGiveTheQueuedSweepBitForBit) {
  const Problem p = random_problem({300, 200, "tall"}, 12);
  LsmrOptions options;
  options.atol = options.btol = 1e-9;
  const std::vector<double> lambdas = {0.05, 0.5, 5.0};
  const bool cuda = std::string(Kokkos::DefaultExecutionSpace::name()) == "Cuda";
  const EngineOptions queue_each = EngineOptions::from_overrides(core::parse_overrides({"TRIDENT_RIDGE_GRAPHS=off"}));
  ASSERT_EQ(queue_each.iteration_graphs, core::Switch::off);
  for (const Precision precision : {Precision::float64, Precision::float32}) {
    SweepSolver queued(p, precision, RidgeKernels::fused, nullptr, queue_each);
    EXPECT_EQ(queued.product_layout().find("CUDA graphs"), std::string::npos);
    const SweepOutcome a = queued.solve(lambdas, options, true);
    SweepSolver recorded(p, precision);
    EXPECT_EQ(recorded.product_layout().find("CUDA graphs") != std::string::npos, cuda) << recorded.product_layout();
    const SweepOutcome b = recorded.solve(lambdas, options, true);
    EXPECT_GT(a.shared_iterations, 64);  // several blocks of 32 recorded iterations
    EXPECT_EQ(a.shared_iterations, b.shared_iterations);
    for (std::size_t j = 0; j < lambdas.size(); ++j) {
      EXPECT_EQ(a.lambdas[j].iterations, b.lambdas[j].iterations);
      EXPECT_EQ(a.lambdas[j].stop_reason, b.lambdas[j].stop_reason);
      EXPECT_EQ(a.lambdas[j].residual_norm, b.lambdas[j].residual_norm);
      EXPECT_EQ(a.lambdas[j].solution_norm, b.lambdas[j].solution_norm);
    }
    EXPECT_EQ(a.solutions, b.solutions);
  }
  for (const char* bad : {"yes", "1"}) {
    try {
      core::parse_overrides({std::string("TRIDENT_RIDGE_GRAPHS=") + bad});
      ADD_FAILURE() << "TRIDENT_RIDGE_GRAPHS=" << bad << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("TRIDENT_RIDGE_GRAPHS: expected auto, on or off, got '") + bad + "'");
    }
  }
}

}  // namespace
}  // namespace trident::ridge
