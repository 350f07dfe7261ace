// The ridge: section of a deck: defaults, every source kind, and the messages of bad keys.
#include <gtest/gtest.h>

#include "support/test_support.hpp"

#include <cmath>

#include "core/error.hpp"
#include "deck/deck.hpp"
#include "support/study_decks.hpp"

namespace trident::ridge {
namespace {

RidgeSettings ridge(const std::string& text) {
  return *trident::test::read_deck_text(text, "d.yaml", "/decks").ridge;
}

std::string error_of(const std::string& text) {
  return trident::test::input_error_message([&] { ridge(text); });
}

TEST(RidgeSettings, TutorialDeckAndDefaults) {
  const RidgeSettings s = ridge(
      "ridge:\n"
      "  matrix: {generate: {rows: 150, columns: 120, density: 0.1, seed: 4}}\n"
      "  lambdas: {geomspace: [0.1, 5000, 10]}\n");
  EXPECT_EQ(s.matrix.kind, RidgeMatrixSettings::Kind::generate);
  EXPECT_EQ(s.matrix.rows, 150);
  EXPECT_EQ(s.matrix.columns, 120);
  EXPECT_DOUBLE_EQ(s.matrix.density, 0.1);
  EXPECT_EQ(s.matrix.seed, 4u);
  EXPECT_EQ(s.rhs.kind, RidgeRhsSettings::Kind::generate);
  EXPECT_DOUBLE_EQ(s.rhs.mean, 3.0);
  EXPECT_DOUBLE_EQ(s.rhs.std, 1.0);
  ASSERT_EQ(s.lambdas.size(), 10u);
  EXPECT_DOUBLE_EQ(s.lambdas.front(), 0.1);
  EXPECT_DOUBLE_EQ(s.lambdas.back(), 5000);
  for (std::size_t i = 1; i < s.lambdas.size(); ++i)  // geometric: constant ratio
    EXPECT_NEAR(s.lambdas[i] / s.lambdas[i - 1], std::pow(50000.0, 1.0 / 9), 1e-12);
  EXPECT_DOUBLE_EQ(s.solver.atol, 1e-6);
  EXPECT_DOUBLE_EQ(s.solver.btol, 1e-6);
  EXPECT_DOUBLE_EQ(s.solver.conlim, 1e8);
  EXPECT_EQ(s.solver.max_iterations, 0);
  EXPECT_EQ(s.solver.kernels, RidgeKernels::fused);
  EXPECT_EQ(s.precision, core::Precision::float32);
  EXPECT_FALSE(s.keep_solutions);
  EXPECT_EQ(s.refine_corner, 0);
}

TEST(RidgeSettings, FilesListsAndOptions) {
  const RidgeSettings s = ridge(
      "ridge:\n"
      "  matrix: {matrix_market: data/a.mtx}\n"
      "  rhs: {hdf5: {file: /abs/b.h5, dataset: /rhs}}\n"
      "  lambdas: [10, 0.5, 2]\n"
      "  solver: {atol: 1e-8, btol: 1e-9, conlim: 0, max_iterations: 50, kernels: kokkos-kernels}\n"
      "  precision: float64\n"
      "  keep_solutions: true\n"
      "  refine_corner: 4\n");
  EXPECT_EQ(s.matrix.kind, RidgeMatrixSettings::Kind::matrix_market);
  EXPECT_EQ(s.matrix.file, "/decks/data/a.mtx");
  EXPECT_EQ(s.rhs.kind, RidgeRhsSettings::Kind::hdf5);
  EXPECT_EQ(s.rhs.file, "/abs/b.h5");
  EXPECT_EQ(s.rhs.dataset, "/rhs");
  EXPECT_EQ(s.lambdas, (std::vector<double>{0.5, 2, 10}));  // sorted ascending
  EXPECT_DOUBLE_EQ(s.solver.atol, 1e-8);
  EXPECT_DOUBLE_EQ(s.solver.btol, 1e-9);
  EXPECT_DOUBLE_EQ(s.solver.conlim, 0);
  EXPECT_EQ(s.solver.max_iterations, 50);
  EXPECT_EQ(s.solver.kernels, RidgeKernels::kokkos_kernels);
  EXPECT_EQ(s.precision, core::Precision::float64);
  EXPECT_TRUE(s.keep_solutions);
  EXPECT_EQ(s.refine_corner, 4);

  const RidgeSettings h =
      ridge("ridge:\n  matrix: {hdf5: {file: a.h5}}\n  lambdas: [1]\n  precision: mixed\n");
  EXPECT_EQ(h.precision, core::Precision::mixed);
  EXPECT_EQ(h.matrix.kind, RidgeMatrixSettings::Kind::hdf5);
  EXPECT_EQ(h.matrix.file, "/decks/a.h5");
  EXPECT_EQ(h.matrix.group, "/A");
  EXPECT_EQ(h.matrix.where, "d.yaml:2:11: ridge.matrix");
}

TEST(RidgeSettings, BadValuesNameTheKey) {
  const std::string m = "ridge:\n  matrix: {generate: {rows: 10, columns: 10, density: 0.5}}\n";
  EXPECT_EQ(error_of(m + "  lambdas: [1, -2]\n"),
            "d.yaml:3:16: ridge.lambdas: expected a list of at least 1 numbers, each greater than "
            "0, got '-2' in the list");
  EXPECT_EQ(error_of(m + "  lambdas: [1, 0]\n"),
            "d.yaml:3:16: ridge.lambdas: expected a list of at least 1 numbers, each greater than "
            "0, got '0' in the list");
  EXPECT_EQ(error_of(m + "  lambdas: [1, .nan]\n"),
            "d.yaml:3:16: ridge.lambdas: expected a list of at least 1 numbers, each greater than "
            "0, got '.nan' in the list");
  EXPECT_EQ(error_of(m + "  lambdas: [1, 2, 1]\n"),
            "d.yaml:3:12: ridge.lambdas: expected distinct values, got 1 twice");
  EXPECT_EQ(error_of(m + "  lambdas: {geomspace: [0.1, 10, 2.5]}\n"),
            "d.yaml:3:24: ridge.lambdas.geomspace: expected [low, high, count] with count an "
            "integer from 1 to 1000000, got count 2.5");
  EXPECT_EQ(error_of(m + "  lambdas: {geomspace: [-1, 10, 3]}\n"),
            "d.yaml:3:25: ridge.lambdas.geomspace: expected a list of 3 numbers, each greater "
            "than 0, got '-1' in the list");
  EXPECT_EQ(error_of(m + "  lambdas: {linspace: [1, 2, 3]}\n"),
            "d.yaml:3:13: ridge.lambdas.linspace: unknown key; expected one of: geomspace");
  EXPECT_EQ(error_of(m + "  lambdas: 3\n"),
            "d.yaml:3:12: ridge.lambdas: expected a list of positive numbers or {geomspace: "
            "[low, high, count]}");
  EXPECT_EQ(error_of("ridge:\n  matrix: {generate: {rows: 10, columns: 10, density: 1.5}}\n  lambdas: [1]\n"),
            "d.yaml:2:55: ridge.matrix.generate.density: expected a number greater than 0 and at "
            "most 1, got '1.5'");
  EXPECT_EQ(error_of("ridge:\n  matrix: {generate: {rows: 0, columns: 10, density: 0.5}}\n  lambdas: [1]\n"),
            "d.yaml:2:29: ridge.matrix.generate.rows: expected an integer at least 1, got '0'");
  // More than 2^31 nonzeros in all is fine (each rank's rows must hold fewer, checked at
  // run time); 2^53 is the limit of exact offsets.
  EXPECT_EQ(error_of("ridge:\n  matrix: {generate: {rows: 2000000000, columns: 2000000000, density: 0.5}}\n  lambdas: [1]\n"),
            "d.yaml:2:71: ridge.matrix.generate.density: rows x columns x density must be below "
            "2^53 nonzeros, got 2000000000000000000");
  EXPECT_EQ(error_of("ridge:\n  matrix: {matrix_market: a.mtx, hdf5: {file: a.h5}}\n  lambdas: [1]\n"),
            "d.yaml:2:11: ridge.matrix: expected exactly one of generate, matrix_market or hdf5, got 2");
  EXPECT_EQ(error_of("ridge:\n  matrix: {}\n  lambdas: [1]\n"),
            "d.yaml:2:11: ridge.matrix: expected exactly one of generate, matrix_market or hdf5, got 0");
  EXPECT_EQ(error_of(m + "  lambdas: [1]\n  precision: half\n"),
            "d.yaml:4:14: ridge.precision: expected one of float32, float64 or mixed, got 'half'");
  EXPECT_EQ(error_of(m + "  lambdas: [1]\n  solver: {atol: -1}\n"),
            "d.yaml:4:18: ridge.solver.atol: expected a number at least 0, got '-1'");
  EXPECT_EQ(error_of(m + "  lambdas: [1]\n  solver: {max_iter: 3}\n"),
            "d.yaml:4:12: ridge.solver.max_iter: unknown key; expected one of: atol, btol, conlim, "
            "max_iterations, kernels");
  EXPECT_EQ(error_of(m + "  lambdas: [1]\n  solver: {kernels: cusparse}\n"),
            "d.yaml:4:21: ridge.solver.kernels: expected one of fused or kokkos-kernels, got 'cusparse'");
  EXPECT_EQ(error_of(m + "  lambda: [1]\n"),
            "d.yaml:3:3: ridge.lambda: unknown key; did you mean 'lambdas'?");
  EXPECT_EQ(error_of(m),
            "d.yaml:2:3: ridge: missing required key 'lambdas' (a value)");
  EXPECT_EQ(error_of(m + "  lambdas: [1]\n  rhs: {generate: {std: -1}}\n"),
            "d.yaml:4:25: ridge.rhs.generate.std: expected a number at least 0, got '-1'");
}

// The λ rules' keys: the corner by default with neither discrepancy nor GCV; GCV's 8
// probes only when it is the chosen rule, settled to decide its minimum; the prior's and
// weights' default datasets.
TEST(RidgeSettings, RulesPriorAndWeights) {
  const std::string head = "ridge:\n  matrix: {generate: {rows: 5, columns: 4, density: 0.5}}\n  lambdas: [1.0]\n";
  RidgeSettings s = ridge(head);
  EXPECT_EQ(s.select, RidgeRule::corner);
  EXPECT_EQ(s.noise_level, 0.0);
  EXPECT_EQ(s.tau, 1.0);
  EXPECT_EQ(s.gcv_probes, 0);
  EXPECT_FALSE(s.prior.given());
  EXPECT_FALSE(s.weights.given());
  s = ridge(head + "  select: gcv\n");
  EXPECT_EQ(s.select, RidgeRule::gcv);
  EXPECT_EQ(s.gcv_probes, 8);
  EXPECT_FALSE(s.gcv_settle_all);  // minimum
  EXPECT_TRUE(ridge(head + "  select: gcv\n  gcv_settle: all\n").gcv_settle_all);
  EXPECT_FALSE(ridge(head + "  select: gcv\n  gcv_settle: minimum\n").gcv_settle_all);
  EXPECT_EQ(error_of(head + "  gcv_settle: some\n"),
            "d.yaml:4:15: ridge.gcv_settle: expected one of minimum or all, got 'some'");
  s = ridge(head + "  select: discrepancy\n  noise_level: 0.5\n  tau: 1.05\n  refine_discrepancy: 3\n"
                   "  gcv_probes: 2\n  gcv_seed: 9\n  prior: {file: x0.h5}\n  weights: {file: w.h5, dataset: /v}\n");
  EXPECT_EQ(s.select, RidgeRule::discrepancy);
  EXPECT_EQ(s.noise_level, 0.5);
  EXPECT_EQ(s.tau, 1.05);
  EXPECT_EQ(s.refine_discrepancy, 3);
  EXPECT_EQ(s.gcv_probes, 2);
  EXPECT_EQ(s.gcv_seed, 9u);
  EXPECT_EQ(s.prior.file, "/decks/x0.h5");
  EXPECT_EQ(s.prior.dataset, "/x0");
  EXPECT_EQ(s.weights.dataset, "/v");
  EXPECT_EQ(s.weights.where, "d.yaml:11:12: ridge.weights");
  EXPECT_EQ(ridge(head + "  select: quasi_optimality\n").select, RidgeRule::quasi_optimality);
  EXPECT_EQ(error_of(head + "  refine_discrepancy: 2\n"),
            "d.yaml:4:23: ridge.refine_discrepancy: needs ridge.noise_level (the discrepancy's target)");
  EXPECT_EQ(error_of(head + "  tau: 0\n"), "d.yaml:4:8: ridge.tau: expected a number greater than 0, got '0'");
}

}  // namespace
}  // namespace trident::ridge
