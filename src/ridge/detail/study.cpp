// The ridge study: reading and checking the problem, laying out the ranks, sweeping the λ
// (with its checkpoint on a stop signal), the corner, and /ridge in the output.
#include "ridge/detail/study.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>
#include <sstream>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/device_memory.hpp"
#include "core/log.hpp"
#include "core/signals.hpp"
#include "core/timers.hpp"
#include "io/output_file.hpp"
#include "io/paths.hpp"
#include "ridge/detail/checkpoint.hpp"
#include "ridge/detail/lcurve.hpp"
#include "ridge/detail/lsmr_sweep.hpp"
#include "ridge/detail/rules.hpp"
#include "ridge/detail/sweep.hpp"

namespace trident::ridge {

namespace {

// The matrix's description in the memory checks' messages: the whole matrix, this rank's
// rows when it holds a block, and what `holds` adds.
std::string matrix_text(const MatrixRows& matrix, std::int64_t first, std::int64_t count, const std::string& holds) {
  const std::int64_t nonzeros = matrix.offset(first + count) - matrix.offset(first);
  std::string what = "the " + std::to_string(matrix.rows()) + " x " + std::to_string(matrix.columns()) +
                     " matrix with " + std::to_string(matrix.nonzeros()) + " nonzeros";
  if (count != matrix.rows())
    what += " (this rank's rows " + std::to_string(first + 1) + " to " + std::to_string(first + count) + ", " +
            std::to_string(nonzeros) + " nonzeros)";
  return what + " (" + holds + ")";
}

// Stops before this rank's rows of A and b are read or generated when the host cannot hold
// them (CSR: a 4-byte offset a row, a 4-byte column and an 8-byte value a nonzero, and b),
// with the solutions of its λ that the rules keep (a column each, in double).
void check_host_memory(MPI_Comm comm, const ridge::RidgeSettings& s, const MatrixRows& matrix, std::int64_t first,
                       std::int64_t count, std::size_t lambdas_per_rank, const DeviceBinding& binding) {
  mpi::collective(comm, [&] {
    const std::int64_t nonzeros = matrix.offset(first + count) - matrix.offset(first);
    const std::int64_t need = (count + 1) * 4 + nonzeros * (4 + 8) + count * 8 +
                              static_cast<std::int64_t>(lambdas_per_rank) * matrix.columns() * 8;
    check_device_memory(need, host_free_bytes(), s.matrix.where,
                        matrix_text(matrix, first, count,
                                    "A's rows and b on the host, in float64, and the solutions of " +
                                        std::to_string(lambdas_per_rank) + " λ"),
                        binding.host.empty() ? "the host" : binding.host, "host memory");
  });
}

// Stops before anything goes to the device when this rank's rows of A, their transpose and
// the vectors cannot fit it. The message names the rank's share when it holds a block.
void check_memory(MPI_Comm comm, const ridge::RidgeSettings& s, const MatrixRows& matrix, std::int64_t first,
                  std::int64_t count, std::size_t lambdas_per_rank, bool distributed, const DeviceBinding& binding) {
  mpi::collective(comm, [&] {
    const std::int64_t nonzeros = matrix.offset(first + count) - matrix.offset(first);
    const bool probes = s.gcv_probes > 0;
    const std::int64_t need =
        device_bytes_needed(count, matrix.columns(), nonzeros, s.precision, lambdas_per_rank, s.solver.kernels,
                            distributed) +
        (probes ? probe_device_bytes(count, matrix.columns(), nonzeros, distributed) : 0);
    const std::string holds = std::string("A and A^T in ") +
                              (s.precision == core::Precision::float64 ? "float64" : "float32") +
                              ", plus the LSMR vectors of " + std::to_string(lambdas_per_rank) + " λ per rank" +
                              (probes ? " and GCV's block of probes" : "");
    check_device_memory(need, device_free_bytes(), s.matrix.where, matrix_text(matrix, first, count, holds),
                        binding.device_name.empty() ? "the device" : binding.device_name);
  });
}

// One line: how the rows and the λ are spread, and what the row ranks sum each iteration
// (the fused kernels add each λ's share of ||x||^2 to A^T u's n sums and ||u||^2).
void log_layout(MPI_Comm comm, const MatrixRows& matrix, const std::vector<std::int64_t>& bounds, int groups,
                std::size_t lambdas_per_group, ridge::RidgeKernels kernels, const transport::DeviceComm* rows_comm) {
  std::int64_t fewest_rows = matrix.rows(), most_rows = 0, fewest = matrix.nonzeros(), most = 0;
  for (std::size_t r = 0; r + 1 < bounds.size(); ++r) {
    const std::int64_t rows = bounds[r + 1] - bounds[r];
    const std::int64_t nonzeros = matrix.offset(bounds[r + 1]) - matrix.offset(bounds[r]);
    fewest_rows = std::min(fewest_rows, rows);
    most_rows = std::max(most_rows, rows);
    fewest = std::min(fewest, nonzeros);
    most = std::max(most, nonzeros);
  }
  const std::size_t row_ranks = bounds.size() - 1;
  log::info(comm, "ridge: rows of A over " + std::to_string(row_ranks) + (row_ranks == 1 ? " rank" : " ranks") +
                      " per λ group (" + std::to_string(fewest_rows) + " to " + std::to_string(most_rows) +
                      " rows, " + std::to_string(fewest) + " to " + std::to_string(most) +
                      " nonzeros per rank), λ in " + std::to_string(groups) +
                      (groups == 1 ? " group" : " groups") + " (up to " + std::to_string(lambdas_per_group) +
                      " λ each, refinement included)" +
                      (row_ranks > 1 ? "; one all-reduce of " + std::to_string(matrix.columns()) + " + 1" +
                                           (kernels == ridge::RidgeKernels::fused
                                                ? " + " + std::to_string(lambdas_per_group)
                                                : std::string()) +
                                           " numbers per iteration in each group" +
                                           (rows_comm != nullptr ? " (through " + rows_comm->sums_route() + ")"
                                                                 : std::string())
                                     : std::string()));
}

// The λ groups: the deck's, checked against the rank count, or the run's choice.
int lambda_groups(MPI_Comm comm, const ridge::RidgeSettings& s, std::int64_t nonzeros) {
  const int ranks = mpi::size(comm);
  if (s.lambda_groups == 0) return choose_lambda_groups(ranks, nonzeros, s.lambdas.size());
  mpi::collective(comm, [&] { ridge::check_lambda_groups(s, ranks); });
  return static_cast<int>(s.lambda_groups);
}

// What each /ridge dataset is, for netCDF and CF readers: every per-λ dataset on the lambda
// dimension, whose coordinate is /ridge/lambda. A, b and x carry no unit trident knows, so
// the norms and λ are written as dimensionless; stop_reason's codes are CF flags.
void describe_curve(io::OutputFile& out, bool solutions) {
  out.describe("/ridge/lambda", {"lambda"}, "damping parameter lambda of min ||A x - b||^2 + lambda^2 ||x - x0||^2",
               "1");
  out.describe("/ridge/residual_norm", {"lambda"}, "residual norm ||b - A x||, recomputed from x", "1");
  out.describe("/ridge/solution_norm", {"lambda"}, "solution norm ||x - x0|| (x0 the prior, 0 without one)", "1");
  out.describe("/ridge/iterations", {"lambda"}, "LSMR iterations", "1");
  out.describe("/ridge/stop_reason", {"lambda"}, "why LSMR stopped (its istop)", "");
  out.describe_flags("/ridge/stop_reason",
                     {kStopUnfinished, kStopZeroSolution, kStopResidualSmall, kStopLeastSquares, kStopConditionLimit,
                      kStopResidualMachine, kStopLeastSquaresMachine, kStopConditionMachine, kStopIterationLimit},
                     "unfinished zero_solution_is_exact residual_small_for_atol_btol least_squares_good_for_atol "
                     "condition_over_conlim residual_small_for_machine least_squares_good_for_machine "
                     "condition_too_large_for_machine max_iterations_reached");
  out.describe("/ridge/curvature", {"lambda"},
               "Menger curvature of (log10 residual_norm, log10 solution_norm), 0 at the ends", "1");
  if (solutions) out.describe("/ridge/solutions", {"lambda", "column"}, "solution x for each lambda", "1");
}

// The Menger curvature of each converged point among the converged points alone (0 at their
// ends and at every λ that did not converge), where the corner is looked for.
std::vector<double> converged_curvatures(const GatheredSweep& curve, const Selection& selection) {
  std::vector<double> residual, solution, out(curve.outcomes().size(), 0.0);
  std::vector<std::size_t> kept;
  for (std::size_t j = 0; j < curve.outcomes().size(); ++j) {
    const LambdaOutcome& o = curve.outcomes()[j];
    if (j < selection.converged.size() ? selection.converged[j] == 0 : !converged_stop(o.stop_reason)) continue;
    kept.push_back(j);
    residual.push_back(o.residual_norm);
    solution.push_back(o.solution_norm);
  }
  const std::vector<double> kappa = menger_curvatures(residual, solution);
  for (std::size_t k = 0; k < kept.size(); ++k) out[kept[k]] = kappa[k];
  return out;
}

template <class T, class F>
std::vector<T> column(const std::vector<LambdaOutcome>& curve, F field) {
  std::vector<T> out;
  for (const auto& o : curve) out.push_back(static_cast<T>(field(o)));
  return out;
}

// The matrix read (or generated) and checked, its memory checked and the sweep's
// device state set up, before the output exists; run() sweeps and writes /ridge.
class RidgeStudy : public PreparedStudy {
 public:
  RidgeStudy(const ridge::RidgeSettings& settings, RunContext& context, std::string checkpoint_path)
      : settings_(settings), context_(context), checkpoint_path_(std::move(checkpoint_path)) {
    MPI_Comm comm = context.comm;
    // ridge.read: A and b read (or generated, this rank's rows) and checked, the checkpoint
    // read; ridge.setup: the solver's device state (A^T, the row schedules, uploads). With
    // ridge.sweep, ridge.select, ridge.gcv and ridge.output they account for the ridge steps of the timer table.
    std::optional<Timers::Scope> scope(std::in_place, context.timers, "ridge.read");
    {
      const MatrixRows matrix(settings.matrix, comm);  // shape and row offsets; rank 0 parses Matrix Market
      const int groups = lambda_groups(comm, settings, matrix.nonzeros());
      const GroupPlace place = group_place(mpi::size(comm), mpi::rank(comm), groups);
      const std::vector<std::int64_t> bounds = nonzero_balanced_rows(
          matrix.rows(), place.group_size, [&matrix](std::int64_t row) { return matrix.offset(row); });
      const std::int64_t first = bounds[place.rank_in_group];
      const std::int64_t count = bounds[place.rank_in_group + 1] - first;
      const std::size_t per_rank = (settings.lambdas.size() + std::size_t(groups) - 1) / std::size_t(groups) +
                                   std::size_t(settings.refine_corner + settings.refine_discrepancy);
      // the rows on the host first, while the driver makes the device's context (its wait
      // is startup.device's); then the device's memory, before anything goes to it
      check_host_memory(comm, settings, matrix, first, count, per_rank, context.binding);
      problem_ = load_rows(settings, matrix, first, count);
      context.device_ready(scope, "ridge.read");
      check_memory(comm, settings, matrix, first, count, per_rank, place.group_size > 1, context.binding);
      layout_ = std::make_unique<SweepLayout>(comm, groups, context.transport, context.overrides.peer_memory);
      // NCCL only where no peer sums carry the sums (ranks on several hosts), made and
      // connected while the solver is set up, for the largest sum (bounded by a number a
      // column and λ, double)
      const auto columns = static_cast<std::size_t>(matrix.columns());
      if (layout_->rows_comm() != nullptr)
        layout_->rows_comm()->expect_sums((columns + 1 + per_rank) * sizeof(double),
                                          (columns + 1) * (per_rank + 1) * sizeof(double));
      log_layout(comm, matrix, bounds, groups, per_rank, settings.solver.kernels, layout_->rows_comm());
    }
    // a stop signal may come during any sweep: the checkpoint's place must be usable
    io::check_output_destination(comm, checkpoint_path_, /*overwrite=*/true);
    if (!context.restart_path.empty()) {
      restored_ = read_checkpoint(comm, context.restart_path, settings, problem_);
      log::info(comm, "ridge: restarting from " + context.restart_path + ": " +
                          std::to_string(restored_.outcomes().size()) + " λ already finished");
    }
    scope.emplace(context.timers, "ridge.setup");
    solver_ = std::make_unique<SweepSolver>(problem_, settings.precision, settings.solver.kernels,
                                            layout_->rows_comm(), EngineOptions::from_overrides(context.overrides));
    if (transport::DeviceComm* rows = layout_->rows_comm()) {
      rows->wait_until_ready();
      context.timers.add("ridge.device_comm", rows->setup_seconds());
    }
    const std::string layout = solver_->product_layout();
    if (!layout.empty()) log::detail(comm, "ridge: products: " + layout);
  }

