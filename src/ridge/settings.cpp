#include "ridge/settings.hpp"

#include "deck/reader.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/error.hpp"

namespace trident::ridge {

using core::Precision;
using deck::any;
using deck::at_least;
using deck::between;
using deck::Bounds;
using deck::greater_than;
using deck::Section;

namespace {

constexpr std::size_t kUnlimited = std::numeric_limits<std::size_t>::max();

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string located(const Section& section) {
  return section.where() + ": " + section.path();
}

RidgeMatrixSettings parse_matrix(const Section& ridge) {
  const Section m = ridge.section("matrix", {"generate", "matrix_market", "hdf5"});
  m.require_one_key();
  RidgeMatrixSettings out;
  out.where = located(m);
  if (m.has("generate")) {
    const Section g = m.section("generate", {"rows", "columns", "density", "seed"});
    out.kind = RidgeMatrixSettings::Kind::generate;
    out.rows = g.integer("rows", at_least(1));
    out.columns = g.integer("columns", at_least(1));
    Bounds density = greater_than(0);
    density.high = 1;
    out.density = g.real("density", density);
    out.seed = static_cast<std::uint64_t>(g.integer("seed", at_least(0), 1));
    const double nonzeros = std::round(out.density * double(out.rows) * double(out.columns));
    // Each rank's rows must hold fewer than 2^31 (checked when the rows are split); the
    // whole matrix only needs exact 64-bit offsets.
    if (nonzeros > 9007199254740992.0)
      g.fail("density", "rows x columns x density must be below 2^53 nonzeros, got " +
                            std::to_string(static_cast<long long>(nonzeros)));
    if (out.rows > std::numeric_limits<int>::max() || out.columns > std::numeric_limits<int>::max())
      g.fail("rows", "rows and columns must be below 2^31");
  } else if (m.has("matrix_market")) {
    out.kind = RidgeMatrixSettings::Kind::matrix_market;
    out.file = m.file("matrix_market");
  } else {
    const Section h = m.section("hdf5", {"file", "group"});
    out.kind = RidgeMatrixSettings::Kind::hdf5;
    out.file = h.file("file");
    out.group = h.text("group", "/A");
  }
  return out;
}

RidgeRhsSettings parse_rhs(const Section& ridge) {
  RidgeRhsSettings out;
  if (!ridge.has("rhs")) {
    out.where = ridge.where() + ": ridge.rhs";
    return out;  // normal(3, 1), seed 2: the tutorial's right-hand side
  }
  const Section r = ridge.section("rhs", {"generate", "hdf5"});
  out.where = located(r);
  r.require_one_key();
  if (r.has("generate")) {
    const Section g = r.section("generate", {"mean", "std", "seed"});
    out.kind = RidgeRhsSettings::Kind::generate;
    out.mean = g.real("mean", any(), 3.0);
    out.std = g.real("std", at_least(0), 1.0);
    out.seed = static_cast<std::uint64_t>(g.integer("seed", at_least(0), 2));
  } else {
    const Section h = r.section("hdf5", {"file", "dataset"});
    out.kind = RidgeRhsSettings::Kind::hdf5;
    out.file = h.file("file");
    out.dataset = h.text("dataset", "/b");
  }
  return out;
}

std::vector<double> parse_lambdas(const Section& ridge) {
  std::vector<double> out;
  const Section::Shape shape = ridge.shape("lambdas");
  if (shape == Section::Shape::absent || shape == Section::Shape::null) ridge.scalar("lambdas");  // missing: its error
  if (shape == Section::Shape::sequence) {
    out = ridge.reals("lambdas", greater_than(0), 1, kUnlimited);
  } else if (shape == Section::Shape::mapping) {
    const Section l = ridge.section("lambdas", {"geomspace"});
    const std::vector<double> g = l.reals("geomspace", greater_than(0), 3, 3);
    const double count = g[2];
    if (count != std::floor(count) || count < 1 || count > 1e6)
      l.fail("geomspace", "expected [low, high, count] with count an integer from 1 to 1000000, "
                          "got count " + number(count));
    const auto n = static_cast<std::size_t>(count);
    // Ends far apart (1e-200 and 1e200) overflow high / low, which would make the values
    // between them infinite; those go through logarithms instead, and other ranges keep
    // the plain formula, so their values stay bit for bit the same.
    const double ratio = g[1] / g[0];
    const bool ratio_fits = std::isfinite(ratio) && ratio > 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double t = n == 1 ? 0.0 : double(i) / double(n - 1);
      const double value = ratio_fits ? g[0] * std::pow(ratio, t)
                                      : std::exp(std::log(g[0]) + t * (std::log(g[1]) - std::log(g[0])));
      out.push_back(i == 0 ? g[0] : i + 1 == n ? g[1] : value);  // the ends exactly as given
    }
  } else {
    ridge.fail("lambdas", "expected a list of positive numbers or {geomspace: [low, high, count]}");
  }
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end())
    ridge.fail("lambdas", "expected distinct values, got " +
                              number(*std::adjacent_find(out.begin(), out.end())) + " twice");
  return out;
}

