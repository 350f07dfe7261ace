// Rows of A split over the ranks (each rank its block of rows, one all-reduce per
// iteration): the same iteration counts, L-curve points and corner as one rank holding the
// whole matrix, to rounding (1e-10 relative in float64, 1e-5 in float32), for both engines,
// with uneven blocks, a rank whose rows hold no nonzeros and a rank without rows; a second
// run on the same ranks is bitwise equal. Each rank's rows are read or generated alone.
#include <gtest/gtest.h>

#include <mpi.h>

#include <cmath>

#include "core/comm.hpp"
#include "row_blocks.hpp"
#include "core/error.hpp"
#include "core/run_context.hpp"
#include "deck/deck.hpp"
#include "support/study_decks.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "ridge/detail/lcurve.hpp"
#include "ridge/detail/matrix_market.hpp"
#include "ridge/detail/problem.hpp"
#include "ridge/detail/engine_options.hpp"
#include "ridge/detail/study.hpp"
#include "ridge/detail/sweep.hpp"
#include "io/exact_text.hpp"
#include "support/test_support.hpp"

namespace trident::ridge {
namespace {

using ridge::RidgeKernels;
using core::Precision;

using test::block_of;
using test::relative;

// Sweeps `lambdas` with the rows of `whole` split at `bounds` (one block per rank of a
// single group) and compares with one rank holding everything, twice:
//  - stopped by LSMR's tests (atol = btol = 1e-7, float32 1e-4): residual norms to 1e-9
//    (float32 1e-5): an unconverged iterate carries the rounding of its path (4 ranks on
//    two H200s, fused float64: 6.3e-10 at λ = 0.7 with the same iteration count). The
//    iteration where a test stops is decided by rounding at small λ on these matrices: the two engines on one rank differ by one iteration and 1.3e-9 in ||x||
//    at λ = 0.01, so the iterations are held to within one, ||x|| to 1e-8 (float32 1e-4)
//    and x to 1e-6 (1e-3).
//  - run to convergence (no tolerance, 3 x columns iterations): ||x||, ||b - A x|| and x
//    to 1e-10 (float32 1e-5), as the solution is then determined by A and b alone.
void expect_same_as_one_rank(const Problem& whole, const std::vector<std::int64_t>& bounds,
                             const std::vector<double>& lambdas, Precision precision, RidgeKernels kernels,
                             const EngineOptions& engine = {}) {
  SCOPED_TRACE(std::string(ridge::kernels_name(kernels)) + ", " + core::precision_name(precision));
  const int me = mpi::rank(MPI_COMM_WORLD);
  const bool single = precision == Precision::float32;
  // The kokkos-kernels engine on a GPU (cuSPARSE) sums in an order that changes from run to
  // run (as tests/cli/stop_restart.sh notes): no bitwise repeat there, and agreement with
  // one rank only as close as that noise allows (measured on an H200: up to 2.3e-9 in ||x||,
  // 1.2e-8 in x).
  const bool reproducible =
      kernels == RidgeKernels::fused ||
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, Kokkos::DefaultExecutionSpace::memory_space>::accessible;
  const SweepLayout layout(MPI_COMM_WORLD, 1);
  const Problem mine = block_of(whole, bounds[me], bounds[me + 1] - bounds[me]);
  SweepSolver split(mine, precision, kernels, layout.rows_comm(), engine);
  SweepSolver alone(whole, precision, kernels, nullptr, engine);
  for (const bool converged : {false, true}) {
    SCOPED_TRACE(converged ? "to convergence" : "stopped by the tests");
    LsmrOptions options;
    options.atol = options.btol = converged ? 0.0 : single ? 1e-4 : 1e-7;
    if (converged) options.conlim = 0;
    options.max_iterations = converged ? 3 * whole.a.columns : 400;
    const double tolerance = reproducible ? (single ? 1e-5 : converged ? 1e-10 : 1e-9) : (single ? 1e-4 : 1e-7);
    const double x_tolerance = converged ? tolerance : single ? 1e-4 : reproducible ? 1e-8 : 1e-7;
    const GatheredSweep spread = sweep_over_ranks(MPI_COMM_WORLD, layout, split, lambdas, options, true);
    const GatheredSweep again = sweep_over_ranks(MPI_COMM_WORLD, layout, split, lambdas, options, true);
    const SweepOutcome reference = alone.solve(lambdas, options, true);

    ASSERT_EQ(spread.outcomes().size(), lambdas.size());
    for (std::size_t j = 0; j < lambdas.size(); ++j) {
      const LambdaOutcome& s = spread.outcomes()[j];
      const LambdaOutcome& a = reference.lambdas[j];
      const LambdaOutcome& r = again.outcomes()[j];
      EXPECT_EQ(s.lambda, lambdas[j]);
      // Stopped by the tests: within one iteration (as the two engines on one rank); to
      // convergence, machine-precision tests (istop 4-6) may stop on noise.
      if (!converged) {
        EXPECT_LE(std::abs(s.iterations - a.iterations), 1) << "λ=" << lambdas[j];
        if (s.iterations == a.iterations) EXPECT_EQ(s.stop_reason, a.stop_reason) << "λ=" << lambdas[j];
      }
      // one iteration apart, the residual norms differ by that iteration's progress
      EXPECT_LE(relative(s.residual_norm, a.residual_norm), s.iterations == a.iterations ? tolerance : x_tolerance)
          << "λ=" << lambdas[j];
      EXPECT_LE(relative(s.solution_norm, a.solution_norm), x_tolerance) << "λ=" << lambdas[j];
      if (!reproducible) continue;
      // The same ranks again: bit for bit.
      EXPECT_EQ(r.iterations, s.iterations);
      EXPECT_EQ(r.residual_norm, s.residual_norm);
      EXPECT_EQ(r.solution_norm, s.solution_norm);
    }
    if (!converged && !single) {
      std::vector<double> residual, norm;
      for (const auto& o : reference.lambdas) {
        residual.push_back(o.residual_norm);
        norm.push_back(o.solution_norm);
      }
      EXPECT_EQ(find_corner(spread.lambdas(), spread.residual_norms(), spread.solution_norms()).index,
                find_corner(lambdas, residual, norm).index);
    }
    // Solutions: on the group's first rank only, replicated vectors equal to one rank's.
    if (me == 0) {
      ASSERT_EQ(spread.local_lambdas(), lambdas);
      if (reproducible) EXPECT_EQ(spread.local_solutions(), again.local_solutions());
      const std::size_t n = static_cast<std::size_t>(whole.a.columns);
      for (std::size_t j = 0; j < lambdas.size(); ++j) {
        double diff = 0, size = 0;
        for (std::size_t i = 0; i < n; ++i) {
          const double d = spread.local_solutions()[j * n + i] - reference.solutions[j * n + i];
          diff += d * d;
          size += reference.solutions[j * n + i] * reference.solutions[j * n + i];
        }
        EXPECT_LE(std::sqrt(diff / size), converged && reproducible ? tolerance * 10 : single ? 1e-3 : 1e-6)
            << "λ=" << lambdas[j];
      }
    } else {
      EXPECT_TRUE(spread.local_lambdas().empty());
    }
  }
}

void expect_all_engines(const Problem& whole, const std::vector<std::int64_t>& bounds,
                        const std::vector<double>& lambdas) {
  for (RidgeKernels k : {RidgeKernels::fused, RidgeKernels::kokkos_kernels}) {
    expect_same_as_one_rank(whole, bounds, lambdas, Precision::float64, k);
    expect_same_as_one_rank(whole, bounds, lambdas, Precision::mixed, k);
    expect_same_as_one_rank(whole, bounds, lambdas, Precision::float32, k);
  }
}

Problem generated(int rows, int columns, double density, std::uint64_t seed) {
  Problem p;
  p.a = generate_matrix(rows, columns, density, seed);
  p.b = generate_rhs(static_cast<std::size_t>(rows), 1.0, 1.5, seed + 1);
  return p;
}

TEST(MpiRidgeRowSplit, BalancedBlocksGiveOneRanksCurve) {
  const Problem whole = generated(300, 120, 0.1, 41);
  const auto bounds = nonzero_balanced_rows(300, mpi::size(MPI_COMM_WORLD),
                                            [&](std::int64_t r) { return std::int64_t(whole.a.row_ptr[r]); });
  expect_all_engines(whole, bounds, {0.01, 0.1, 1.0, 10.0, 100.0});
}

// Column bands (forced on this small matrix): A_i^T u_i's rows are added from their pieces
// before the all-reduce; the curve is one rank's, as with whole rows.
TEST(MpiRidgeRowSplit, ColumnBandsGiveOneRanksCurve) {
  const Problem whole = generated(300, 120, 0.1, 53);
  const auto bounds = nonzero_balanced_rows(300, mpi::size(MPI_COMM_WORLD),
                                            [&](std::int64_t r) { return std::int64_t(whole.a.row_ptr[r]); });
  EngineOptions banded;
  banded.schedule.column_bands = 3;
  banded.schedule.bands_on_any_matrix = true;
  banded.schedule.row_segments = -1;  // a GPU would cut these few rows to fill itself, and cut rows are not banded
  expect_same_as_one_rank(whole, bounds, {0.01, 1.0, 100.0}, Precision::float64, RidgeKernels::fused, banded);
  expect_same_as_one_rank(whole, bounds, {0.01, 1.0, 100.0}, Precision::float32, RidgeKernels::fused, banded);
}

TEST(MpiRidgeRowSplit, UnevenBlocksARankWithoutNonzerosAndOneWithoutRows) {
  // Rows 50 to 99 hold nothing.
  Problem whole = generated(200, 90, 0.1, 43);
  for (int i = 50; i < 100; ++i) {
    const int begin = whole.a.row_ptr[i], end = whole.a.row_ptr[i + 1];
    whole.a.col_ind.erase(whole.a.col_ind.begin() + begin, whole.a.col_ind.begin() + end);
    whole.a.values.erase(whole.a.values.begin() + begin, whole.a.values.begin() + end);
    for (int k = i + 1; k <= 200; ++k) whole.a.row_ptr[k] -= end - begin;
  }
  validate(whole.a, "test");
  const std::vector<std::vector<std::int64_t>> splits = {
      {0, 200}, {0, 200, 200}, {0, 50, 100, 200}, {0, 37, 50, 100, 200}};  // by rank count
  expect_all_engines(whole, splits[mpi::size(MPI_COMM_WORLD) - 1], {0.05, 2.0, 30.0});
}

// 1100 columns are 5 chunks of the update (256 columns each, the last 76): on 2 to 4 ranks
// each rank updates h, hbar and x over its chunks only and the ranks' shares of ||x||^2
// ride the all-reduce; x summed over the ranks is the solution. (The smaller matrices
// above are one chunk: one rank takes it, the others none.)
TEST(MpiRidgeRowSplit, ColumnsOfTheUpdateSplitOverTheRanksGiveOneRanksCurve) {
  const Problem whole = generated(1500, 1100, 0.01, 59);
  const auto bounds = nonzero_balanced_rows(1500, mpi::size(MPI_COMM_WORLD),
                                            [&](std::int64_t r) { return std::int64_t(whole.a.row_ptr[r]); });
  expect_same_as_one_rank(whole, bounds, {0.02, 0.5, 20.0}, Precision::float64, RidgeKernels::fused);
  expect_same_as_one_rank(whole, bounds, {0.02, 0.5, 20.0}, Precision::float32, RidgeKernels::fused);
}

// On CUDA builds the row ranks' iterations are recorded (CUDA graphs) in two parts, the
// launches before the all-reduce and those after it, with the all-reduce queued between
// their replays; iteration_graphs off (TRIDENT_RIDGE_GRAPHS=off) queues every kernel instead. The same kernels in
// the same order: the same sweep bit for bit. Other builds take the queued path both times.
TEST(MpiRidgeRowSplit, RecordedIterationsGiveTheQueuedSweepBitForBit) {
  const Problem whole = generated(1500, 1100, 0.01, 61);
  const auto bounds = nonzero_balanced_rows(1500, mpi::size(MPI_COMM_WORLD),
                                            [&](std::int64_t r) { return std::int64_t(whole.a.row_ptr[r]); });
  const int me = mpi::rank(MPI_COMM_WORLD);
  const SweepLayout layout(MPI_COMM_WORLD, 1);
  const Problem mine = block_of(whole, bounds[me], bounds[me + 1] - bounds[me]);
  const bool cuda = std::string(Kokkos::DefaultExecutionSpace::name()) == "Cuda";
  const std::vector<double> lambdas = {0.02, 0.5, 20.0};
  LsmrOptions options;
  options.atol = options.btol = 1e-9;
  for (const Precision precision : {Precision::float64, Precision::float32}) {
    SCOPED_TRACE(core::precision_name(precision));
    EngineOptions queue_each;
    queue_each.iteration_graphs = core::Switch::off;
    SweepSolver queued(mine, precision, RidgeKernels::fused, layout.rows_comm(), queue_each);
    SweepSolver recorded(mine, precision, RidgeKernels::fused, layout.rows_comm());
    EXPECT_EQ(queued.product_layout().find("CUDA graphs"), std::string::npos);
    EXPECT_EQ(recorded.product_layout().find("CUDA graphs") != std::string::npos, cuda) << recorded.product_layout();
    const GatheredSweep a = sweep_over_ranks(MPI_COMM_WORLD, layout, queued, lambdas, options, true);
    const GatheredSweep b = sweep_over_ranks(MPI_COMM_WORLD, layout, recorded, lambdas, options, true);
    ASSERT_EQ(a.outcomes().size(), lambdas.size());
    ASSERT_EQ(b.outcomes().size(), lambdas.size());
    EXPECT_GT(a.outcomes()[0].iterations, 64);  // several blocks of recorded iterations
    for (std::size_t j = 0; j < lambdas.size(); ++j) {
      EXPECT_EQ(a.outcomes()[j].iterations, b.outcomes()[j].iterations) << "λ=" << lambdas[j];
      EXPECT_EQ(a.outcomes()[j].stop_reason, b.outcomes()[j].stop_reason) << "λ=" << lambdas[j];
      EXPECT_EQ(a.outcomes()[j].residual_norm, b.outcomes()[j].residual_norm) << "λ=" << lambdas[j];
      EXPECT_EQ(a.outcomes()[j].solution_norm, b.outcomes()[j].solution_norm) << "λ=" << lambdas[j];
    }
    EXPECT_EQ(a.local_solutions(), b.local_solutions());
  }
}

TEST(MpiRidgeRowSplit, MoreRanksThanLambdas) {
  const Problem whole = generated(150, 60, 0.1, 47);
  const auto bounds = nonzero_balanced_rows(150, mpi::size(MPI_COMM_WORLD),
                                            [&](std::int64_t r) { return std::int64_t(whole.a.row_ptr[r]); });
  expect_same_as_one_rank(whole, bounds, {0.7}, Precision::float64, RidgeKernels::fused);
  expect_same_as_one_rank(whole, bounds, {0.7}, Precision::float64, RidgeKernels::kokkos_kernels);
}

TEST(MpiRidgeRowSplit, BalancedRowsCoverEveryRowAndEvenShares) {
  // Offsets of rows holding 1, 100, 1, 1, ... entries, and of an empty matrix.
  std::vector<std::int64_t> offsets{0, 1, 101};
  for (int i = 0; i < 50; ++i) offsets.push_back(offsets.back() + 1);
  for (int parts = 1; parts <= 7; ++parts) {
    const auto b = nonzero_balanced_rows(52, parts, [&](std::int64_t r) { return offsets[r]; });
    ASSERT_EQ(b.size(), std::size_t(parts) + 1);
    EXPECT_EQ(b.front(), 0);
    EXPECT_EQ(b.back(), 52);
    for (int r = 0; r < parts; ++r) {
      EXPECT_LE(b[r], b[r + 1]);
      if (r > 0) EXPECT_GE(offsets[b[r]], 151 * r / parts);      // starts at its share
      if (r > 0 && b[r] > 0) EXPECT_LT(offsets[b[r] - 1], 151 * r / parts);  // and not later
    }
    const auto empty = nonzero_balanced_rows(5, parts, [](std::int64_t) { return std::int64_t(0); });
    EXPECT_EQ(empty.front(), 0);
    EXPECT_EQ(empty.back(), 5);
  }
  EXPECT_EQ(choose_lambda_groups(4, 100, 10), 4);                  // tiny: λ split
  EXPECT_EQ(choose_lambda_groups(4, 100, 2), 4);                   // tiny: not split, ranks idle
  EXPECT_EQ(choose_lambda_groups(4, kRowSplitNonzeros * 2, 2), 2);  // no more groups than λ
  EXPECT_EQ(choose_lambda_groups(4, 22500000, 10), 1);             // tutorial: rows
  EXPECT_EQ(choose_lambda_groups(1024, 22500000, 10), 8);          // capped by the λ
  EXPECT_EQ(choose_lambda_groups(1024, 400000000, 64), 4);         // 4e8 / 256 >= 2^20
  EXPECT_EQ(choose_lambda_groups(6, kRowSplitNonzeros * 3, 10), 2);
}

TEST(MpiRidgeRowSplit, EachRankReadsOrGeneratesOnlyItsRows) {
  const int me = mpi::rank(MPI_COMM_WORLD), ranks = mpi::size(MPI_COMM_WORLD);
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "ridge_rows");
  const HostCsr whole = generate_matrix(23, 17, 0.3, 9);
  const std::vector<double> b = generate_rhs(23, 3.0, 1.0, 2);
  if (me == 0) {
    std::string mm = "%%MatrixMarket matrix coordinate real general\n23 17 " + std::to_string(whole.nonzeros()) + "\n";
    for (int i = 0; i < 23; ++i)
      for (int k = whole.row_ptr[i]; k < whole.row_ptr[i + 1]; ++k)
        mm += std::to_string(i + 1) + " " + std::to_string(whole.col_ind[k] + 1) + " " +
              io::exact_text(whole.values[k]) + "\n";
    trident::test::write_text(folder + "/a.mtx", mm);
  }
  {
    io::OutputFile h5(MPI_COMM_WORLD, folder + "/a.h5", true);
    h5.create_group("/A");
    h5.write_array<std::int32_t>("/A/row_ptr", {whole.row_ptr.begin(), whole.row_ptr.end()}, {24});
    h5.write_array<std::int32_t>("/A/col_ind", {whole.col_ind.begin(), whole.col_ind.end()},
                                 {std::uint64_t(whole.nonzeros())});
    h5.write_array<double>("/A/values", {whole.values.begin(), whole.values.end()}, {std::uint64_t(whole.nonzeros())});
    h5.write_array<std::int64_t>("/A/shape", {23, 17}, {2});
    h5.write_array<double>("/b", b, {23});
    h5.commit();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  ridge::RidgeSettings s;
  s.rhs.kind = ridge::RidgeRhsSettings::Kind::generate;
  for (int kind = 0; kind < 3; ++kind) {
    SCOPED_TRACE(kind);
    s.matrix = ridge::RidgeMatrixSettings{};
    if (kind == 0) {
      s.matrix.kind = ridge::RidgeMatrixSettings::Kind::generate;
      s.matrix.rows = 23;
      s.matrix.columns = 17;
      s.matrix.density = 0.3;
      s.matrix.seed = 9;
    } else if (kind == 1) {
      s.matrix.kind = ridge::RidgeMatrixSettings::Kind::matrix_market;
      s.matrix.file = folder + "/a.mtx";
    } else {
      s.matrix.kind = ridge::RidgeMatrixSettings::Kind::hdf5;
      s.matrix.file = folder + "/a.h5";
      s.matrix.group = "/A";
      s.rhs.kind = ridge::RidgeRhsSettings::Kind::hdf5;
      s.rhs.file = folder + "/a.h5";
      s.rhs.dataset = "/b";
    }
    const MatrixRows rows(s.matrix, MPI_COMM_WORLD);
    EXPECT_EQ(rows.rows(), 23);
    EXPECT_EQ(rows.columns(), 17);
    EXPECT_EQ(rows.nonzeros(), whole.nonzeros());
    const auto bounds = nonzero_balanced_rows(23, ranks, [&](std::int64_t r) { return rows.offset(r); });
    const Problem p = load_rows(s, rows, bounds[me], bounds[me + 1] - bounds[me]);
    EXPECT_EQ(p.rows(), 23);
    EXPECT_EQ(p.nonzeros(), whole.nonzeros());
    EXPECT_EQ(p.first_row, bounds[me]);
    ASSERT_EQ(p.a.rows, bounds[me + 1] - bounds[me]);
    for (int i = 0; i < p.a.rows; ++i) {
      const std::int64_t g = bounds[me] + i;
      ASSERT_EQ(p.a.row_ptr[i + 1] - p.a.row_ptr[i], whole.row_ptr[g + 1] - whole.row_ptr[g]);
      for (int k = 0; k < p.a.row_ptr[i + 1] - p.a.row_ptr[i]; ++k) {
        EXPECT_EQ(p.a.col_ind[p.a.row_ptr[i] + k], whole.col_ind[whole.row_ptr[g] + k]);
        EXPECT_EQ(p.a.values[p.a.row_ptr[i] + k], whole.values[whole.row_ptr[g] + k]);
      }
      EXPECT_EQ(p.b[i], b[g]);
    }
  }
}

TEST(MpiRidgeRowSplit, GeneratedRowsAndRightHandSideMatchTheWholeOnes) {
  const HostCsr whole = generate_matrix(31, 45, 0.2, 5);
  const std::vector<double> b = generate_rhs(31, 3.0, 1.0, 2);
  for (std::int64_t first : {0, 1, 7, 30}) {
    for (std::int64_t count : {0, 1, 2}) {
      if (first + count > 31) continue;
      const HostCsr part = generate_matrix_rows(31, 45, 0.2, 5, first, count);
      ASSERT_EQ(part.rows, count);
      for (int i = 0; i <= count; ++i) EXPECT_EQ(part.row_ptr[i], whole.row_ptr[first + i] - whole.row_ptr[first]);
      EXPECT_EQ(part.col_ind, core::UninitializedVector<int>(whole.col_ind.begin() + whole.row_ptr[first],
                                                             whole.col_ind.begin() + whole.row_ptr[first + count]));
      EXPECT_EQ(generate_rhs_rows(first, count, 3.0, 1.0, 2),
                std::vector<double>(b.begin() + first, b.begin() + first + count));
    }
  }
}

// The whole study with the rows split (ridge.lambda_groups: 1) against one rank. The corner
// and its refinement λ depend on the curve's points, equal to 1e-10, so the λ are the same.
TEST(MpiRidgeRowSplit, StudyWithSplitRowsWritesOneRanksCurve) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "ridge_rows_study");
  const std::string deck_text =
      "ridge:\n"
      "  matrix: {generate: {rows: 45, columns: 30, density: 0.3, seed: 3}}\n"
      "  lambdas: {geomspace: [0.01, 100, 6]}\n"
      "  solver: {atol: 0, btol: 0, conlim: 0, max_iterations: 90}\n"
      "  precision: float64\n"
      "  keep_solutions: true\n"
      "  refine_corner: 2\n"
      "  lambda_groups: 1\n";
  const trident::test::StudyDeck deck = trident::test::read_deck_text(deck_text, folder + "/deck.yaml", folder);
  {
    io::OutputFile file(MPI_COMM_WORLD, folder + "/out.h5", true);
    Timers timers;
    DeviceBinding binding;
    RunContext context{MPI_COMM_WORLD, timers, binding};
    run_study(*deck.ridge, context, file);
    file.commit();
  }
  Problem p;
  p.a = generate_matrix(45, 30, 0.3, 3);
  p.b = generate_rhs(45, 3.0, 1.0, 2);
  io::InputFile in(folder + "/out.h5", "ridge output");
  const std::vector<double> lambdas = in.read<double>("/ridge/lambda");
  ASSERT_EQ(lambdas.size(), 8u);
  // Run to convergence (see expect_same_as_one_rank): the solution is A's and b's alone.
  LsmrOptions options;
  options.atol = options.btol = options.conlim = 0;
  options.max_iterations = 90;
  SweepSolver solver(p, true);
  const SweepOutcome alone = solver.solve(lambdas, options, true);
  const auto residual = in.read<double>("/ridge/residual_norm");
  const auto norm = in.read<double>("/ridge/solution_norm");
  const auto iterations = in.read<std::int64_t>("/ridge/iterations");
  const auto solutions = in.read<double>("/ridge/solutions");
  for (std::size_t j = 0; j < lambdas.size(); ++j) {
    EXPECT_GE(iterations[j], 1);
    EXPECT_LE(relative(residual[j], alone.lambdas[j].residual_norm), 1e-10);
    EXPECT_LE(relative(norm[j], alone.lambdas[j].solution_norm), 1e-10);
    for (int i = 0; i < 30; ++i) EXPECT_NEAR(solutions[j * 30 + i], alone.solutions[j * 30 + i], 1e-9);
  }
  EXPECT_EQ(in.integer_attribute("/ridge", "row_ranks"), mpi::size(MPI_COMM_WORLD));
  EXPECT_EQ(in.integer_attribute("/ridge", "lambda_groups"), 1);
  EXPECT_EQ(in.integer_attribute("/ridge", "rows"), 45);
  EXPECT_EQ(in.integer_attribute("/ridge", "nonzeros"), p.a.nonzeros());
}

