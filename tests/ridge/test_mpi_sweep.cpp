// The sweep spread over ranks gives the same L-curve as one rank solving every λ, for any
// rank count, including more ranks than λ values.
#include <gtest/gtest.h>

#include <mpi.h>

#include "core/comm.hpp"
#include "ridge/detail/problem.hpp"
#include "ridge/detail/sweep.hpp"

namespace trident::ridge {
namespace {

void expect_rank_independent_with(const std::vector<double>& lambdas,
                                  core::Precision precision, ridge::RidgeKernels kernels) {
  SCOPED_TRACE(ridge::kernels_name(kernels));
  const bool float64 = precision != core::Precision::float32;
  Problem p;
  p.a = generate_matrix(40, 28, 0.25, 21);
  p.b = generate_rhs(40, 1.0, 1.5, 22);
  LsmrOptions options;
  options.atol = options.btol = float64 ? 1e-10 : 1e-6;
  options.max_iterations = 300;
  SweepSolver solver(p, precision, kernels);
  const GatheredSweep spread = sweep_over_ranks(MPI_COMM_WORLD, solver, lambdas, options, true);
  const SweepOutcome alone = solver.solve(lambdas, options, true);  // this rank, every λ

  ASSERT_EQ(spread.outcomes().size(), lambdas.size());
  for (std::size_t j = 0; j < lambdas.size(); ++j) {
    const LambdaOutcome& s = spread.outcomes()[j];
    const LambdaOutcome& a = alone.lambdas[j];
    EXPECT_EQ(s.lambda, lambdas[j]);
    EXPECT_EQ(s.iterations, a.iterations) << "λ=" << lambdas[j];
    EXPECT_EQ(s.stop_reason, a.stop_reason) << "λ=" << lambdas[j];
    EXPECT_DOUBLE_EQ(s.residual_norm, a.residual_norm) << "λ=" << lambdas[j];
    EXPECT_DOUBLE_EQ(s.solution_norm, a.solution_norm) << "λ=" << lambdas[j];
  }
  // The solutions this rank kept are the rows of the one-rank sweep for its λ.
  const auto block = rank_block(lambdas.size(), mpi::size(MPI_COMM_WORLD), mpi::rank(MPI_COMM_WORLD));
  ASSERT_EQ(spread.local_lambdas().size(), block.second - block.first);
  ASSERT_EQ(spread.local_solutions().size(), spread.local_lambdas().size() * 28);
  for (std::size_t k = 0; k < spread.local_lambdas().size(); ++k) {
    EXPECT_EQ(spread.local_lambdas()[k], lambdas[block.first + k]);
    for (int i = 0; i < 28; ++i)
      EXPECT_DOUBLE_EQ(spread.local_solutions()[k * 28 + i],
                       alone.solutions[(block.first + k) * 28 + i]);
  }
}

// Both engines.
void expect_rank_independent(const std::vector<double>& lambdas, core::Precision precision) {
  expect_rank_independent_with(lambdas, precision, ridge::RidgeKernels::fused);
  expect_rank_independent_with(lambdas, precision, ridge::RidgeKernels::kokkos_kernels);
}

TEST(MpiRidgeSweep, SevenLambdasGiveTheSameCurveOnAnyRankCount) {
  expect_rank_independent({0.01, 0.05, 0.2, 1.0, 5.0, 25.0, 125.0}, core::Precision::float64);
}

TEST(MpiRidgeSweep, Float32SweepIsRankIndependentToo) {
  expect_rank_independent({0.1, 0.7, 3.0, 40.0}, core::Precision::float32);
}

TEST(MpiRidgeSweep, MixedPrecisionSweepIsRankIndependentToo) {
  expect_rank_independent({0.02, 0.4, 6.0}, core::Precision::mixed);
}

TEST(MpiRidgeSweep, MoreRanksThanLambdas) {
  expect_rank_independent({0.3, 9.0}, core::Precision::float64);
}

TEST(MpiRidgeSweep, RankBlocksCoverEveryLambdaOnce) {
  for (std::size_t count : {0, 1, 2, 5, 10, 17}) {
    for (int ranks = 1; ranks <= 6; ++ranks) {
      std::size_t next = 0;
      for (int r = 0; r < ranks; ++r) {
        const auto b = rank_block(count, ranks, r);
        EXPECT_EQ(b.first, next);
        EXPECT_LE(b.second - b.first, (count + ranks - 1) / ranks);
        next = b.second;
      }
      EXPECT_EQ(next, count);
    }
  }
}

}  // namespace
}  // namespace trident::ridge
