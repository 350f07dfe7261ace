// ridge.prior and ridge.weights through the whole study: min ||W^(1/2) (A x - b)||^2 +
// λ^2 ||x - x0||^2 against a dense float64 reference (the Cholesky solve of the transformed
// problem), on 1 to 4 ranks with the λ split and with the rows split; and bad prior and
// weights files failing with exit code 2 before any work.
#include <gtest/gtest.h>

#include <mpi.h>

#include <cmath>
#include <cstdio>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/run_context.hpp"
#include "deck/deck.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "reference.hpp"
#include "ridge/detail/matrix_market.hpp"
#include "ridge/detail/problem.hpp"
#include "ridge/detail/study.hpp"
#include "run_deck.hpp"
#include "support/test_support.hpp"

namespace trident::ridge {
namespace {

constexpr int kRows = 50, kColumns = 20;

using test::run_deck;

void write_vector(const std::string& path, const std::string& dataset, const std::vector<double>& v) {
  io::OutputFile file(MPI_COMM_WORLD, path, true);
  file.write_array<double>(dataset, v, {v.size()});
  file.commit();
}

// A (signed entries, some rows empty but for the diagonal band), b, a prior x0 and weights
// from 0.1 to 10, written as the deck reads them.
void write_problem(const std::string& folder) {
  if (mpi::rank(MPI_COMM_WORLD) == 0) {
    std::string entries;
    int count = 0;
    for (int i = 0; i < kRows; ++i)
      for (int j = 0; j < kColumns; ++j)
        if ((i * 3 + j * 5) % 4 == 0 || i % kColumns == j) {
          char line[64];
          std::snprintf(line, sizeof line, "%d %d %.17g\n", i + 1, j + 1, 0.1 * ((i * 7 + j * 3) % 13) - 0.5);
          entries += line;
          ++count;
        }
    trident::test::write_text(folder + "/a.mtx", "%%MatrixMarket matrix coordinate real general\n" +
                                                     std::to_string(kRows) + " " + std::to_string(kColumns) + " " +
                                                     std::to_string(count) + "\n" + entries);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<double> b(kRows), w(kRows), x0(kColumns);
  for (int i = 0; i < kRows; ++i) {
    b[i] = std::cos(0.7 * i) + 0.1 * i;
    w[i] = std::pow(10.0, std::sin(1.3 * i));
  }
  for (int j = 0; j < kColumns; ++j) x0[j] = 0.5 - 0.05 * j;
  write_vector(folder + "/b.h5", "/b", b);
  write_vector(folder + "/w.h5", "/w", w);
  write_vector(folder + "/x0.h5", "/x0", x0);
}

class MpiRidgePriorWeights : public ::testing::TestWithParam<const char*> {};

TEST_P(MpiRidgePriorWeights, MatchTheTransformedDenseProblem) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "ridge_prior_weights");
  write_problem(folder);
  const std::string deck = std::string("ridge:\n") +
                           "  matrix: {matrix_market: a.mtx}\n"
                           "  rhs: {hdf5: {file: b.h5}}\n"
                           "  lambdas: {geomspace: [0.01, 10, 7]}\n"
                           "  solver: {atol: 1.0e-12, btol: 1.0e-12, conlim: 0, max_iterations: 500}\n"
                           "  precision: float64\n"
                           "  keep_solutions: true\n"
                           "  prior: {file: x0.h5}\n"
                           "  weights: {file: w.h5, dataset: /w}\n" + GetParam();
  run_deck(folder, deck, folder + "/out.h5");

