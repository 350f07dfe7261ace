// The λ rules of a finished sweep, their log lines, the convergence warning and their
// datasets (rules.hpp).
#include "ridge/detail/rules.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/comm.hpp"
#include "core/log.hpp"
#include "io/output_file.hpp"
#include "ridge/detail/gcv.hpp"
#include "ridge/detail/lcurve.hpp"

namespace trident::ridge {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string lambda_list(const std::vector<double>& lambdas) {
  std::string out;
  for (double l : lambdas) out += (out.empty() ? "" : ", ") + number(l);
  return out;
}

// The rank holding the solution row of each λ of the curve (every rank learns it).
std::vector<int> row_owners(MPI_Comm comm, const GatheredSweep& curve) {
  const std::vector<double> all = curve.lambdas();
  std::vector<int> owner(all.size(), -1);
  const int me = mpi::rank(comm);
  for (double l : curve.local_lambdas()) {
    const auto at = std::lower_bound(all.begin(), all.end(), l);
    if (at != all.end() && *at == l) owner[static_cast<std::size_t>(at - all.begin())] = me;
  }
  mpi::max_over_ranks(comm, owner.data(), static_cast<int>(owner.size()));
  return owner;
}

// This rank's solution row of λ, or null.
const double* local_row(const GatheredSweep& curve, double lambda, std::int64_t columns) {
  const std::vector<double>& mine = curve.local_lambdas();
  for (std::size_t r = 0; r < mine.size(); ++r)
    if (mine[r] == lambda) return curve.local_solutions().data() + r * static_cast<std::size_t>(columns);
  return nullptr;
}

}  // namespace

const Choice& Selection::of(ridge::RidgeRule rule) const {
  switch (rule) {
    case ridge::RidgeRule::discrepancy: return discrepancy;
    case ridge::RidgeRule::quasi_optimality: return quasi_optimality;
    case ridge::RidgeRule::gcv: return gcv;
    default: return corner;
  }
}

std::vector<double> solution_steps(MPI_Comm comm, const GatheredSweep& curve, const std::vector<std::uint8_t>& converged,
                                   std::int64_t columns) {
  const std::vector<double> lambdas = curve.lambdas();
  const std::vector<int> owner = row_owners(comm, curve);
  const int me = mpi::rank(comm);
  const auto n = static_cast<std::size_t>(columns);
  // The converged λ with a row, in order: step p is from kept[p] to kept[p + 1], made by the
  // rank that holds kept[p]'s row (sent kept[p + 1]'s by its rank where another holds it),
  // then summed over the ranks (zero elsewhere), so that no row is copied or sent to all.
  std::vector<std::size_t> kept;
  for (std::size_t j = 0; j < lambdas.size(); ++j)
    if (converged[j] != 0 && owner[j] >= 0) kept.push_back(j);
  constexpr int kTag = 6401;
  std::vector<double> steps(lambdas.size(), 0.0), received;
  for (std::size_t p = 0; p + 1 < kept.size(); ++p) {
    const std::size_t at = kept[p], next = kept[p + 1];
    const int maker = owner[at], holder = owner[next];
    const double* later = nullptr;
    if (holder == maker) {
      if (me == maker) later = local_row(curve, lambdas[next], columns);
    } else if (me == holder) {
      mpi::send(comm, local_row(curve, lambdas[next], columns), static_cast<int>(n), maker, kTag);
    } else if (me == maker) {
      received.resize(n);
      mpi::receive(comm, received.data(), static_cast<int>(n), holder, kTag);
      later = received.data();
    }
    if (me != maker) continue;
    const double* earlier = local_row(curve, lambdas[at], columns);
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += (later[i] - earlier[i]) * (later[i] - earlier[i]);
    steps[at] = std::sqrt(s);
  }
  mpi::sum_over_ranks(comm, steps.data(), static_cast<int>(steps.size()));
  std::vector<double> out(lambdas.size(), kNaN);
  for (std::size_t p = 0; p + 1 < kept.size(); ++p) out[kept[p]] = steps[kept[p]];
  return out;
}

Selection select_lambdas(MPI_Comm comm, const Problem& problem, const ridge::RidgeSettings& settings,
                         const GatheredSweep& curve) {
  Selection s;
  const std::vector<double> lambdas = curve.lambdas(), residual = curve.residual_norms();
  for (const auto& o : curve.outcomes()) s.converged.push_back(converged_stop(o.stop_reason) ? 1 : 0);
  s.corner = corner_choice(lambdas, residual, curve.solution_norms(), s.converged);
  if (settings.noise_level > 0) {
    s.discrepancy_target = settings.tau * settings.noise_level * std::sqrt(static_cast<double>(problem.rows()));
    s.discrepancy = discrepancy_choice(lambdas, residual, s.converged, s.discrepancy_target, &s.discrepancy_bracket);
  } else {
    s.discrepancy.why_none = "not computed: no ridge.noise_level";
  }
  s.steps = solution_steps(comm, curve, s.converged, problem.columns());
  s.quasi_optimality = quasi_optimality_choice(lambdas, s.steps, s.converged);
  s.gcv.why_none = "not computed: ridge.gcv_probes is 0";
  return s;
}