RidgeSolverSettings parse_solver(const Section& ridge) {
  RidgeSolverSettings out;
  {
    const std::optional<Section> s =
        ridge.section_or_empty("solver", {"atol", "btol", "conlim", "max_iterations", "kernels"});
    out.atol = s->real("atol", at_least(0), out.atol);
    out.btol = s->real("btol", at_least(0), out.btol);
    out.conlim = s->real("conlim", at_least(0), out.conlim);
    out.max_iterations = s->integer("max_iterations", at_least(0), 0);
    out.kernels = s->choice("kernels", {"fused", "kokkos-kernels"}, "fused") == "kokkos-kernels"
                      ? RidgeKernels::kokkos_kernels
                      : RidgeKernels::fused;
  }
  return out;
}

RidgeVectorFile parse_vector_file(const Section& ridge, const std::string& key, const std::string& fallback) {
  RidgeVectorFile out;
  if (!ridge.has(key)) return out;
  const Section v = ridge.section(key, {"file", "dataset"});
  out.where = located(v);
  out.file = v.file("file");
  out.dataset = v.text("dataset", fallback);
  return out;
}

// The rules' keys: the chosen rule needs its inputs (the discrepancy a noise level, GCV
// its probes), and a refinement of the discrepancy needs the discrepancy.
void parse_rules(const Section& ridge, RidgeSettings& out) {
  const std::string rule =
      ridge.choice("select", {"corner", "discrepancy", "quasi_optimality", "gcv"}, "corner");
  out.select = rule == "discrepancy"        ? RidgeRule::discrepancy
               : rule == "quasi_optimality" ? RidgeRule::quasi_optimality
               : rule == "gcv"              ? RidgeRule::gcv
                                            : RidgeRule::corner;
  out.noise_level = ridge.has("noise_level") ? ridge.real("noise_level", greater_than(0)) : 0.0;
  out.tau = ridge.real("tau", greater_than(0), 1.0);
  out.refine_discrepancy = ridge.integer("refine_discrepancy", between(0, 1000), 0);
  // Eight probes hold the estimated trace's relative error near 2 sqrt(2 s / (8 rows (1 - s)))
  // (s: the trace over rows), under 3 % of G for 600 rows and more where s <= 1/2.
  out.gcv_probes = ridge.integer("gcv_probes", between(0, 1000), out.select == RidgeRule::gcv ? 8 : 0);
  out.gcv_seed = static_cast<std::uint64_t>(ridge.integer("gcv_seed", at_least(0), 1));
  out.gcv_settle_all = ridge.choice("gcv_settle", {"minimum", "all"}, "minimum") == "all";
  if (out.select == RidgeRule::discrepancy && out.noise_level == 0)
    ridge.fail("select", "discrepancy needs ridge.noise_level (the standard deviation of the noise in b)");
  if (out.refine_discrepancy > 0 && out.noise_level == 0)
    ridge.fail("refine_discrepancy", "needs ridge.noise_level (the discrepancy's target)");
  if (out.select == RidgeRule::gcv && out.gcv_probes == 0)
    ridge.fail("gcv_probes", "expected at least 1 with select: gcv, got 0");
}

}  // namespace

const char* rule_name(RidgeRule r) {
  switch (r) {
    case RidgeRule::discrepancy: return "discrepancy";
    case RidgeRule::quasi_optimality: return "quasi_optimality";
    case RidgeRule::gcv: return "gcv";
    default: return "corner";
  }
}

const char* kernels_name(RidgeKernels k) {
  return k == RidgeKernels::kokkos_kernels ? "kokkos-kernels" : "fused";
}

RidgeSettings parse_ridge(const Section& top) {
  const Section ridge = top.section("ridge", {"matrix", "rhs", "lambdas", "solver", "precision",
                                              "keep_solutions", "refine_corner", "lambda_groups", "select",
                                              "noise_level", "tau", "refine_discrepancy", "gcv_probes",
                                              "gcv_seed", "gcv_settle", "prior", "weights"});
  RidgeSettings out;
  out.matrix = parse_matrix(ridge);
  out.rhs = parse_rhs(ridge);
  out.lambdas = parse_lambdas(ridge);
  out.solver = parse_solver(ridge);
  out.precision = ridge.precision("precision", {Precision::float32, Precision::float64, Precision::mixed},
                                  Precision::float32);
  out.keep_solutions = ridge.boolean("keep_solutions", false);
  out.refine_corner = ridge.integer("refine_corner", between(0, 1000), 0);
  out.lambda_groups = ridge.integer("lambda_groups", at_least(0), 0);
  parse_rules(ridge, out);
  out.prior = parse_vector_file(ridge, "prior", "/x0");
  out.weights = parse_vector_file(ridge, "weights", "/w");
  out.lambda_groups_where = ridge.where("lambda_groups") + ": ridge.lambda_groups";
  return out;
}

void check_lambda_groups(const RidgeSettings& settings, int ranks) {
  if (settings.lambda_groups > 0 && ranks % settings.lambda_groups != 0)
    throw InputError(settings.lambda_groups_where + ": " + std::to_string(settings.lambda_groups) +
                     " groups do not divide the " + std::to_string(ranks) + " ranks; give a divisor of " +
                     std::to_string(ranks) + ", or 0 to let the run choose");
}

}  // namespace trident::ridge
