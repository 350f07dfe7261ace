// SweepSolver: the engine chosen for the deck's kernels, the stopping rules with their
// defaults, and the device memory a sweep needs.
#include "ridge/detail/lsmr_sweep.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "transport/device_comm.hpp"
#include "core/error.hpp"
#include "ridge/detail/sweep_engine.hpp"

namespace trident::ridge {

std::string stop_reason_legend() {
  return "0: x = 0 is the exact solution (b = 0 or A^T b = 0); "
         "1: ||A x - b|| is small enough for atol and btol; "
         "2: the least-squares solution is good enough for atol; "
         "3: the estimate of cond(A) exceeded conlim; "
         "4: ||A x - b|| is small enough for this machine; "
         "5: the least-squares solution is good enough for this machine; "
         "6: cond(A) seems too large for this machine; "
         "7: max_iterations reached";
}

namespace {
// The row communicator when it joins several ranks; a problem split over ranks needs one.
transport::DeviceComm* reducing(const Problem& problem, transport::DeviceComm* rows_comm) {
  if (rows_comm != nullptr && rows_comm->size() > 1) return rows_comm;
  if (!problem.whole())
    throw std::logic_error("SweepSolver: a block of rows of A needs the communicator of the other blocks");
  return nullptr;
}
}  // namespace

SweepSolver::SweepSolver(const Problem& problem, core::Precision precision,
                         ridge::RidgeKernels kernels, transport::DeviceComm* rows_comm, const EngineOptions& options)
    : rows_(problem.rows()),
      columns_(problem.a.columns),
      engine_(kernels == ridge::RidgeKernels::kokkos_kernels
                  ? make_kokkos_kernels_engine(problem, precision, reducing(problem, rows_comm))
                  : make_fused_engine(problem, precision, reducing(problem, rows_comm), options)) {}

SweepSolver::~SweepSolver() = default;

std::int64_t SweepSolver::bytes_per_iteration() const { return engine_->bytes_per_iteration(); }

std::string SweepSolver::product_layout() const { return engine_->product_layout(); }

ProbeNorms SweepSolver::bidiagonalize_probes(const ProbeStart& start, const std::int64_t steps,
                                             const ProbeCheck& enough) {
  return engine_->bidiagonalize_probes(start, steps, enough);
}

SweepOutcome SweepSolver::solve(const std::vector<double>& lambdas, const LsmrOptions& options,
                                bool keep_solutions,
                                const IterationHook& on_iteration) {
  SweepOutcome out;
  out.lambdas.resize(lambdas.size());
  for (std::size_t j = 0; j < lambdas.size(); ++j) out.lambdas[j].lambda = lambdas[j];
  if (lambdas.empty()) return out;
  const StoppingRules rules{options.atol, options.btol,
                            options.conlim > 0 ? 1.0 / options.conlim : 0.0,
                            options.max_iterations > 0 ? options.max_iterations
                                                       : std::min(rows_, columns_)};
  engine_->solve(lambdas, rules, keep_solutions, on_iteration, out);
  return out;
}

std::int64_t matrix_scalar_bytes(core::Precision precision) {
  return precision == core::Precision::float64 ? 8 : 4;
}

std::int64_t vector_scalar_bytes(core::Precision precision) {
  return precision == core::Precision::float32 ? 4 : 8;
}

std::int64_t probe_device_bytes(const std::int64_t rows, const std::int64_t columns, const std::int64_t nonzeros,
                                const bool distributed) {
  const std::int64_t items = std::max(rows, columns) + nonzeros / 16;
  return kProbeWidth * 8 * (rows + columns + items + (distributed ? columns + 1 : 0));
}

std::int64_t device_bytes_needed(std::int64_t rows, std::int64_t columns, std::int64_t nonzeros,
                                 core::Precision precision, std::size_t lambdas_on_rank,
                                 ridge::RidgeKernels kernels, bool distributed) {
  const std::int64_t m = matrix_scalar_bytes(precision), s = vector_scalar_bytes(precision);
  if (distributed) {
    // The all-reduce's buffer, in double: Kokkos Kernels columns + 2 numbers; the fused
    // engine a head and a sum for every work item of A^T (its rows, the columns, and at
    // most a further segment per 16 nonzeros).
    const std::int64_t buffer =
        kernels == ridge::RidgeKernels::kokkos_kernels ? columns + 2 : 1 + columns + nonzeros / 16;
    return device_bytes_needed(rows, columns, nonzeros, precision, lambdas_on_rank, kernels, false) + buffer * 8;
  }
  const std::int64_t offsets = (rows + 1 + columns + 1) * 4;
  const auto lambdas = static_cast<std::int64_t>(lambdas_on_rank);
  if (kernels == ridge::RidgeKernels::kokkos_kernels) {
    const std::int64_t vectors = 2 * rows * s + 2 * columns * s;  // b, u, v, w
    const std::int64_t per_lambda = 3 * columns * s + rows * s;    // h, hbar, x; A x
    return 2 * nonzeros * (m + 4) + offsets + vectors + per_lambda * lambdas;
  }
  // A's indices name columns, A^T's name rows: 2 bytes each where 16 bits suffice.
  const std::int64_t a_index = columns <= 65536 ? 2 : 4, at_index = rows <= 65536 ? 2 : 4;
  const std::int64_t matrices = nonzeros * (2 * m + a_index + at_index) + offsets;
  const std::int64_t vectors = rows * (2 * s + 8) + 3 * columns * s;  // b (also in double), u; two v, w
  // Per work item (a row of the longer side, or a further segment of a long row) a sum in
  // double and, when split, its start and end. Rows cut into segments (row_schedule.hpp)
  // add at most one segment per 16 lanes' packs of a row, so at most nonzeros / 16; the
  // long rows' lists take at most the row offsets again.
  // Column bands (at most one per 16 entries of the mean row) pad each row's pieces to
  // whole packs too: at most pack - 1 entries a work item, in both matrices.
  const std::int64_t items = (rows > columns ? rows : columns) + nonzeros / 16;
  const std::int64_t item_sums = items * 8;
  const std::int64_t split = items * 2 * 4 + offsets;
  const std::int64_t band_padding = items * (16 / m - 1) * (m + 4);
  // The finishing passes' ordered sum: a partial per warp (of a thread per 4 rows, or a
  // warp per long row: at most one per further segment), a partial and a count per 64
  // warps; and a bit per row of each matrix marking its long rows.
  const std::int64_t warps = (rows > columns ? rows : columns) / 128 + nonzeros / 16 + 1;
  const std::int64_t finish_sums = warps * 8 + (warps / 64 + 1) * 12 + (rows + columns) / 8 + 8;
  const std::int64_t chunk_norms = (columns + 255) / 256 * 8;  // per λ, one per update team of 256 columns
  return matrices + band_padding + vectors + item_sums + split + finish_sums +
         (3 * columns * s + chunk_norms) * lambdas;  // h, hbar, x
}


}  // namespace trident::ridge