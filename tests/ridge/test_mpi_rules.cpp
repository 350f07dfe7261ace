// The λ rules through the whole study on a problem with known noise, against dense float64
// references (Cholesky solves of the damped normal equations, the exact GCV trace), on 1 to
// 4 ranks, with the λ split over the ranks and with the rows split; and convergence
// honesty: the rules choose only among converged λ, and quasi-optimality's steps skip the
// λ that did not converge.
#include <gtest/gtest.h>

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/comm.hpp"
#include "core/run_context.hpp"
#include "deck/deck.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "reference.hpp"
#include "ridge/detail/matrix_market.hpp"
#include "ridge/detail/rules.hpp"
#include "ridge/detail/study.hpp"
#include "run_deck.hpp"
#include "support/test_support.hpp"

namespace trident::ridge {
namespace {

constexpr int kRows = 300, kColumns = 40;
constexpr double kNoise = 0.02;  // the standard deviation of the noise added to b

using test::run_deck;

// A uniform number in [-1, 1) from an integer key (the same on every rank).
double uniform(std::uint64_t key) {
  key = (key + 0x9e3779b97f4a7c15ULL) * 0xbf58476d1ce4e5b9ULL;
  key ^= key >> 31;
  key *= 0x94d049bb133111ebULL;
  key ^= key >> 29;
  return double(key >> 11) / double(1ULL << 52) - 1.0;
}

// A with columns graded from 1 to 1e-6 (an ill-posed flavour: x's small components are
// lost in the noise), x_true smooth, b = A x_true + noise of standard deviation kNoise
// (a sum of 12 uniforms, nearly normal); A as Matrix Market, b in HDF5.
void write_problem(const std::string& folder) {
  if (mpi::rank(MPI_COMM_WORLD) == 0) {
    std::string entries;
    for (int i = 0; i < kRows; ++i)
      for (int j = 0; j < kColumns; ++j) {
        const double v = uniform(std::uint64_t(i) * 1000 + j) * std::pow(10.0, -6.0 * j / (kColumns - 1));
        char line[64];
        std::snprintf(line, sizeof line, "%d %d %.17g\n", i + 1, j + 1, v);
        entries += line;
      }
    trident::test::write_text(folder + "/a.mtx", "%%MatrixMarket matrix coordinate real general\n" +
                                                     std::to_string(kRows) + " " + std::to_string(kColumns) + " " +
                                                     std::to_string(kRows * kColumns) + "\n" + entries);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const test::Dense a = test::dense(read_matrix_market(folder + "/a.mtx"));
  std::vector<double> x(kColumns), b;
  for (int j = 0; j < kColumns; ++j) x[j] = std::sin(0.15 * j) + 1;
  b = test::multiply(a, x);
  for (int i = 0; i < kRows; ++i) {
    double s = 0;
    for (int k = 0; k < 12; ++k) s += uniform(7000000 + std::uint64_t(i) * 12 + k);
    b[i] += kNoise * s / std::sqrt(4.0);  // 12 uniforms in [-1, 1): variance 4
  }
  io::OutputFile file(MPI_COMM_WORLD, folder + "/b.h5", true);
  file.write_array<double>("/b", b, {std::uint64_t(kRows)});
  file.commit();
}

// trace(A (A^T A + λ^2 I)^-1 A^T) = columns - λ^2 trace((A^T A + λ^2 I)^-1), by Cholesky.
double exact_trace(const test::Dense& a, double lambda) {
  const std::size_t n = a[0].size();
  test::Dense g(n, std::vector<double>(n, 0.0));
  for (const auto& row : a)
    for (std::size_t p = 0; p < n; ++p)
      for (std::size_t q = 0; q < n; ++q) g[p][q] += row[p] * row[q];
  for (std::size_t p = 0; p < n; ++p) g[p][p] += lambda * lambda;
  for (std::size_t j = 0; j < n; ++j) {  // g = L L^T in the lower triangle
    for (std::size_t k = 0; k < j; ++k) g[j][j] -= g[j][k] * g[j][k];
    g[j][j] = std::sqrt(g[j][j]);
    for (std::size_t i = j + 1; i < n; ++i) {
      for (std::size_t k = 0; k < j; ++k) g[i][j] -= g[i][k] * g[j][k];
      g[i][j] /= g[j][j];
    }
  }
  double inverse_trace = 0;  // sum over k of ||L^-1 e_k||^2
  for (std::size_t k = 0; k < n; ++k) {
    std::vector<double> y(n, 0.0);
    for (std::size_t i = k; i < n; ++i) {
      double s = i == k ? 1.0 : 0.0;
      for (std::size_t p = k; p < i; ++p) s -= g[i][p] * y[p];
      y[i] = s / g[i][i];
      inverse_trace += y[i] * y[i];
    }
  }
  return double(n) - lambda * lambda * inverse_trace;
}

double residual_of(const test::Dense& a, const std::vector<double>& b, const std::vector<double>& x) {
  const std::vector<double> ax = test::multiply(a, x);
  double s = 0;
  for (std::size_t i = 0; i < b.size(); ++i) s += (b[i] - ax[i]) * (b[i] - ax[i]);
  return std::sqrt(s);
}

class MpiRidgeRules : public ::testing::TestWithParam<const char*> {};

TEST_P(MpiRidgeRules, EachRuleMatchesTheDenseReference) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "ridge_rules");
  write_problem(folder);
  constexpr int kProbes = 32;
  const std::string deck = std::string("ridge:\n") +
                           "  matrix: {matrix_market: a.mtx}\n"
                           "  rhs: {hdf5: {file: b.h5}}\n"
                           "  lambdas: {geomspace: [1.0e-4, 10, 16]}\n"
                           "  solver: {atol: 1.0e-12, btol: 1.0e-12, conlim: 0, max_iterations: 3000}\n"
                           "  precision: float64\n"
                           "  keep_solutions: true\n"
                           "  select: discrepancy\n"
                           "  noise_level: " + std::to_string(kNoise) + "\n"
                           "  refine_discrepancy: 4\n"
                           "  gcv_probes: " + std::to_string(kProbes) + "\n" + GetParam();
  run_deck(folder, deck, folder + "/out.h5");

