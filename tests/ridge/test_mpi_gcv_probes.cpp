// GCV's probes on the device (SweepSolver::bidiagonalize_probes, blocks of kProbeWidth
// sharing each pass over A) against the host float64 reference (gcv_reference.hpp: one
// probe at a time, plain loops, the whole matrix on one rank), on 1 to 4 ranks with the
// rows split (uneven blocks, a rank without rows) and with λ groups sharing out the probes,
// both engines, the fused engine's schedules (lanes, segments of long rows, column bands).
//  - each probe's alphas and betas to 1e-10 relative over the first 8 steps (float64; the
//    two differ in the order of their sums alone);
//  - the traces, on columns graded over 1 and over 4 decades, 30 and 70 steps (the
//    matrix's 40 columns passed), float64 and float32 (A's values in float, the probes'
//    vectors in double): within 0.6 of the reference's own distance from the exact
//    mean of z^T A (A^T A + λ^2 I)^-1 A^T z over the same probes (dense Cholesky solves),
//    plus 1e-10 relative (float32: 2e-8, A rounded to float). Once the Lanczos vectors
//    lose orthogonality, where the quadrature has not converged (λ below the smallest
//    singular values on the 4-decade matrix: the reference itself is 28 % off at 30
//    steps), the steps depend on rounding: there the device and the reference differ by up
//    to half of that error (49 % on one H200, at most 0.5 % of the trace), so 0.6 of it is
//    allowed; where it has converged, to rounding.
#include <gtest/gtest.h>

#include <mpi.h>

#include <algorithm>
#include <cmath>

#include "core/comm.hpp"
#include "row_blocks.hpp"
#include "gcv_reference.hpp"
#include "reference.hpp"
#include "ridge/detail/csr.hpp"
#include "ridge/detail/gcv.hpp"
#include "ridge/detail/matrix_rows.hpp"
#include "ridge/detail/selection.hpp"
#include "ridge/detail/sweep.hpp"