void add_gcv(MPI_Comm comm, const SweepLayout& layout, SweepSolver& solver, const Problem& problem,
             const ridge::RidgeSettings& settings, const GatheredSweep& curve, Selection& s) {
  if (settings.gcv_probes <= 0) return;
  // At most as many steps as the slowest converged λ took: the quadrature's error falls
  // like the square of LSMR's (CG's) error, so those steps are more than enough for every
  // such λ; a block of probes stops sooner once its quadratures have settled (gcv.hpp).
  std::int64_t steps = 1;
  for (std::size_t j = 0; j < curve.outcomes().size(); ++j)
    if (s.converged[j] != 0) steps = std::max(steps, curve.outcomes()[j].iterations);
  const std::vector<double> lambdas = curve.lambdas();
  // each block of probes ends once the converged λ of least G is decided (or with
  // gcv_settle: all, once every converged λ's G has settled)
  GcvSettling settling;
  settling.judged = s.converged;
  settling.whole_curve = settings.gcv_settle_all;
  settling.residual_norms = curve.residual_norms();
  const TraceEstimate t = estimate_traces(comm, layout, solver, problem.first_row, problem.rows(), lambdas,
                                          settings.gcv_probes, settings.gcv_seed, steps, settling);
  s.traces = t.lower;
  s.gcv_steps = t.steps;
  s.gcv_settled = t.settled;
  s.gcv_values = gcv_function(problem.rows(), settling.residual_norms, t.lower);
  s.gcv_upper = gcv_function(problem.rows(), settling.residual_norms, t.upper);
  s.gcv = gcv_choice(lambdas, s.gcv_values, s.converged);
  std::vector<double> unsettled;
  for (std::size_t j = 0; j < lambdas.size(); ++j)
    if (s.converged[j] != 0 && s.gcv_settled[j] == 0) unsettled.push_back(lambdas[j]);
  if (!unsettled.empty()) s.gcv_unsettled = lambda_list(unsettled);
}

std::vector<double> refinement_for(const ridge::RidgeSettings& settings, const GatheredSweep& curve,
                                   const Selection& selection) {
  const std::vector<double> lambdas = curve.lambdas();
  std::vector<double> extra;
  if (selection.corner.index >= 0) {
    Corner corner;
    corner.index = selection.corner.index;
    corner.lambda = selection.corner.lambda;
    extra = refinement_lambdas(lambdas, corner, static_cast<long>(settings.refine_corner));
  }
  if (selection.discrepancy.index >= 0) {
    const std::vector<double> more =
        bracket_refinement(lambdas, selection.discrepancy_bracket, static_cast<long>(settings.refine_discrepancy));
    extra.insert(extra.end(), more.begin(), more.end());
  }
  std::sort(extra.begin(), extra.end());
  extra.erase(std::unique(extra.begin(), extra.end()), extra.end());
  extra.erase(std::remove_if(extra.begin(), extra.end(),
                             [&](double l) { return std::binary_search(lambdas.begin(), lambdas.end(), l); }),
              extra.end());
  return extra;
}

void warn_unconverged(MPI_Comm comm, const ridge::RidgeSettings& settings, const GatheredSweep& curve,
                      std::int64_t rows, std::int64_t columns) {
  std::vector<double> at_limit, at_conlim;
  for (const auto& o : curve.outcomes()) {
    if (o.stop_reason == kStopIterationLimit) at_limit.push_back(o.lambda);
    if (o.stop_reason == kStopConditionLimit) at_conlim.push_back(o.lambda);
  }
  if (at_limit.empty() && at_conlim.empty()) return;
  std::string text = "ridge: " + std::to_string(at_limit.size() + at_conlim.size()) + " of " +
                     std::to_string(curve.outcomes().size()) + " λ did not converge, and no rule chooses them:";
  if (!at_limit.empty()) {
    const std::int64_t limit = settings.solver.max_iterations;
    text += " λ = " + lambda_list(at_limit) +
            " stopped at the iteration limit (stop reason 7): raise ridge.solver.max_iterations (now " +
            (limit > 0 ? std::to_string(limit)
                       : "0, meaning min(rows, columns) = " + std::to_string(std::min(rows, columns))) +
            ")" + (at_conlim.empty() ? "" : ";");
  }
  if (!at_conlim.empty())
    text += " λ = " + lambda_list(at_conlim) +
            " stopped at the condition limit (stop reason 3): relax ridge.solver.conlim (now " +
            number(settings.solver.conlim) + "; a larger limit, or 0 for none)";
  log::warning(comm, text);
}