  const test::Dense a = test::dense(read_matrix_market(folder + "/a.mtx"));
  const auto b = io::InputFile(folder + "/b.h5", "b").read<double>("/b");
  const auto w = io::InputFile(folder + "/w.h5", "w").read<double>("/w");
  const auto x0 = io::InputFile(folder + "/x0.h5", "x0").read<double>("/x0");
  // The reference: A_w = W^(1/2) A, b_w = W^(1/2) (b - A x0), y by Cholesky, x = x0 + y.
  test::Dense aw = a;
  std::vector<double> bw = b;
  const std::vector<double> ax0 = test::multiply(a, x0);
  for (int i = 0; i < kRows; ++i) {
    const double root = std::sqrt(w[i]);
    for (double& e : aw[i]) e *= root;
    bw[i] = root * (b[i] - ax0[i]);
  }
  io::InputFile in(folder + "/out.h5", "ridge output");
  const auto lambdas = in.read<double>("/ridge/lambda");
  const auto residual = in.read<double>("/ridge/residual_norm"), norm = in.read<double>("/ridge/solution_norm");
  const auto solutions = in.read<double>("/ridge/solutions");
  ASSERT_EQ(lambdas.size(), 7u);
  for (std::size_t j = 0; j < lambdas.size(); ++j) {
    const std::vector<double> y = test::ridge_by_cholesky(aw, bw, lambdas[j]);
    std::vector<double> x(kColumns);
    for (int c = 0; c < kColumns; ++c) x[c] = x0[c] + y[c];
    EXPECT_LT(test::relative_difference(test::solution_row(solutions, j, kColumns), x), 1e-9) << "λ " << lambdas[j];
    const std::vector<double> ax = test::multiply(a, x);
    double weighted = 0;
    for (int i = 0; i < kRows; ++i) weighted += w[i] * (b[i] - ax[i]) * (b[i] - ax[i]);
    EXPECT_NEAR(residual[j], std::sqrt(weighted), 1e-9 * residual[j]) << "λ " << lambdas[j];
    EXPECT_NEAR(norm[j], test::norm(y), 1e-9 * norm[j]) << "||x - x0|| at λ " << lambdas[j];
  }
  // The solution at the chosen λ (the corner) holds x, the prior added back.
  const auto index = static_cast<std::size_t>(in.integer_attribute("/ridge/selection", "index"));
  const auto solution = in.read<double>("/ridge/solution");
  for (int c = 0; c < kColumns; ++c) EXPECT_EQ(solution[c], solutions[index * kColumns + c]);
  EXPECT_EQ(in.string_attribute("/ridge", "weights"), folder + "/w.h5:/w");
}

INSTANTIATE_TEST_SUITE_P(Layouts, MpiRidgePriorWeights, ::testing::Values("", "  lambda_groups: 1\n"),
                         [](const auto& info) { return info.index == 0 ? "LambdasSplit" : "RowsSplit"; });

// A weight of 0, a prior of the wrong length: exit code 2 on every rank, naming the file,
// the entry and the deck key, before the output is written.
TEST(MpiRidgePriorWeightsChecks, BadFilesFailOnEveryRankWithExitCodeTwo) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, "ridge_prior_weights_bad");
  write_problem(folder);
  std::vector<double> w(kRows, 1.0);
  w[7] = 0;
  write_vector(folder + "/w0.h5", "/w", w);
  write_vector(folder + "/short.h5", "/x0", std::vector<double>(kColumns - 1, 0.0));
  const std::string head = "ridge:\n  matrix: {matrix_market: a.mtx}\n  rhs: {hdf5: {file: b.h5}}\n  lambdas: [1.0]\n";
  const auto failure = [&](const std::string& tail) {
    try {
      run_deck(folder, head + tail, folder + "/bad.h5");
    } catch (const CollectiveError& e) {
      EXPECT_EQ(e.exit_code(), kExitBadInput);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(failure("  weights: {file: w0.h5}\n"),
            folder + "/w0.h5:/w: entry 7 (0-based) is 0, but weights must be greater than 0 (" + folder +
                "/deck.yaml:5:12: ridge.weights)");
  EXPECT_EQ(failure("  prior: {file: short.h5}\n"),
            folder + "/short.h5:/x0: the prior has 19 entries but the matrix has 20 columns (" + folder +
                "/deck.yaml:5:10: ridge.prior)");
  EXPECT_FALSE(trident::test::file_exists(folder + "/bad.h5"));
}

}  // namespace
}  // namespace trident::ridge