  const test::Dense a = test::dense(read_matrix_market(folder + "/a.mtx"));
  const std::vector<double> b = io::InputFile(folder + "/b.h5", "b").read<double>("/b");
  io::InputFile in(folder + "/out.h5", "ridge output");
  const auto lambdas = in.read<double>("/ridge/lambda");
  const auto residual = in.read<double>("/ridge/residual_norm");
  const auto converged = in.read<std::int32_t>("/ridge/converged");
  const auto steps = in.read<double>("/ridge/solution_step");
  const auto gcv = in.read<double>("/ridge/gcv"), trace = in.read<double>("/ridge/gcv_trace");
  const auto gcv_upper = in.read<double>("/ridge/gcv_upper");
  const auto gcv_settled = in.read<std::int32_t>("/ridge/gcv_settled");
  const bool settle_all = std::string(GetParam()).find("gcv_settle: all") != std::string::npos;
  EXPECT_EQ(in.string_attribute("/ridge/selection/gcv", "settle"), settle_all ? "all" : "minimum");
  ASSERT_EQ(lambdas.size(), 20u);  // 16 + 4 inside the discrepancy's bracket
  std::vector<std::vector<double>> x;
  for (std::size_t j = 0; j < lambdas.size(); ++j) {
    EXPECT_EQ(converged[j], 1) << "λ " << lambdas[j];
    x.push_back(test::ridge_by_cholesky(a, b, lambdas[j]));
    EXPECT_NEAR(residual[j], residual_of(a, b, x[j]), 1e-8 * residual[j]) << "λ " << lambdas[j];
  }

