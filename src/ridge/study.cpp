#include "ridge/study.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "io/output_file.hpp"
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

// /ridge/solutions (λ x columns, λ ascending): each rank writes the rows it computed, one
// row per collective round.
void write_solutions(MPI_Comm comm, io::OutputFile& out, const GatheredSweep& curve,
                     std::uint64_t columns) {
  const std::vector<double> all = curve.lambdas();
  out.create_dataset<double>("/ridge/solutions", {all.size(), columns});
  const std::vector<double>& mine = curve.local_lambdas();
  std::int64_t rounds = 0;
  {
    std::int64_t local = static_cast<std::int64_t>(mine.size());
    MPI_Allreduce(&local, &rounds, 1, MPI_INT64_T, MPI_MAX, comm);
  }
  for (std::int64_t r = 0; r < rounds; ++r) {
    std::uint64_t row = 0, count = 0;
    const double* data = nullptr;
    if (r < static_cast<std::int64_t>(mine.size())) {
      row = static_cast<std::uint64_t>(std::lower_bound(all.begin(), all.end(), mine[r]) - all.begin());
      count = 1;
      data = curve.local_solutions().data() + static_cast<std::size_t>(r) * columns;
    }
    out.write_slab<double>("/ridge/solutions", {row, 0}, {count, columns}, data);
  }
}

// The matrix read (or generated) and checked, its memory checked and the sweep's
// device state set up, before the output exists; run() sweeps and writes /ridge.
class RidgeStudy : public PreparedStudy {
 public:
  RidgeStudy(const deck::RidgeSettings& settings, RunContext& context)
      : settings_(settings), context_(context) {
    MPI_Comm comm = context.comm;
    const int ranks = mpi::size(comm);
    auto scope = context.timers.scope("ridge.setup");
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
    solver_ = std::make_unique<SweepSolver>(problem_, settings.precision, settings.solver.kernels);
  }

  void run(io::OutputFile& output) override;

 private:
  const deck::RidgeSettings& settings_;
  RunContext& context_;
  Problem problem_;
  std::unique_ptr<SweepSolver> solver_;
};

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

  const std::int64_t bytes_per_iteration = solver_->bytes_per_iteration();

  GatheredSweep curve;
  {
    auto scope = context.timers.scope("ridge.sweep");
    curve = sweep_over_ranks(comm, *solver_, settings.lambdas, options, settings.keep_solutions,
                             context.progress_seconds);
  }
  Corner corner = find_corner(curve.lambdas(), curve.residual_norms(), curve.solution_norms());
  if (settings.refine_corner > 0 && corner.index >= 0) {
    const std::vector<double> extra =
        refinement_lambdas(curve.lambdas(), corner, static_cast<long>(settings.refine_corner));
    auto scope = context.timers.scope("ridge.sweep");
    GatheredSweep more = sweep_over_ranks(comm, *solver_, extra, options, settings.keep_solutions,
                                          context.progress_seconds);
    curve.merge(std::move(more));
    corner = find_corner(curve.lambdas(), curve.residual_norms(), curve.solution_norms());
  }

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

  auto scope = context.timers.scope("ridge.output");
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
    write_solutions(comm, out, curve, static_cast<std::uint64_t>(problem.a.columns));
}


}  // namespace

std::unique_ptr<PreparedStudy> prepare_study(const deck::RidgeSettings& settings, RunContext& context) {
  return std::make_unique<RidgeStudy>(settings, context);
}

void run_study(const deck::RidgeSettings& settings, RunContext& context, io::OutputFile& output) {
  prepare_study(settings, context)->run(output);
}

}  // namespace trident::ridge