namespace trident::ridge {
namespace {

using core::Precision;

// A 300 x 40 matrix of columns graded over `decades` with a dense row, a dense column,
// empty rows and pseudo-random entries.
Problem test_problem(const double decades) {
  constexpr int kRows = 300, kColumns = 40;
  std::vector<Triplet> entries;
  std::uint64_t state = 12345;
  const auto next = [&state]() {
    state = probes::splitmix64(state);
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  for (int i = 0; i < kRows; ++i) {
    if (i % 37 == 5) continue;  // empty rows
    for (int j = 0; j < kColumns; ++j) {
      const bool dense = i == 17 || j == 3;
      if (!dense && next() > 0.15) continue;
      entries.push_back({i, j, (next() - 0.4) * std::pow(10.0, -decades * j / kColumns)});
    }
  }
  Problem p;
  p.a = csr_from_triplets(kRows, kColumns, entries);
  p.b.assign(kRows, 1.0);
  return p;
}

using test::block_of;
using test::relative;

// This rank's rows of its group: uneven blocks, the last rank of a group of 3 or more
// without rows.
std::vector<std::int64_t> uneven_bounds(std::int64_t rows, int parts) {
  std::vector<std::int64_t> bounds{0};
  if (parts == 1) return {0, rows};
  for (int r = 1; r < parts; ++r)
    bounds.push_back(parts >= 3 && r == parts - 1 ? rows : rows * r * r / (parts * parts));
  bounds.push_back(rows);
  return bounds;
}

// This rank's rows of `whole` in its λ group of `layout` (uneven_bounds).
Problem rows_of_rank(const Problem& whole, const SweepLayout& layout) {
  const std::vector<std::int64_t> bounds = uneven_bounds(whole.a.rows, layout.group_size());
  const int r = layout.rank_in_group();
  return block_of(whole, bounds[r], bounds[r + 1] - bounds[r]);
}

// z^T A (A^T A + λ^2 I)^-1 A^T z of each probe (probe p, λ j at p * lambdas + j), by dense
// Cholesky solves.
std::vector<double> exact_forms(const Problem& whole, const std::vector<double>& lambdas, std::int64_t probes,
                                std::uint64_t seed) {
  const test::Dense a = test::dense(whole.a);
  std::vector<double> out;
  for (std::int64_t p = 0; p < probes; ++p) {
    std::vector<double> z(whole.a.rows);
    for (int i = 0; i < whole.a.rows; ++i) z[i] = test::probe_sign(seed, p, i);
    for (std::size_t j = 0; j < lambdas.size(); ++j) {
      const std::vector<double> ax = test::multiply(a, test::ridge_by_cholesky(a, z, lambdas[j]));
      double s = 0;
      for (int i = 0; i < whole.a.rows; ++i) s += z[i] * ax[i];
      out.push_back(s);
    }
  }
  return out;
}

// Their mean over the probes.
std::vector<double> exact_traces(const Problem& whole, const std::vector<double>& lambdas, std::int64_t probes,
                                 std::uint64_t seed) {
  const std::vector<double> forms = exact_forms(whole, lambdas, probes, seed);
  std::vector<double> out(lambdas.size(), 0.0);
  for (std::int64_t p = 0; p < probes; ++p)
    for (std::size_t j = 0; j < lambdas.size(); ++j)
      out[j] += forms[static_cast<std::size_t>(p) * lambdas.size() + j] / static_cast<double>(probes);
  return out;
}

struct Case {
  const char* name;
  RidgeKernels kernels;
  ScheduleOptions schedule;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back({"fused", RidgeKernels::fused, {}});
  ScheduleOptions segments;
  segments.row_segments = 2;
  segments.row_lanes = 4;
  out.push_back({"fused, segments of 2 packs, 4 lanes", RidgeKernels::fused, segments});
  ScheduleOptions bands;
  bands.column_bands = 3;
  bands.bands_on_any_matrix = true;
  bands.row_segments = -1;
  out.push_back({"fused, 3 column bands", RidgeKernels::fused, bands});
  out.push_back({"kokkos-kernels", RidgeKernels::kokkos_kernels, {}});
  return out;
}

// Each block's alphas and betas against the reference's, probe by probe, on every layout.
TEST(MpiGcvProbes, BlocksMatchTheHostReference) {
  const Problem whole = test_problem(1);
  const int ranks = mpi::size(MPI_COMM_WORLD);
  // While the Lanczos vectors stay orthogonal: later the steps depend on rounding (here by
  // 3e-8 at step 10 and 1 at step 13 between two float64 runs that sum in other orders),
  // which the traces' test below bounds.
  constexpr std::int64_t kSteps = 8;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const std::vector<std::int64_t> bounds = uneven_bounds(whole.a.rows, ranks);
    const int me = mpi::rank(MPI_COMM_WORLD);
    const Problem mine = block_of(whole, bounds[me], bounds[me + 1] - bounds[me]);
    SweepLayout layout(MPI_COMM_WORLD, 1);
    EngineOptions options;
    options.schedule = c.schedule;
    SweepSolver solver(mine, Precision::float64, c.kernels, layout.rows_comm(), options);
    for (const std::int64_t first : {std::int64_t(0), std::int64_t(5)}) {
      ProbeStart start;
      start.seed = 9;
      start.first_probe = first;
      start.count = first == 0 ? kProbeWidth : 3;
      start.first_row = mine.first_row;
      start.total_rows = whole.a.rows;
      const ProbeNorms norms = solver.bidiagonalize_probes(start, kSteps);
      for (int q = 0; q < start.count; ++q) {
        const ProbeBidiagonal device = probe_bidiagonal(norms, q);
        const ProbeBidiagonal host = test::bidiagonalize_probe(MPI_COMM_NULL, whole, 9, first + q, kSteps);
        ASSERT_EQ(device.alpha.size(), host.alpha.size()) << "probe " << first + q;
        ASSERT_EQ(device.beta.size(), host.beta.size()) << "probe " << first + q;
        for (std::size_t k = 0; k < host.alpha.size(); ++k)
          EXPECT_LE(relative(device.alpha[k], host.alpha[k]), 1e-10) << "probe " << first + q << " step " << k;
        for (std::size_t k = 0; k < host.beta.size(); ++k)
          EXPECT_LE(relative(device.beta[k], host.beta[k]), 1e-10) << "probe " << first + q << " step " << k;
      }
      // the block's unused probes stay zero
      for (int q = start.count; q < kProbeWidth; ++q) EXPECT_EQ(norms.beta2[q], 0.0);
    }
  }
}

// The traces estimate_traces gives (blocks of probes shared out over the λ groups, rows over
// each group's ranks) against the reference's, for every divisor of the rank count as the λ groups.
TEST(MpiGcvProbes, TracesMatchTheHostReferenceOnEveryLayout) {
  for (const double decades : {1.0, 4.0}) {
    const Problem whole = test_problem(decades);
    const int ranks = mpi::size(MPI_COMM_WORLD);
    const std::vector<double> lambdas = {1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0, 10.0};
    constexpr std::int64_t kProbes = 11;  // a block of 8 and one of 3, on one group or two
    for (const Case& c : cases())
      for (int groups = 1; groups <= ranks; ++groups) {
        if (ranks % groups != 0) continue;
        for (const Precision precision : {Precision::float64, Precision::float32})
          for (const std::int64_t steps : {std::int64_t(30), std::int64_t(70)}) {
            SCOPED_TRACE(std::to_string(decades) + " decades, " + std::string(c.name) + ", " + std::to_string(groups) +
                         " λ groups, " + core::precision_name(precision) + ", " + std::to_string(steps) + " steps");
            SweepLayout layout(MPI_COMM_WORLD, groups);
            const Problem mine = rows_of_rank(whole, layout);
            EngineOptions options;
            options.schedule = c.schedule;
            SweepSolver solver(mine, precision, c.kernels, layout.rows_comm(), options);
            const TraceEstimate t = estimate_traces(MPI_COMM_WORLD, layout, solver, mine.first_row, whole.a.rows,
                                                    lambdas, kProbes, 3, steps);
            const std::vector<double> reference = test::reference_traces(whole, lambdas, kProbes, 3, steps);
            const std::vector<double> exact = exact_traces(whole, lambdas, kProbes, 3);
            const double rounding = precision == Precision::float32 ? 2e-8 : 1e-10;
            EXPECT_EQ(t.steps, steps);
            for (std::size_t j = 0; j < lambdas.size(); ++j) {
              EXPECT_LE(std::abs(t.lower[j] - reference[j]),
                        0.6 * std::abs(reference[j] - exact[j]) + rounding * reference[j])
                  << "λ " << lambdas[j] << ": reference " << reference[j] << ", exact " << exact[j];
              // the Gauss rule from above, the Gauss-Radau rule from below (A rounded to float
              // in float32 moves the exact mean by about `rounding`)
              EXPECT_LE(t.lower[j], exact[j] * (1 + rounding)) << "λ " << lambdas[j];
              EXPECT_GE(t.upper[j], exact[j] * (1 - rounding)) << "λ " << lambdas[j];
              EXPECT_EQ(t.settled[j], 1);  // nothing judged: all the steps run
              // every rank holds the same
              EXPECT_EQ(mpi::max_over_ranks(MPI_COMM_WORLD, t.lower[j]), t.lower[j]);
              EXPECT_EQ(mpi::max_over_ranks(MPI_COMM_WORLD, t.upper[j]), t.upper[j]);
            }
          }
      }
  }
}

}  // namespace
}  // namespace trident::ridge