  // Discrepancy: the bracket's exact residuals straddle the target, trident's λ is their
  // log-log interpolation, and it lies within 1 % of the exact root (found by bisection
  // on the dense residual), the bracket being a ratio of 1.17 after the refinement.
  const std::string d = "/ridge/selection/discrepancy";
  const double target = kNoise * std::sqrt(double(kRows));
  EXPECT_NEAR(in.real_attribute(d, "target"), target, 1e-15 * target);
  const auto low = static_cast<std::size_t>(in.integer_attribute(d, "bracket_low"));
  const auto high = static_cast<std::size_t>(in.integer_attribute(d, "bracket_high"));
  ASSERT_EQ(high, low + 1);
  const double r_low = residual_of(a, b, x[low]), r_high = residual_of(a, b, x[high]);
  ASSERT_LE(r_low, target);
  ASSERT_GE(r_high, target);
  const double interpolated =
      std::exp(std::log(lambdas[low]) + (std::log(target) - std::log(r_low)) / (std::log(r_high) - std::log(r_low)) *
                                            (std::log(lambdas[high]) - std::log(lambdas[low])));
  const double chosen = in.real_attribute(d, "lambda");
  EXPECT_NEAR(chosen, interpolated, 1e-6 * interpolated);
  double lo = lambdas[low], hi = lambdas[high];
  for (int k = 0; k < 60; ++k) {
    const double mid = std::sqrt(lo * hi);
    (residual_of(a, b, test::ridge_by_cholesky(a, b, mid)) < target ? lo : hi) = mid;
  }
  EXPECT_NEAR(chosen, lo, 0.01 * lo);
  EXPECT_LT(lambdas[high] / lambdas[low], 1.2);
  EXPECT_EQ(in.string_attribute("/ridge/selection", "rule"), "discrepancy");
  EXPECT_EQ(in.real_attribute("/ridge/selection", "lambda"), chosen);

  // The solution at the chosen λ (the sample nearest the target): the same bits as its
  // row of /ridge/solutions.
  const auto index = static_cast<std::size_t>(in.integer_attribute("/ridge/selection", "index"));
  EXPECT_TRUE(index == low || index == high);
  const auto solution = in.read<double>("/ridge/solution");
  const auto solutions = in.read<double>("/ridge/solutions");
  ASSERT_EQ(solution.size(), std::size_t(kColumns));
  for (int i = 0; i < kColumns; ++i) EXPECT_EQ(solution[i], solutions[index * kColumns + i]) << i;

  // Quasi-optimality: each step ||x_i - x_i+1|| within 1e-6 of ||x|| of the reference's,
  // and the choice the reference's least interior local minimum of the quotients.
  std::vector<double> quotient(lambdas.size(), HUGE_VAL);
  for (std::size_t j = 0; j + 1 < lambdas.size(); ++j) {
    std::vector<double> diff(kColumns);
    for (int i = 0; i < kColumns; ++i) diff[i] = x[j][i] - x[j + 1][i];
    const double exact = test::norm(diff);
    EXPECT_NEAR(steps[j], exact, 1e-6 * test::norm(x[j])) << "λ " << lambdas[j];
    quotient[j] = exact / std::log(lambdas[j + 1] / lambdas[j]);
  }
  EXPECT_TRUE(std::isnan(steps.back()));
  // the least interior local minimum of the reference's quotients (there is one here)
  long best = -1;
  for (std::size_t j = 1; j + 2 < lambdas.size(); ++j)
    if (quotient[j] <= quotient[j - 1] && quotient[j] <= quotient[j + 1] && (best < 0 || quotient[j] < quotient[best]))
      best = static_cast<long>(j);
  ASSERT_GE(best, 0);
  EXPECT_EQ(in.integer_attribute("/ridge/selection/quasi_optimality", "index"), best);