void log_selection(MPI_Comm comm, const ridge::RidgeSettings& settings, const Selection& s) {
  if (!s.none.empty()) {
    log::info(comm, "ridge: no λ chosen: " + s.none);
    return;
  }
  const auto line = [&](ridge::RidgeRule rule, const std::string& title, const std::string& detail) {
    const Choice& c = s.of(rule);
    const std::string chosen = rule == settings.select ? " [chosen: ridge.select]" : "";
    if (c.index < 0)
      log::info(comm, "ridge: " + title + ": none (" + c.why_none + ")" + chosen);
    else
      log::info(comm, "ridge: " + title + " at λ = " + number(c.lambda) + " (" + detail + ")" + chosen);
  };
  line(ridge::RidgeRule::corner, "L-curve corner",
       "index " + std::to_string(s.corner.index) + ", curvature " + number(s.corner.value));
  line(ridge::RidgeRule::discrepancy, "discrepancy principle",
       "||b - A x|| = tau * noise_level * sqrt(rows) = " + number(s.discrepancy_target) + " between index " +
           std::to_string(s.discrepancy_bracket.first) + " and " + std::to_string(s.discrepancy_bracket.second) +
           "; nearest index " + std::to_string(s.discrepancy.index));
  line(ridge::RidgeRule::quasi_optimality, "quasi-optimality",
       "index " + std::to_string(s.quasi_optimality.index) +
           ", ||x_i - x_next|| / ln(λ_next / λ_i) = " + number(s.quasi_optimality.value));
  line(ridge::RidgeRule::gcv, "GCV minimum",
       "index " + std::to_string(s.gcv.index) + ", G = " + number(s.gcv.value) + ", " +
           std::to_string(settings.gcv_probes) + " probes of " + std::to_string(s.gcv_steps) + " steps");
  if (s.gcv.index >= 0 && !s.gcv_unsettled.empty())
    log::info(comm, "ridge: GCV's probes stopped once no further step could change its minimum: G at λ = " +
                        s.gcv_unsettled + " lies between /ridge/gcv and /ridge/gcv_upper (ridge.gcv_settle: all "
                        "settles every λ)");
}

