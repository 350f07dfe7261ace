#pragma once
// The two ways a SweepSolver runs its iterations (deck key ridge.solver.kernels), and what
// both share: the start vector h = v and the outcome each λ reports.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "transport/device_comm.hpp"
#include "ridge/settings.hpp"
#include "ridge/detail/engine_options.hpp"
#include "ridge/detail/lsmr_recurrence.hpp"
#include "ridge/detail/lsmr_sweep.hpp"

namespace trident::ridge {

// LSMR's stopping rules with the defaults applied for the matrix at hand.
struct StoppingRules {
  double atol, btol;
  double ctol;                  // 1 / conlim; 0: no limit on cond(A)
  std::int64_t max_iterations;  // min(rows, columns) where the options say 0
};

// Iterations the fused engine queues before it next waits for the device and looks at the
// stop flag, from the seconds an iteration of the last such block took: a block of about
// 4 ms, 1 to 32 iterations (32 when nothing was measured).
int iterations_per_check(double seconds_per_iteration);

struct SweepSolver::Engine {
  virtual ~Engine() = default;
  // Fills `out`, which SweepSolver::solve sized with one outcome per λ (at least one) and
  // the λ values.
  virtual void solve(const std::vector<double>& lambdas, const StoppingRules& rules,
                     bool keep_solutions, const IterationHook& on_iteration,
                     SweepOutcome& out) = 0;
  // GCV's block of probes (SweepSolver::bidiagonalize_probes, probe_lanczos.hpp).
  virtual ProbeNorms bidiagonalize_probes(const ProbeStart& start, std::int64_t steps, const ProbeCheck& enough) = 0;
  // Bytes of A and A^T that one iteration reads (values, indices and row offsets).
  virtual std::int64_t bytes_per_iteration() const = 0;
  // How the products spread the rows over threads, for the run log (empty: nothing to say).
  virtual std::string product_layout() const { return {}; }
};

// KokkosSparse::spmv (cuSPARSE underneath when Kokkos Kernels has it) and KokkosBlas, with
// the λ recurrences on the host: one wait for the device per iteration.
// `rows_comm`: null when `problem` is the whole A, else the ranks holding its other rows.
std::unique_ptr<SweepSolver::Engine> make_kokkos_kernels_engine(const Problem& problem,
                                                                core::Precision precision,
                                                                transport::DeviceComm* rows_comm);
// trident's own kernels (fused_engine.hpp): row products with the norms fused in and 16-bit
// indices where they fit, the λ recurrences advanced on the device, and one wait per few
// iterations.
std::unique_ptr<SweepSolver::Engine> make_fused_engine(const Problem& problem,
                                                       core::Precision precision,
                                                       transport::DeviceComm* rows_comm, const EngineOptions& options);

// E<M, S>(problem, rows_comm, extra...) (matrix scalar M, vector scalar S) for a precision:
// float32 <float, float>, mixed <float, double>, float64 <double, double>.
template <template <class, class> class E, class... Extra>
std::unique_ptr<SweepSolver::Engine> make_typed_engine(const Problem& problem,
                                                       core::Precision precision,
                                                       transport::DeviceComm* rows_comm, const Extra&... extra) {
  switch (precision) {
    case core::Precision::float64:
      return std::make_unique<E<double, double>>(problem, rows_comm, extra...);
    case core::Precision::mixed:
      return std::make_unique<E<float, double>>(problem, rows_comm, extra...);
    default:
      return std::make_unique<E<float, float>>(problem, rows_comm, extra...);
  }
}

// The all-reduce of a row-distributed iteration in the kokkos-kernels engine (the fused
// engine's buffer is double throughout): buffer[0, columns) holds this rank's A_i^T u_i and
// the tail its ||u_i||^2 (a double scalar on the device), as one number in double vectors
// and as a float pair (high, low) in float ones, so that the sum keeps about 48 bits.
// NormTail writes the tail, NormFromTail reads the sum back.
template <class S>
constexpr int kNormTail = sizeof(S) == 4 ? 2 : 1;

template <class S>
struct NormTail {
  using Device = Kokkos::Device<Kokkos::DefaultExecutionSpace, Kokkos::DefaultExecutionSpace::memory_space>;
  Kokkos::View<S*, Device> buffer;
  Kokkos::View<const double, Device> norm;
  int columns;
  const int* skip;
  KOKKOS_INLINE_FUNCTION void operator()(const int) const {
    if (skip && *skip) return;
    const double d = norm();
    const S high = static_cast<S>(d);
    buffer(columns) = high;
    if (sizeof(S) == 4) buffer(columns + 1) = static_cast<S>(d - static_cast<double>(high));
  }
};

template <class S>
KOKKOS_INLINE_FUNCTION double norm_from_tail(const S* buffer, int columns) {
  double d = static_cast<double>(buffer[columns]);
  if (sizeof(S) == 4) d += static_cast<double>(buffer[columns + 1]);
  return d;
}

// Sums a few doubles over the ranks of a row communicator, on the host (once per sweep).
inline void sum_over_rows(transport::DeviceComm* rows_comm, std::vector<double>& values) {
  if (rows_comm == nullptr || values.empty()) return;
  mpi::sum_over_ranks(rows_comm->mpi_comm(), values);
}

// ||u||^2, summed in double (beta^2 when u holds beta * u_true).
template <class V>
struct SquaredNorm {
  V u;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, double& sum) const {
    const double ui = static_cast<double>(u(i));
    sum += ui * ui;
  }
};

// h(:, j) <- v for every column j.
template <class V, class B>
struct CopyToColumns {
  V v;
  B h;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    for (int j = 0; j < static_cast<int>(h.extent(1)); ++j) h(i, j) = v(i);
  }
};

// Each λ's iterations, stop reason and norms, and (when kept) its solution row, from the
// recurrences, the recomputed ||b - A x_j|| and x on the host (columns x λ).
template <class XHost>
void report_outcomes(SweepOutcome& out, const std::vector<LsmrRecurrence>& recurrences,
                     const std::vector<double>& residual_norms, const XHost& x, bool keep_solutions) {
  const std::size_t count = recurrences.size();
  const std::size_t columns = x.extent(0);
  if (keep_solutions) out.solutions.resize(count * columns);
  for (std::size_t j = 0; j < count; ++j) {
    double xx = 0;
    for (std::size_t i = 0; i < columns; ++i) {
      const double xi = static_cast<double>(x(i, j));
      xx += xi * xi;
      if (keep_solutions) out.solutions[j * columns + i] = xi;
    }
    LambdaOutcome& o = out.lambdas[j];
    o.iterations = recurrences[j].iterations();
    o.stop_reason = recurrences[j].stop_reason();
    o.residual_norm = residual_norms[j];
    o.solution_norm = std::sqrt(xx);
  }
}

}  // namespace trident::ridge
