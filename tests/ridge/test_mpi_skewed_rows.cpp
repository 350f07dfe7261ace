// Matrices with dense rows, dense columns (dense rows of A^T), empty rows and an empty
// column, swept with the fused engine's rows cut into segments or stored in column bands
// (forced on these small matrices through EngineOptions) and with whole rows: all give
// the dense reference's L-curve, each other's to rounding, and on any rank count the same
// bits as one rank.
#include <gtest/gtest.h>

#include <mpi.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "reference.hpp"
#include "ridge/detail/lsmr_sweep.hpp"
#include "ridge/detail/problem.hpp"
#include "ridge/detail/engine_options.hpp"
#include "ridge/detail/sweep.hpp"

namespace trident::ridge {
namespace {

using ridge::RidgeKernels;
using core::Precision;
using test::relative_difference;
using test::solution_row;

// How a solver lays out the rows: whole, cut into segments of some packs, or stored as
// their pieces in column bands, on any matrix.
struct Layout {
  int segments;  // -1: never cut
  int bands;     // -1: none
  std::string name() const {
    return bands > 0 ? std::to_string(bands) + " column bands"
                     : segments > 0 ? "segments of " + std::to_string(segments) + " packs" : "whole rows";
  }
  EngineOptions options() const {
    EngineOptions o;
    o.schedule.row_segments = segments;
    o.schedule.column_bands = bands;
    o.schedule.bands_on_any_matrix = bands > 0;
    return o;
  }
};

// rows x columns, about 15 % random signed entries, plus: `dense_rows` rows holding every
// column, `dense_columns` columns present in every nonempty row, rows 1, 2 and the last
// empty, and the last column empty.
Problem skewed_problem(int rows, int columns, int dense_rows, int dense_columns, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0), coin(0.0, 1.0);
  std::vector<Triplet> t;
  for (int i = 0; i < rows; ++i) {
    if (i == 1 || i == 2 || i == rows - 1) continue;
    const bool dense = i >= 5 && i < 5 + dense_rows;
    for (int j = 0; j < columns - 1; ++j)
      if (dense || j < dense_columns || coin(rng) < 0.15) t.push_back({i, j, value(rng)});
  }
  Problem p;
  p.a = csr_from_triplets(rows, columns, t);
  p.b = generate_rhs(static_cast<std::size_t>(rows), 0.5, 2.0, seed + 1);
  return p;
}

struct Case {
  const char* name;
  Problem problem;
};

std::vector<Case> skewed_cases() {
  return {{"dense rows", skewed_problem(70, 33, 3, 0, 5)},
          {"dense columns", skewed_problem(90, 26, 0, 3, 6)},
          {"both", skewed_problem(64, 40, 2, 2, 7)}};
}

const std::vector<double> kLambdas = {0.02, 0.3, 2.0, 20.0};

LsmrOptions options_for(Precision precision) {
  LsmrOptions o;
  o.atol = o.btol = precision == Precision::float32 ? 1e-7 : 1e-12;
  o.max_iterations = 500;
  return o;
}

// Whole rows, segments of 1 and 3 packs (every row longer is cut), and 3 column bands.
const Layout kLayouts[] = {{-1, -1}, {1, -1}, {3, -1}, {-1, 3}};

TEST(SkewedRows, SplitAndWholeRowsGiveTheDenseReferenceCurve) {
  for (const Precision precision :
       {Precision::float64, Precision::float32, Precision::mixed}) {
    const bool single = precision == Precision::float32;
    for (const Case& c : skewed_cases()) {
      SCOPED_TRACE(std::string(c.name) + ", " + core::precision_name(precision));
      const Problem& p = c.problem;
      HostCsr reference_a = p.a;  // mixed and float32 hold A in float32
      if (precision != Precision::float64)
        for (double& v : reference_a.values) v = static_cast<double>(static_cast<float>(v));
      const test::Dense a = test::dense(reference_a);
      const double tolerance = single ? 2e-4 : 1e-8;
      std::vector<SweepOutcome> curves;
      for (const Layout& layout : kLayouts) {
        SCOPED_TRACE(layout.name());
        SweepSolver solver(p, precision, RidgeKernels::fused, nullptr, layout.options());
        // A^T always has rows past 3 packs here; the log line says so.
        EXPECT_EQ(solver.product_layout().find("cut into segments") != std::string::npos, layout.segments > 0)
            << solver.product_layout();
        EXPECT_EQ(solver.product_layout().find("columns in 3 bands") != std::string::npos, layout.bands > 0)
            << solver.product_layout();
        curves.push_back(solver.solve(kLambdas, options_for(precision), true));
        const SweepOutcome& out = curves.back();
        for (std::size_t j = 0; j < kLambdas.size(); ++j) {
          const std::vector<double> expected = test::ridge_by_cholesky(a, p.b, kLambdas[j]);
          EXPECT_LT(relative_difference(solution_row(out.solutions, j, p.a.columns), expected), tolerance)
              << "λ=" << kLambdas[j];
          EXPECT_EQ(out.solutions[j * p.a.columns + p.a.columns - 1], 0.0);  // the empty column
          std::vector<double> r = test::multiply(a, expected);
          for (std::size_t i = 0; i < r.size(); ++i) r[i] = p.b[i] - r[i];
          EXPECT_NEAR(out.lambdas[j].residual_norm, test::norm(r), 10 * tolerance * test::norm(p.b));
          EXPECT_NEAR(out.lambdas[j].solution_norm, test::norm(expected), 10 * tolerance * test::norm(expected));
        }
      }
      // Split against whole rows: the same points to rounding (the sums differ in order only).
      for (std::size_t k = 1; k < curves.size(); ++k)
        for (std::size_t j = 0; j < kLambdas.size(); ++j) {
          EXPECT_NEAR(curves[k].lambdas[j].iterations, curves[0].lambdas[j].iterations, 1);
          EXPECT_NEAR(curves[k].lambdas[j].residual_norm, curves[0].lambdas[j].residual_norm,
                      tolerance * curves[0].lambdas[j].residual_norm);
          EXPECT_NEAR(curves[k].lambdas[j].solution_norm, curves[0].lambdas[j].solution_norm,
                      tolerance * curves[0].lambdas[j].solution_norm);
        }
    }
  }
}

// Over the ranks (1 to 4 in the suite, 3 among them), the split sweep equals one rank's
// solve of every λ bit for bit: the schedule depends on the matrix alone.
TEST(MpiSkewedRows, SplitSweepIsBitwiseTheSameOnAnyRankCount) {
  for (const Precision precision : {Precision::float64, Precision::float32}) {
    for (const Case& c : skewed_cases()) {
      for (const Layout& layout : kLayouts) {
        SCOPED_TRACE(std::string(c.name) + ", " + core::precision_name(precision) + ", " + layout.name());
        SweepSolver solver(c.problem, precision, RidgeKernels::fused, nullptr, layout.options());
        const GatheredSweep spread =
            sweep_over_ranks(MPI_COMM_WORLD, solver, kLambdas, options_for(precision), true);
        const SweepOutcome alone = solver.solve(kLambdas, options_for(precision), true);
        ASSERT_EQ(spread.outcomes().size(), kLambdas.size());
        for (std::size_t j = 0; j < kLambdas.size(); ++j) {
          const LambdaOutcome& s = spread.outcomes()[j];
          EXPECT_EQ(s.iterations, alone.lambdas[j].iterations);
          EXPECT_EQ(s.stop_reason, alone.lambdas[j].stop_reason);
          EXPECT_EQ(s.residual_norm, alone.lambdas[j].residual_norm);
          EXPECT_EQ(s.solution_norm, alone.lambdas[j].solution_norm);
        }
        const int columns = c.problem.a.columns;
        const auto block = rank_block(kLambdas.size(), mpi::size(MPI_COMM_WORLD), mpi::rank(MPI_COMM_WORLD));
        ASSERT_EQ(spread.local_solutions().size(), (block.second - block.first) * columns);
        for (std::size_t k = 0; k < spread.local_solutions().size(); ++k)
          EXPECT_EQ(spread.local_solutions()[k], alone.solutions[block.first * columns + k]);
      }
    }
  }
}

}  // namespace
}  // namespace trident::ridge