namespace trident::ridge {
namespace {

// With every λ judged, a block's steps end once its quadratures have settled: well before
// the 400 steps allowed, at a check (a multiple of kProbeCheckEvery), the same count on
// every rank, and each trace then off the exact mean over the same probes by at most half
// that mean's standard error (the probes' spread over √probes; kGcvSettledSpread aims at
// about a sixth), or by 1e-5 of G where the probes do not spread.
TEST(MpiGcvProbes, SettledQuadraturesEndTheStepsEarly) {
  const int ranks = mpi::size(MPI_COMM_WORLD);
  const std::vector<double> lambdas = {1e-3, 1e-2, 0.1, 1.0, 10.0};
  const std::vector<std::uint8_t> judged(lambdas.size(), 1);
  constexpr std::int64_t kProbes = 11, kMostSteps = 400;
  for (const double decades : {1.0, 2.0})
    for (int groups = 1; groups <= ranks; ++groups) {
      if (ranks % groups != 0) continue;
      SCOPED_TRACE(std::to_string(decades) + " decades, " + std::to_string(groups) + " λ groups");
      const Problem whole = test_problem(decades);
      SweepLayout layout(MPI_COMM_WORLD, groups);
      const Problem mine = rows_of_rank(whole, layout);
      SweepSolver solver(mine, Precision::float32, RidgeKernels::fused, layout.rows_comm());
      GcvSettling settling;
      settling.judged = judged;
      const TraceEstimate t = estimate_traces(MPI_COMM_WORLD, layout, solver, mine.first_row, whole.a.rows, lambdas,
                                              kProbes, 3, kMostSteps, settling);
      const std::vector<double>& traces = t.lower;
      const std::int64_t taken = t.steps;
      EXPECT_LT(taken, kMostSteps);
      EXPECT_EQ(taken % kProbeCheckEvery, 0);
      EXPECT_EQ(mpi::max_over_ranks(MPI_COMM_WORLD, double(taken)), double(taken));
      const std::vector<double> forms = exact_forms(whole, lambdas, kProbes, 3);
      const std::vector<double> exact = exact_traces(whole, lambdas, kProbes, 3);
      const double rows = whole.a.rows;
      for (std::size_t j = 0; j < lambdas.size(); ++j) {
        double squares = 0;
        for (std::int64_t p = 0; p < kProbes; ++p)
          squares += std::pow(forms[static_cast<std::size_t>(p) * lambdas.size() + j] - exact[j], 2);
        const double standard_error = std::sqrt(squares / (kProbes - 1) / kProbes);
        EXPECT_LE(std::abs(traces[j] - exact[j]), 0.5 * standard_error + 5 * kGcvSettled * (rows - exact[j]))
            << "λ " << lambdas[j] << " after " << taken << " steps, standard error " << standard_error;
        EXPECT_EQ(t.settled[j], 1) << "λ " << lambdas[j];
      }
    }
}

// gcv_settle: minimum. A block's steps end once the judged λ of least G (from below) is
// settled and every other judged λ's G from below exceeds its G from above (or it settled
// too): with one block, sooner than settling every λ. Then each λ's bounds still bracket the
// exact mean over the same probes (dense Cholesky solves), the least G from below is the
// exact mean's least G and settled, and a λ reported settled is within the settled rule's
// error of the exact mean.
TEST(MpiGcvProbes, ADecidedMinimumEndsTheStepsSooner) {
  const int ranks = mpi::size(MPI_COMM_WORLD);
  std::vector<double> lambdas;
  for (int j = 0; j <= 12; ++j) lambdas.push_back(1e-4 * std::pow(10.0, j / 3.0));
  const std::vector<std::uint8_t> judged(lambdas.size(), 1);
  constexpr std::int64_t kMostSteps = 400;
  const Problem whole = test_problem(2.0);
  const test::Dense a = test::dense(whole.a);
  const double rows = whole.a.rows;
  std::vector<double> residual_norms;
  for (const double lambda : lambdas) {
    const std::vector<double> ax = test::multiply(a, test::ridge_by_cholesky(a, whole.b, lambda));
    double s = 0;
    for (int i = 0; i < whole.a.rows; ++i) s += (whole.b[i] - ax[i]) * (whole.b[i] - ax[i]);
    residual_norms.push_back(std::sqrt(s));
  }
  for (const std::int64_t probes : {std::int64_t(8), std::int64_t(11)})
    for (int groups = 1; groups <= ranks; ++groups) {
      if (ranks % groups != 0) continue;
      SCOPED_TRACE(std::to_string(probes) + " probes, " + std::to_string(groups) + " λ groups");
      SweepLayout layout(MPI_COMM_WORLD, groups);
      const Problem mine = rows_of_rank(whole, layout);
      SweepSolver solver(mine, Precision::float64, RidgeKernels::fused, layout.rows_comm());
      GcvSettling settling;
      settling.judged = judged;
      settling.residual_norms = residual_norms;
      settling.whole_curve = true;
      const TraceEstimate all =
          estimate_traces(MPI_COMM_WORLD, layout, solver, mine.first_row, whole.a.rows, lambdas, probes, 3,
                          kMostSteps, settling);
      settling.whole_curve = false;
      const TraceEstimate least =
          estimate_traces(MPI_COMM_WORLD, layout, solver, mine.first_row, whole.a.rows, lambdas, probes, 3,
                          kMostSteps, settling);
      const std::vector<double> exact = exact_traces(whole, lambdas, probes, 3);
      const std::vector<double> g_exact = gcv_function(whole.a.rows, residual_norms, exact);
      const std::vector<double> g_low = gcv_function(whole.a.rows, residual_norms, least.lower);
      const std::vector<double> g_high = gcv_function(whole.a.rows, residual_norms, least.upper);
      // one block: sooner, some λ left unsettled; several: each settles every λ that could be
      // least in their mean (kGcvBlockSpread), here all of them in the block of 3
      const bool one_block = probes <= kProbeWidth;
      if (one_block)
        EXPECT_LT(least.steps, all.steps);
      else
        EXPECT_LE(least.steps, all.steps);
      EXPECT_EQ(least.steps % kProbeCheckEvery, 0);
      const auto argmin = [](const std::vector<double>& g) { return std::min_element(g.begin(), g.end()) - g.begin(); };
      EXPECT_EQ(argmin(g_low), argmin(g_exact));
      EXPECT_EQ(least.settled[static_cast<std::size_t>(argmin(g_low))], 1);
      bool some_unsettled = false;
      for (std::size_t j = 0; j < lambdas.size(); ++j) {
        EXPECT_LE(least.lower[j], exact[j] * (1 + 1e-10)) << "λ " << lambdas[j];
        EXPECT_GE(least.upper[j], exact[j] * (1 - 1e-10)) << "λ " << lambdas[j];
        EXPECT_EQ(all.settled[j], 1) << "λ " << lambdas[j];
        if (least.settled[j] != 0)
          EXPECT_NEAR(least.lower[j], exact[j], 1e-3 * (rows - exact[j])) << "λ " << lambdas[j];
        some_unsettled = some_unsettled || least.settled[j] == 0;
      }
      EXPECT_EQ(some_unsettled, one_block);
    }
}

// gcv_settle: minimum with the least G at the smallest λ (residual norms rising steeply with λ,
// so that every other λ's G from below exceeds the smallest's G from above from the first
// check on): the steps still end only once that λ has settled (two checks in a row after the
// first), and its trace is then the exact mean's to the settled rule's error.
TEST(MpiGcvProbes, TheLeastLambdaSettlesBeforeTheStepsEnd) {
  std::vector<double> lambdas, residual_norms;
  for (int j = 0; j <= 6; ++j) {
    lambdas.push_back(std::pow(10.0, j / 2.0));
    residual_norms.push_back(std::pow(10.0, 8.0 * j));
  }
  const Problem whole = test_problem(1.0);
  SweepLayout layout(MPI_COMM_WORLD, 1);
  const Problem mine = rows_of_rank(whole, layout);
  SweepSolver solver(mine, Precision::float64, RidgeKernels::fused, layout.rows_comm());
  GcvSettling settling;
  settling.judged.assign(lambdas.size(), 1);
  settling.residual_norms = residual_norms;
  settling.whole_curve = false;
  const TraceEstimate t =
      estimate_traces(MPI_COMM_WORLD, layout, solver, mine.first_row, whole.a.rows, lambdas, 8, 3, 400, settling);
  const std::vector<double> exact = exact_traces(whole, lambdas, 8, 3);
  const std::vector<double> g = gcv_function(whole.a.rows, residual_norms, t.lower);
  EXPECT_EQ(std::min_element(g.begin(), g.end()) - g.begin(), 0);
  EXPECT_EQ(t.settled[0], 1);
  EXPECT_GT(t.steps, kProbeCheckEvery * 2);
  EXPECT_NEAR(t.lower[0], exact[0], 1e-3 * (whole.a.rows - exact[0]));
}

}  // namespace
}  // namespace trident::ridge