TEST(MpiRidgeRowSplit, LambdaGroupsThatDoNotDivideTheRanksAreRefused) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "ridge_rows_bad");
  const int ranks = mpi::size(MPI_COMM_WORLD);
  const std::string deck_text =
      "ridge:\n"
      "  matrix: {generate: {rows: 10, columns: 5, density: 0.5}}\n"
      "  lambdas: [1, 2]\n"
      "  lambda_groups: " + std::to_string(ranks + 1) + "\n";
  const trident::test::StudyDeck deck = trident::test::read_deck_text(deck_text, folder + "/deck.yaml", folder);
  Timers timers;
  DeviceBinding binding;
  RunContext context{MPI_COMM_WORLD, timers, binding};
  try {
    prepare_study(*deck.ridge, context, folder + "/out.checkpoint.h5");
    FAIL() << "expected a CollectiveError";
  } catch (const CollectiveError& e) {
    EXPECT_EQ(e.exit_code(), kExitBadInput);
    EXPECT_EQ(std::string(e.what()), folder + "/deck.yaml:4:18: ridge.lambda_groups: " + std::to_string(ranks + 1) +
                                         " groups do not divide the " + std::to_string(ranks) +
                                         " ranks; give a divisor of " + std::to_string(ranks) +
                                         ", or 0 to let the run choose");
  }
}

}  // namespace
}  // namespace trident::ridge