void write_selection(io::OutputFile& out, const ridge::RidgeSettings& settings,
                     const GatheredSweep& curve, const Selection& s, std::int64_t columns,
                     const std::vector<double>& shift) {
  const std::vector<double> lambdas = curve.lambdas();
  const auto n = static_cast<std::uint64_t>(lambdas.size());
  std::vector<std::uint8_t> converged = s.converged;
  if (converged.size() != lambdas.size()) {
    converged.clear();
    for (const auto& o : curve.outcomes()) converged.push_back(converged_stop(o.stop_reason) ? 1 : 0);
  }
  out.write_array<std::uint8_t>("/ridge/converged", converged, {n});
  out.attribute("/ridge/converged", "meaning",
                std::string("1: LSMR stopped by its convergence test; 0: at the condition limit (stop reason 3) "
                            "or the iteration limit (7); the rules choose only among the converged λ"));
  out.describe("/ridge/converged", {"lambda"}, "whether LSMR converged at this lambda", "");
  out.describe_flags("/ridge/converged", {0, 1}, "not_converged converged");
  if (!s.steps.empty()) {
    out.write_array<double>("/ridge/solution_step", s.steps, {n});
    out.write_array<double>("/ridge/quasi_optimality",
                            quasi_optimality_function(lambdas, s.steps, s.converged), {n});
    out.describe("/ridge/solution_step", {"lambda"}, "||x_i - x_next||, the step to the next converged lambda's x",
                 "1");
    out.describe("/ridge/quasi_optimality", {"lambda"},
                 "quasi-optimality function ||x_i - x_next|| / ln(lambda_next / lambda_i)", "1");
  }
  if (!s.gcv_values.empty()) {
    out.write_array<double>("/ridge/gcv", s.gcv_values, {n});
    out.write_array<double>("/ridge/gcv_trace", s.traces, {n});
    out.describe("/ridge/gcv", {"lambda"}, "generalized cross-validation function G(lambda)", "1");
    out.describe("/ridge/gcv_trace", {"lambda"},
                 "estimated t(lambda) = trace(A A_lambda^#), G's denominator being (rows - t)^2", "1");
    out.write_array<double>("/ridge/gcv_upper", s.gcv_upper, {n});
    out.describe("/ridge/gcv_upper", {"lambda"},
                 "G(lambda) with t from above (the probes' quadratures from above): the probes' G lies between "
                 "/ridge/gcv (t from below) and this",
                 "1");
    out.write_array<std::uint8_t>("/ridge/gcv_settled", s.gcv_settled, {n});
    out.attribute("/ridge/gcv_settled", "meaning",
                  std::string("1: G settled (/ridge/gcv is the estimate); 0: not converged, or the probes stopped "
                              "before it settled (ridge.gcv_settle: minimum), G between /ridge/gcv and "
                              "/ridge/gcv_upper"));
    out.describe("/ridge/gcv_settled", {"lambda"}, "whether G(lambda) settled", "");
    out.describe_flags("/ridge/gcv_settled", {0, 1}, "not_settled settled");
  }
  const std::string group = "/ridge/selection";
  out.create_group(group);
  const Choice& chosen = s.of(settings.select);
  out.attribute(group, "rule", std::string(ridge::rule_name(settings.select)));
  out.attribute(group, "index", static_cast<std::int64_t>(chosen.index));
  out.attribute(group, "lambda", chosen.index >= 0 ? chosen.lambda : kNaN);
  out.attribute(group, "why_none", chosen.index >= 0 ? std::string() : (s.none.empty() ? chosen.why_none : s.none));
  const auto rule_group = [&](ridge::RidgeRule rule, const std::string& value_meaning) {
    const Choice& c = s.of(rule);
    const std::string g = group + "/" + ridge::rule_name(rule);
    out.create_group(g);
    out.attribute(g, "index", static_cast<std::int64_t>(c.index));
    out.attribute(g, "lambda", c.index >= 0 ? c.lambda : kNaN);
    out.attribute(g, "value", c.index >= 0 ? c.value : kNaN);
    out.attribute(g, "value_meaning", value_meaning);
    out.attribute(g, "why_none", c.index >= 0 ? std::string() : (s.none.empty() ? c.why_none : s.none));
    return g;
  };
  rule_group(ridge::RidgeRule::corner, "the Menger curvature at the corner");
  const std::string d = rule_group(ridge::RidgeRule::discrepancy,
                                   "||b - A x|| at `index`, the swept λ nearest the target; `lambda` is interpolated "
                                   "in (log λ, log ||b - A x||) between bracket_low and bracket_high");
  out.attribute(d, "noise_level", settings.noise_level);
  out.attribute(d, "tau", settings.tau);
  out.attribute(d, "target", s.discrepancy_target);
  out.attribute(d, "bracket_low", static_cast<std::int64_t>(s.discrepancy_bracket.first));
  out.attribute(d, "bracket_high", static_cast<std::int64_t>(s.discrepancy_bracket.second));
  rule_group(ridge::RidgeRule::quasi_optimality,
             "||x_i - x_next|| / ln(λ_next / λ_i) at the choice (/ridge/quasi_optimality), next: the next converged λ");
  const std::string g = rule_group(ridge::RidgeRule::gcv,
                                   "G(λ) = rows ||b - A x||^2 / (rows - trace)^2 at the choice (/ridge/gcv), the "
                                   "trace estimated by Hutchinson probes and Lanczos quadrature (/ridge/gcv_trace)");
  out.attribute(g, "probes", settings.gcv_probes);
  out.attribute(g, "seed", static_cast<std::int64_t>(settings.gcv_seed));
  out.attribute(g, "steps", s.gcv_steps);
  out.attribute(g, "settle", std::string(settings.gcv_settle_all ? "all" : "minimum"));

  // The solution at the chosen λ, from the rank that holds it.
  if (chosen.index < 0 || !s.none.empty()) return;
  const auto columns_u = static_cast<std::uint64_t>(columns);
  out.create_dataset<double>("/ridge/solution", {columns_u});
  out.describe("/ridge/solution", {"column"}, "solution x at the chosen lambda", "1");
  const double* row = local_row(curve, lambdas[static_cast<std::size_t>(chosen.index)], columns);
  std::vector<double> x;
  if (row != nullptr) {
    x.assign(row, row + columns);
    for (std::size_t i = 0; i < shift.size() && i < x.size(); ++i) x[i] += shift[i];
  }
  out.write_slab<double>("/ridge/solution", {0}, {row != nullptr ? columns_u : 0}, row != nullptr ? x.data() : nullptr);
  out.attribute("/ridge/solution", "lambda", lambdas[static_cast<std::size_t>(chosen.index)]);
  out.attribute("/ridge/solution", "index", static_cast<std::int64_t>(chosen.index));
  out.attribute("/ridge/solution", "rule", std::string(ridge::rule_name(settings.select)));
}

}  // namespace trident::ridge