  void run(io::OutputFile& output) override;

 private:
  // Sweeps the λ of `lambdas` that `restored_` does not hold, and adds those it holds.
  // A stop signal during the sweep ends the study (stop()), `earlier` being the λ
  // finished before this sweep.
  GatheredSweep sweep(const std::vector<double>& lambdas, const LsmrOptions& options, const GatheredSweep& earlier,
                      io::OutputFile& out);
  [[noreturn]] void stop(const GatheredSweep& finished, int signal, io::OutputFile& out);
  // The rules but GCV over `curve` (once more only when a refinement added λ).
  Selection select(const GatheredSweep& curve);
  // GCV's probes and choice, once, over the final curve.
  void add_gcv(const GatheredSweep& curve, Selection& selection);
  void write(const GatheredSweep& curve, const Selection& selection, io::OutputFile& out);

  const ridge::RidgeSettings& settings_;
  RunContext& context_;
  std::string checkpoint_path_;
  std::unique_ptr<SweepLayout> layout_;  // before solver_, which uses its communicator
  Problem problem_;
  GatheredSweep restored_;  // from --restart: the λ already finished
  std::unique_ptr<SweepSolver> solver_;
};

bool holds(const std::vector<double>& lambdas, double lambda) {
  return std::find(lambdas.begin(), lambdas.end(), lambda) != lambdas.end();
}

GatheredSweep RidgeStudy::sweep(const std::vector<double>& lambdas, const LsmrOptions& options,
                                const GatheredSweep& earlier, io::OutputFile& out) {
  const std::vector<double> restored = restored_.lambdas();
  std::vector<double> todo;
  for (double l : lambdas)
    if (!holds(restored, l)) todo.push_back(l);
  GatheredSweep swept;
  {
    auto scope = context_.timers.scope("ridge.sweep");
    // Every λ's solution stays on the host of its group's first rank (columns numbers a λ):
    // quasi-optimality compares neighbours, /ridge/solution is the chosen λ's, and a
    // checkpoint holds them, so a restart keeps all of them bit for bit.
    swept = sweep_over_ranks(context_.comm, *layout_, *solver_, todo, options, /*keep_solutions=*/true,
                             context_.progress_seconds);
  }
  if (swept.stopped_by != 0) {
    GatheredSweep finished = earlier;
    finished.merge(restored_.only([&](double l) { return holds(lambdas, l); }));
    finished.merge(swept.finished());
    stop(finished, swept.stopped_by, out);
  }
  swept.merge(restored_.only([&](double l) { return holds(lambdas, l); }));
  return swept;
}

void RidgeStudy::stop(const GatheredSweep& finished, int signal, io::OutputFile& out) {
  {
    auto scope = context_.timers.scope("ridge.checkpoint");
    write_checkpoint(context_.comm, checkpoint_path_, settings_, problem_, finished);
  }
  log::info(context_.comm, "ridge: checkpoint written to " + checkpoint_path_);
  // A partial curve: its corner and the other rules would be artefacts of where the stop
  // came, so none chooses.
  Selection none;
  none.none = std::string("the run was stopped by ") + signals::name(signal) + " with " +
              std::to_string(finished.outcomes().size()) + " λ finished: the curve is partial";
  none.corner.why_none = none.discrepancy.why_none = none.quasi_optimality.why_none = none.gcv.why_none = none.none;
  write(finished, none, out);
  throw StudyStopped(std::string("ridge: stopped by ") + signals::name(signal) + " with " +
                         std::to_string(finished.outcomes().size()) + " λ finished; checkpoint " + checkpoint_path_ +
                         " written; resume with --restart " + checkpoint_path_,
                     kExitStopped);
}

void RidgeStudy::run(io::OutputFile& out) {
  const ridge::RidgeSettings& settings = settings_;
  RunContext& context = context_;
  const Problem& problem = problem_;
  MPI_Comm comm = context.comm;
  const int ranks = mpi::size(comm);
  log::info(comm, "ridge: " + std::to_string(problem.rows()) + " x " +
                      std::to_string(problem.columns()) + " matrix, " +
                      std::to_string(problem.nonzeros()) + " nonzeros, " +
                      std::to_string(settings.lambdas.size()) + " λ over " + std::to_string(ranks) +
                      " ranks, " + core::precision_name(settings.precision) + ", " +
                      ridge::kernels_name(settings.solver.kernels) + " kernels");

  LsmrOptions options;
  options.atol = settings.solver.atol;
  options.btol = settings.solver.btol;
  options.conlim = settings.solver.conlim;
  options.max_iterations = settings.solver.max_iterations;

  GatheredSweep curve = sweep(settings.lambdas, options, GatheredSweep(), out);
  Selection selection = select(curve);  // where a refinement goes
  const std::vector<double> extra = refinement_for(settings, curve, selection);
  if (!extra.empty()) {
    GatheredSweep more = sweep(extra, options, curve, out);
    curve.merge(std::move(more));
    selection = select(curve);
  }
  add_gcv(curve, selection);
  write(curve, selection, out);
}

Selection RidgeStudy::select(const GatheredSweep& curve) {
  auto scope = context_.timers.scope("ridge.select");
  return select_lambdas(context_.comm, problem_, settings_, curve);
}

void RidgeStudy::add_gcv(const GatheredSweep& curve, Selection& selection) {
  auto scope = context_.timers.scope("ridge.gcv");
  ridge::add_gcv(context_.comm, *layout_, *solver_, problem_, settings_, curve, selection);
}

void RidgeStudy::write(const GatheredSweep& curve, const Selection& selection, io::OutputFile& out) {
  const ridge::RidgeSettings& settings = settings_;
  const Problem& problem = problem_;
  MPI_Comm comm = context_.comm;
  // The slowest rank's: its bytes set the sweep's floor.
  const auto bytes_per_iteration =
      static_cast<std::int64_t>(mpi::max_over_ranks(comm, static_cast<double>(solver_->bytes_per_iteration())));

  {
    std::ostringstream line;
    line << "ridge: sweep " << curve.iteration_seconds << " s (LSMR iterations, slowest rank), "
         << "iterations total " << curve.total_iterations() << ", largest "
         << curve.largest_iterations() << ", bytes of A and A^T per iteration "
         << bytes_per_iteration << (layout_->group_size() > 1 ? " (the largest rank's share)" : "");
    log::info(comm, line.str());
    warn_unconverged(comm, settings, curve, problem.rows(), problem.columns());
    log_selection(comm, settings, selection);
  }
  const Choice& corner = selection.corner;

  auto scope = context_.timers.scope("ridge.output");
  const std::vector<LambdaOutcome>& points = curve.outcomes();
  const auto n = static_cast<std::uint64_t>(points.size());
  out.create_group("/ridge");
  out.write_array<double>("/ridge/lambda", curve.lambdas(), {n});
  out.write_array<double>("/ridge/residual_norm", curve.residual_norms(), {n});
  out.write_array<double>("/ridge/solution_norm", curve.solution_norms(), {n});
  out.write_array<std::int64_t>(
      "/ridge/iterations",
      column<std::int64_t>(points, [](const LambdaOutcome& o) { return o.iterations; }), {n});
  out.write_array<std::int32_t>(
      "/ridge/stop_reason",
      column<std::int32_t>(points, [](const LambdaOutcome& o) { return o.stop_reason; }), {n});
  out.attribute("/ridge/stop_reason", "meaning", stop_reason_legend());
  out.write_array<double>("/ridge/curvature", converged_curvatures(curve, selection), {n});
  out.create_group("/ridge/corner");
  out.attribute("/ridge/corner", "index", static_cast<std::int64_t>(corner.index));
  out.attribute("/ridge/corner", "lambda", corner.index >= 0 ? corner.lambda : std::nan(""));
  out.attribute("/ridge/corner", "curvature", corner.index >= 0 ? corner.value : 0.0);
  out.attribute("/ridge/corner", "method",
                std::string("maximum Menger curvature (4 x triangle area / product of its sides) of "
                            "(log10 residual_norm, log10 solution_norm) over the interior converged points, "
                            "λ ascending"));
  out.attribute("/ridge", "curve", std::string(selection.none.empty() ? "complete" : "partial: " + selection.none));
  out.attribute("/ridge", "precision", std::string(core::precision_name(settings.precision)));
  out.attribute("/ridge", "kernels", std::string(ridge::kernels_name(settings.solver.kernels)));
  out.attribute("/ridge", "rows", problem.rows());
  out.attribute("/ridge", "columns", problem.columns());
  out.attribute("/ridge", "nonzeros", problem.nonzeros());
  out.attribute("/ridge", "row_ranks", static_cast<std::int64_t>(layout_->group_size()));
  out.attribute("/ridge", "lambda_groups", static_cast<std::int64_t>(layout_->groups()));
  out.attribute("/ridge", "sweep_seconds", curve.iteration_seconds);
  out.attribute("/ridge", "shared_iterations", curve.largest_iterations());
  out.attribute("/ridge", "bytes_per_iteration", bytes_per_iteration);
  out.attribute("/ridge", "prior", settings.prior.given() ? settings.prior.file + ":" + settings.prior.dataset
                                                          : std::string("none"));
  out.attribute("/ridge", "weights", settings.weights.given() ? settings.weights.file + ":" + settings.weights.dataset
                                                              : std::string("none"));
  // the sweep solved for x - x0: the written solutions add the prior back
  write_selection(out, settings, curve, selection, problem.columns(), problem.x0);
  if (settings.keep_solutions)
    write_solution_rows(comm, out, "/ridge/solutions", curve, static_cast<std::uint64_t>(problem.a.columns),
                        problem.x0);
  describe_curve(out, settings.keep_solutions);
}


}  // namespace

std::unique_ptr<PreparedStudy> prepare_study(const ridge::RidgeSettings& settings, RunContext& context,
                                             const std::string& checkpoint_path) {
  return std::make_unique<RidgeStudy>(settings, context, checkpoint_path);
}

void run_study(const ridge::RidgeSettings& settings, RunContext& context, io::OutputFile& output) {
  prepare_study(settings, context, io::default_checkpoint_path(output.path()))->run(output);
}

}  // namespace trident::ridge