  // GCV: each settled trace within 4 standard deviations of Hutchinson's estimate with
  // sign probes (the variance of z^T M z is at most 2 ||M||_F^2 <= 2 t for M's eigenvalues in
  // [0, 1]), G within 5 %, and its minimiser within one sample of the exact one. Where G did
  // not settle (gcv_settle: minimum; with `all` every λ settles) the exact G within 5 % of
  // the bounds /ridge/gcv (from below) and /ridge/gcv_upper.
  std::vector<double> exact_g;
  for (std::size_t j = 0; j < lambdas.size(); ++j) {
    const double t = exact_trace(a, lambdas[j]);
    const double r = residual_of(a, b, x[j]);
    exact_g.push_back(kRows * r * r / ((kRows - t) * (kRows - t)));
    EXPECT_LE(gcv[j], gcv_upper[j]) << "λ " << lambdas[j];
    if (settle_all) EXPECT_EQ(gcv_settled[j], 1) << "λ " << lambdas[j];
    if (gcv_settled[j] != 0) {
      EXPECT_NEAR(trace[j], t, 4 * std::sqrt(2 * t / kProbes) + 1e-6) << "λ " << lambdas[j];
      EXPECT_NEAR(gcv[j], exact_g[j], 0.05 * exact_g[j]) << "λ " << lambdas[j];
    } else {
      EXPECT_LE(gcv[j], 1.05 * exact_g[j]) << "λ " << lambdas[j];
      EXPECT_GE(gcv_upper[j], 0.95 * exact_g[j]) << "λ " << lambdas[j];
    }
  }
  const long gcv_index = in.integer_attribute("/ridge/selection/gcv", "index");
  ASSERT_GE(gcv_index, 0);
  EXPECT_EQ(gcv_settled[static_cast<std::size_t>(gcv_index)], 1);
  const long exact_best = static_cast<long>(std::min_element(exact_g.begin(), exact_g.end()) - exact_g.begin());
  EXPECT_LE(std::abs(in.integer_attribute("/ridge/selection/gcv", "index") - exact_best), 1);
  EXPECT_EQ(in.integer_attribute("/ridge/selection/gcv", "probes"), kProbes);
}

INSTANTIATE_TEST_SUITE_P(Layouts, MpiRidgeRules,
                         ::testing::Values("", "  lambda_groups: 1\n", "  gcv_settle: all\n"),
                         [](const auto& info) {
                           return info.index == 0 ? "LambdasSplit" : info.index == 1 ? "RowsSplit" : "SettleAll";
                         });

// An iteration limit that stops the small λ: /ridge/converged marks them, no rule chooses
// one, and the corner is the maximum curvature among the converged points alone.
TEST(MpiRidgeConvergence, RulesChooseOnlyConvergedLambdas) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "ridge_convergence");
  write_problem(folder);
  for (const int limit : {40, 4}) {
    const std::string deck = "ridge:\n"
                             "  matrix: {matrix_market: a.mtx}\n"
                             "  rhs: {hdf5: {file: b.h5}}\n"
                             "  lambdas: {geomspace: [1.0e-4, 10, 12]}\n"
                             "  solver: {atol: 1.0e-10, btol: 1.0e-10, max_iterations: " +
                             std::to_string(limit) + "}\n  precision: float64\n  noise_level: 0.02\n";
    run_deck(folder, deck, folder + "/out.h5");
    io::InputFile in(folder + "/out.h5", "ridge output");
    const auto stop = in.read<std::int32_t>("/ridge/stop_reason");
    const auto converged = in.read<std::int32_t>("/ridge/converged");
    const auto residual = in.read<double>("/ridge/residual_norm"), norm = in.read<double>("/ridge/solution_norm");
    std::vector<std::size_t> kept;
    for (std::size_t j = 0; j < stop.size(); ++j) {
      EXPECT_EQ(converged[j], stop[j] != 3 && stop[j] != 7 ? 1 : 0);
      if (converged[j]) kept.push_back(j);
    }
    ASSERT_LT(kept.size(), stop.size()) << "limit " << limit << ": the test needs unconverged λ";
    // 40 iterations: the large λ converge, enough for a corner; 4: too few for one
    ASSERT_EQ(kept.size() >= 3, limit == 40) << kept.size() << " converged with limit " << limit;
    for (const char* rule : {"corner", "discrepancy", "quasi_optimality"}) {
      const long i = in.integer_attribute(std::string("/ridge/selection/") + rule, "index");
      if (i >= 0) EXPECT_EQ(converged[static_cast<std::size_t>(i)], 1) << rule << ", limit " << limit;
    }
    const long corner = in.integer_attribute("/ridge/corner", "index");
    if (kept.size() < 3) {
      EXPECT_EQ(corner, -1);
      EXPECT_EQ(in.string_attribute("/ridge/selection/corner", "why_none"),
                std::to_string(kept.size()) + " converged λ, fewer than 3");
      EXPECT_FALSE(in.has("/ridge/solution"));
      EXPECT_NE(in.string_attribute("/ridge/selection", "why_none").find("fewer than 3"), std::string::npos);
      continue;
    }
    // The curvature of each interior converged point among its converged neighbours, by
    // the law of cosines: the corner's is the greatest.
    double best = -1;
    long at = -1;
    for (std::size_t k = 1; k + 1 < kept.size(); ++k) {
      double px[3], py[3];
      for (int q = 0; q < 3; ++q) {
        px[q] = std::log10(residual[kept[k - 1 + q]]);
        py[q] = std::log10(norm[kept[k - 1 + q]]);
      }
      const double a2 = std::pow(px[1] - px[0], 2) + std::pow(py[1] - py[0], 2);
      const double b2 = std::pow(px[2] - px[1], 2) + std::pow(py[2] - py[1], 2);
      const double c2 = std::pow(px[2] - px[0], 2) + std::pow(py[2] - py[0], 2);
      const double cosine = (a2 + b2 - c2) / (2 * std::sqrt(a2 * b2));
      const double kappa = 2 * std::sqrt(std::max(0.0, 1 - cosine * cosine)) / std::sqrt(c2);
      if (kappa > best) best = kappa, at = static_cast<long>(kept[k]);
    }
    EXPECT_EQ(corner, at) << "limit " << limit;
    EXPECT_TRUE(in.has("/ridge/solution"));
  }
}

