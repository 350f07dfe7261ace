#include "ridge/study.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>
#include <sstream>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/signals.hpp"
#include "core/timers.hpp"
#include "io/output_file.hpp"
#include "io/paths.hpp"
#include "ridge/checkpoint.hpp"
#include "ridge/lcurve.hpp"
#include "ridge/lsmr_sweep.hpp"
#include "ridge/sweep.hpp"

namespace trident::ridge {

namespace {

// Stops before anything large is allocated when A, A^T and the vectors cannot fit the
// device: for a generated matrix before generating it, for a file once it is read.
void check_memory(MPI_Comm comm, const deck::RidgeSettings& s, std::int64_t rows,
                  std::int64_t columns, std::int64_t nonzeros, std::size_t lambdas_per_rank,
                  const DeviceBinding& binding) {
  mpi::collective(comm, [&] {
    const std::int64_t need = device_bytes_needed(rows, columns, nonzeros, s.precision, lambdas_per_rank,
                                                  s.solver.kernels);
    const std::string what = "the " + std::to_string(rows) + " x " + std::to_string(columns) +
                             " matrix with " + std::to_string(nonzeros) + " nonzeros (A and A^T in " +
                             (s.precision == deck::RidgePrecision::float64 ? "float64" : "float32") + ", plus the LSMR vectors of " +
                             std::to_string(lambdas_per_rank) + " λ per rank)";
    check_device_memory(need, device_free_bytes(), s.matrix.where, what,
                        binding.device_name.empty() ? "the device" : binding.device_name);
  });
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
  RidgeStudy(const deck::RidgeSettings& settings, RunContext& context, std::string checkpoint_path)
      : settings_(settings), context_(context), checkpoint_path_(std::move(checkpoint_path)) {
    MPI_Comm comm = context.comm;
    const int ranks = mpi::size(comm);
    // ridge.read: A and b read (or generated) and checked, the checkpoint read; ridge.setup:
    // the solver's device state (A^T, the row schedules, uploads). With ridge.sweep,
    // ridge.corner and ridge.output they account for the ridge steps of the timer table.
    std::optional<Timers::Scope> scope(std::in_place, context.timers, "ridge.read");
    const std::size_t per_rank =
        (settings.lambdas.size() + std::size_t(ranks) - 1) / std::size_t(ranks) +
        std::size_t(settings.refine_corner);
    const auto& m = settings.matrix;
    if (m.kind == deck::RidgeMatrixSettings::Kind::generate) {
      const auto nonzeros = static_cast<std::int64_t>(
          std::llround(m.density * double(m.rows) * double(m.columns)));
      check_memory(comm, settings, m.rows, m.columns, nonzeros, per_rank, context.binding);
    }
    mpi::collective(comm, [&] { problem_ = load_problem(settings); });
    check_memory(comm, settings, problem_.a.rows, problem_.a.columns, problem_.a.nonzeros(), per_rank,
                 context.binding);
    // a stop signal may come during any sweep: the checkpoint's place must be usable
    io::check_output_destination(comm, checkpoint_path_, /*overwrite=*/true);
    if (!context.restart_path.empty()) {
      restored_ = read_checkpoint(comm, context.restart_path, settings, problem_);
      log::info(comm, "ridge: restarting from " + context.restart_path + ": " +
                          std::to_string(restored_.outcomes().size()) + " λ already finished");
    }
    scope.emplace(context.timers, "ridge.setup");
    solver_ = std::make_unique<SweepSolver>(problem_, settings.precision, settings.solver.kernels);
    const std::string layout = solver_->product_layout();
    if (!layout.empty()) log::info(comm, "ridge: products: " + layout);
  }

  void run(io::OutputFile& output) override;

 private:
  // Sweeps the λ of `lambdas` that `restored_` does not hold, and adds those it holds.
  // A stop signal during the sweep ends the study (stop()), `earlier` being the λ
  // finished before this sweep.
  GatheredSweep sweep(const std::vector<double>& lambdas, const LsmrOptions& options, const GatheredSweep& earlier,
                      io::OutputFile& out);
  [[noreturn]] void stop(const GatheredSweep& finished, int signal, io::OutputFile& out);
  void write(const GatheredSweep& curve, const Corner& corner, io::OutputFile& out);

  const deck::RidgeSettings& settings_;
  RunContext& context_;
  std::string checkpoint_path_;
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
    swept = sweep_over_ranks(context_.comm, *solver_, todo, options, settings_.keep_solutions,
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
  write(finished, find_corner(finished.lambdas(), finished.residual_norms(), finished.solution_norms()), out);
  throw StudyStopped(std::string("ridge: stopped by ") + signals::name(signal) + " with " +
                         std::to_string(finished.outcomes().size()) + " λ finished; checkpoint " + checkpoint_path_ +
                         " written; resume with --restart " + checkpoint_path_,
                     kExitStopped);
}

void RidgeStudy::run(io::OutputFile& out) {
  const deck::RidgeSettings& settings = settings_;
  RunContext& context = context_;
  const Problem& problem = problem_;
  MPI_Comm comm = context.comm;
  const int ranks = mpi::size(comm);
  log::info(comm, "ridge: " + std::to_string(problem.a.rows) + " x " +
                      std::to_string(problem.a.columns) + " matrix, " +
                      std::to_string(problem.a.nonzeros()) + " nonzeros, " +
                      std::to_string(settings.lambdas.size()) + " λ over " + std::to_string(ranks) +
                      " ranks, " + deck::precision_name(settings.precision) + ", " +
                      deck::kernels_name(settings.solver.kernels) + " kernels");

  LsmrOptions options;
  options.atol = settings.solver.atol;
  options.btol = settings.solver.btol;
  options.conlim = settings.solver.conlim;
  options.max_iterations = settings.solver.max_iterations;

  GatheredSweep curve = sweep(settings.lambdas, options, GatheredSweep(), out);
  const auto locate_corner = [&] {
    auto scope = context.timers.scope("ridge.corner");
    return find_corner(curve.lambdas(), curve.residual_norms(), curve.solution_norms());
  };
  Corner corner = locate_corner();
  if (settings.refine_corner > 0 && corner.index >= 0) {
    const std::vector<double> extra =
        refinement_lambdas(curve.lambdas(), corner, static_cast<long>(settings.refine_corner));
    GatheredSweep more = sweep(extra, options, curve, out);
    curve.merge(std::move(more));
    corner = locate_corner();
  }
  write(curve, corner, out);
}

void RidgeStudy::write(const GatheredSweep& curve, const Corner& corner, io::OutputFile& out) {
  const deck::RidgeSettings& settings = settings_;
  const Problem& problem = problem_;
  MPI_Comm comm = context_.comm;
  const std::int64_t bytes_per_iteration = solver_->bytes_per_iteration();

  {
    std::ostringstream line;
    line << "ridge: sweep " << curve.iteration_seconds << " s (LSMR iterations, slowest rank), "
         << "iterations total " << curve.total_iterations() << ", largest "
         << curve.largest_iterations() << ", bytes of A and A^T per iteration "
         << bytes_per_iteration;
    log::info(comm, line.str());
    if (corner.index >= 0) {
      std::ostringstream c;
      c << "ridge: L-curve corner at λ = " << corner.lambda << " (index " << corner.index
        << ", curvature " << corner.curvature << ")";
      log::info(comm, c.str());
    }
  }

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
  out.write_array<double>("/ridge/curvature",
                          menger_curvatures(curve.residual_norms(), curve.solution_norms()), {n});
  out.create_group("/ridge/corner");
  out.attribute("/ridge/corner", "index", static_cast<std::int64_t>(corner.index));
  out.attribute("/ridge/corner", "lambda", corner.index >= 0 ? corner.lambda : std::nan(""));
  out.attribute("/ridge/corner", "curvature", corner.curvature);
  out.attribute("/ridge/corner", "method",
                std::string("maximum Menger curvature (4 x triangle area / product of its sides) of "
                            "(log10 residual_norm, log10 solution_norm) over interior points, λ ascending"));
  out.attribute("/ridge", "precision", std::string(deck::precision_name(settings.precision)));
  out.attribute("/ridge", "kernels", std::string(deck::kernels_name(settings.solver.kernels)));
  out.attribute("/ridge", "rows", static_cast<std::int64_t>(problem.a.rows));
  out.attribute("/ridge", "columns", static_cast<std::int64_t>(problem.a.columns));
  out.attribute("/ridge", "nonzeros", problem.a.nonzeros());
  out.attribute("/ridge", "sweep_seconds", curve.iteration_seconds);
  out.attribute("/ridge", "shared_iterations", curve.largest_iterations());
  out.attribute("/ridge", "bytes_per_iteration", bytes_per_iteration);
  if (settings.keep_solutions)
    write_solution_rows(comm, out, "/ridge/solutions", curve, static_cast<std::uint64_t>(problem.a.columns));
}


}  // namespace

std::unique_ptr<PreparedStudy> prepare_study(const deck::RidgeSettings& settings, RunContext& context,
                                             const std::string& checkpoint_path) {
  return std::make_unique<RidgeStudy>(settings, context, checkpoint_path);
}

void run_study(const deck::RidgeSettings& settings, RunContext& context, io::OutputFile& output) {
  prepare_study(settings, context, io::default_checkpoint_path(output.path()))->run(output);
}

}  // namespace trident::ridge