// Quasi-optimality's steps run from each converged λ to the next converged one, past any
// that did not converge between them (a sweep rarely leaves one there: its small λ stop
// first), whichever rank holds each solution row.
TEST(MpiRidgeConvergence, StepsSkipTheLambdasThatDidNotConverge) {
  const int ranks = mpi::size(MPI_COMM_WORLD), me = mpi::rank(MPI_COMM_WORLD);
  constexpr int kColumns = 3;
  const int stops[] = {1, kStopIterationLimit, 2, 1, kStopConditionLimit, 2};
  const auto row = [](int j) { return std::vector<double>{1.0 * j, 0.5 * j * j, 1.0 / (j + 1)}; };
  std::vector<LambdaOutcome> outcomes;
  std::vector<double> mine, rows;
  for (int j = 0; j < 6; ++j) {
    LambdaOutcome o;
    o.lambda = std::pow(10.0, j - 3);
    o.stop_reason = stops[j];
    outcomes.push_back(o);
    if (j % ranks != me) continue;  // λ j's row on rank j % ranks
    mine.push_back(o.lambda);
    for (double v : row(j)) rows.push_back(v);
  }
  const GatheredSweep curve = GatheredSweep::from_outcomes(outcomes, mine, rows);
  std::vector<std::uint8_t> converged;
  for (const int stop : stops) converged.push_back(converged_stop(stop) ? 1 : 0);
  const std::vector<double> steps = solution_steps(MPI_COMM_WORLD, curve, converged, kColumns);
  const auto distance = [&](int i, int j) {
    double s = 0;
    for (int c = 0; c < kColumns; ++c) s += std::pow(row(j)[c] - row(i)[c], 2);
    return std::sqrt(s);
  };
  ASSERT_EQ(steps.size(), 6u);
  EXPECT_DOUBLE_EQ(steps[0], distance(0, 2));  // past λ 1 (the iteration limit)
  EXPECT_DOUBLE_EQ(steps[2], distance(2, 3));
  EXPECT_DOUBLE_EQ(steps[3], distance(3, 5));  // past λ 4 (the condition limit)
  for (const int j : {1, 4, 5}) EXPECT_TRUE(std::isnan(steps[j])) << "λ " << j;
}

}  // namespace
}  // namespace trident::ridge
