#pragma once
// Damped least squares min ||A x - b||^2 + λ^2 ||x||^2 for several λ at once with LSMR
// (Fong & Saunders 2011). The Golub-Kahan bidiagonalization of A does not depend on λ,
// so all λ share it: each iteration is two sparse products (A v and A^T u, the transpose
// kept explicitly so no atomics are needed) plus one fused kernel that updates every
// λ's h, hbar and x vectors. Each λ keeps its own scalar recurrences and stopping test
// and freezes when it stops; the sweep ends when the slowest λ does. Two engines run it
// (sweep_engine.hpp): trident's fused kernels (the default) and Kokkos Kernels' spmv.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/device_memory.hpp"
#include "core/precision.hpp"
#include "ridge/detail/engine_options.hpp"
#include "ridge/detail/problem.hpp"

namespace trident::transport {
class DeviceComm;
}

namespace trident::ridge {

struct LsmrOptions {
  double atol = 1e-6;
  double btol = 1e-6;
  double conlim = 1e8;
  std::int64_t max_iterations = 0;  // 0: min(rows, columns)
};

// LSMR's istop codes.
enum StopReason : int {
  kStopZeroSolution = 0,     // x = 0 is the exact solution (b = 0 or A^T b = 0)
  kStopResidualSmall = 1,    // ||A x - b|| small enough for atol, btol (compatible system)
  kStopLeastSquares = 2,     // least-squares solution good enough for atol
  kStopConditionLimit = 3,   // estimate of cond(Abar) exceeded conlim
  kStopResidualMachine = 4,  // as 1 with atol = btol = machine precision
  kStopLeastSquaresMachine = 5,  // as 2 with atol = machine precision
  kStopConditionMachine = 6,     // as 3 with conlim = 1 / machine precision
  kStopIterationLimit = 7,       // max_iterations reached
  kStopUnfinished = -1,          // the sweep was ended (IterationHook) before this λ stopped
};
// "0: x = 0 is the exact solution; 1: ...; 7: ..." for the HDF5 attribute.
std::string stop_reason_legend();

struct LambdaOutcome {
  double lambda = 0;
  std::int64_t iterations = 0;
  int stop_reason = 0;
  double residual_norm = 0;   // ||b - A x||, recomputed from x (not the damped estimate)
  double solution_norm = 0;   // ||x||
};

// Called with the shared iteration count after an iteration, or (fused engine) a block of
// them; returning false ends the sweep there (a stop signal): the λ that had stopped by
// their own test keep their outcome, the others report stop_reason kStopUnfinished.
using IterationHook = std::function<bool(std::int64_t)>;

struct SweepOutcome {
  std::vector<LambdaOutcome> lambdas;      // in the order asked
  std::vector<double> solutions;           // row-major lambdas x columns, when kept
  std::int64_t shared_iterations = 0;      // length of the shared bidiagonalization
  // Iterations whose products ran or were queued: the last one's test stops every λ (its
  // products are spent), and the fused engine's queued after it skip theirs.
  std::int64_t queued_iterations = 0;
  double iteration_seconds = 0;            // the LSMR iterations alone (device fenced)
  double residual_seconds = 0;             // recomputing ||b - A x|| and ||x||
};

// GCV's probes (gcv.hpp) run kProbeWidth Golub-Kahan bidiagonalizations of A at once on
// the device, each pass over A and A^T shared by the block (probe_lanczos.hpp): 8 probes of
// float32 vectors gather one 32-byte sector a nonzero, what one vector's gather fetches.
inline constexpr int kProbeWidth = 8;

// Where a block of probes starts: probes first_probe .. first_probe + count - 1 (count <=
// kProbeWidth) of `seed`'s sign vectors, this rank's rows starting at first_row of the
// total_rows of A.
struct ProbeStart {
  std::uint64_t seed = 1;
  std::int64_t first_probe = 0;
  int count = 0;
  std::int64_t first_row = 0, total_rows = 0;
};

// A block's squared norms: alpha2[k * kProbeWidth + q] = alpha_{k+1}^2 of probe q (steps
// of them), beta2[k * kProbeWidth + q] = beta_{k+1}^2 (steps + 1: beta_1^2 = ||z||^2). After
// a breakdown (a norm of zero, or tiny beside the others) a probe's later numbers mean
// nothing.
struct ProbeNorms {
  std::int64_t steps = 0;
  std::vector<double> alpha2, beta2;
};

// Asked every kProbeCheckEvery steps of a block of probes with its norms so far: true when
// the steps are enough (gcv.cpp: the quadratures have settled).
using ProbeCheck = std::function<bool(const ProbeNorms&)>;
inline constexpr int kProbeCheckEvery = 8;

// A and A^T and b on the device in the chosen precision, kept for several sweeps.
// Row-distributed: when `problem` is a block of rows, `rows_comm` joins the ranks that hold
// the other blocks (in order of their rows). Each rank keeps its rows of A, b and u, and the
// transpose of its rows; v, w, every λ's h, hbar, x and the recurrences are replicated. Per
// iteration, A_i v and ||u_i||^2 are local and one all-reduce sums A_i^T u_i together with
// ||u_i||^2 (columns + 1 numbers; + 2 in float32, where ||u||^2 travels as two floats, high
// and low part, to keep its double precision). Each rank then forms the same v, x and
// recurrences, so the ranks stop together. `options` override the fused engine's automatic
// choices (the study passes the TRIDENT_RIDGE_* overrides).
class SweepSolver {
 public:
  SweepSolver(const Problem& problem, core::Precision precision,
              ridge::RidgeKernels kernels = ridge::RidgeKernels::fused, transport::DeviceComm* rows_comm = nullptr,
              const EngineOptions& options = {});
  SweepSolver(const Problem& problem, bool float64,
              ridge::RidgeKernels kernels = ridge::RidgeKernels::fused)
      : SweepSolver(problem, float64 ? core::Precision::float64 : core::Precision::float32,
                    kernels) {}
  ~SweepSolver();
  std::int64_t rows() const { return rows_; }  // of the whole A
  std::int64_t columns() const { return columns_; }
  // Bytes of this rank's A and A^T one iteration reads (values, indices, row offsets): the
  // benchmark's bandwidth floor.
  std::int64_t bytes_per_iteration() const;
  // The engine's layout of the products for the run log, e.g. the fused engine's row
  // schedules of A and A^T; empty when it has none to tell.
  std::string product_layout() const;
  SweepSolver(const SweepSolver&) = delete;
  SweepSolver& operator=(const SweepSolver&) = delete;

  // `on_iteration`, when given, is called with the iteration count after each iteration
  // or block of iterations (progress lines, stop checks; see IterationHook).
  SweepOutcome solve(const std::vector<double>& lambdas, const LsmrOptions& options,
                     bool keep_solutions,
                     const IterationHook& on_iteration = {});

  // At most `steps` steps of GCV's block of probes `start` on the device with the sweep's
  // matrices (and its row ranks: collective over them), fewer when `enough` says so.
  ProbeNorms bidiagonalize_probes(const ProbeStart& start, std::int64_t steps, const ProbeCheck& enough = {});

  struct Engine;

 private:
  std::int64_t rows_, columns_;
  std::unique_ptr<Engine> engine_;
};

// Device memory a sweep needs: A and A^T in the precision (with the engine's indices), b,
// u, v, w and three vectors of columns per λ held by this rank, plus for the fused engine
// 32 lane sums per row of the row products (and the segments of rows cut for balance),
// for Kokkos Kernels the rows x λ block of products A x. `rows` and `nonzeros` are this
// rank's (its block of rows); `distributed` adds the all-reduce's buffer (about a number a column).
std::int64_t device_bytes_needed(std::int64_t rows, std::int64_t columns, std::int64_t nonzeros,
                                 core::Precision precision, std::size_t lambdas_on_rank,
                                 ridge::RidgeKernels kernels, bool distributed = false);
// Device memory GCV's probes add (probe_lanczos.hpp): u and v of a block of kProbeWidth in
// double, its products' sums (kProbeWidth for every work item, bounded as above) and, on
// several row ranks, its all-reduce's buffer. `rows`, `nonzeros`: this rank's.
std::int64_t probe_device_bytes(std::int64_t rows, std::int64_t columns, std::int64_t nonzeros, bool distributed);
// Bytes of one matrix value and one vector entry in a precision.
std::int64_t matrix_scalar_bytes(core::Precision precision);
std::int64_t vector_scalar_bytes(core::Precision precision);

}  // namespace trident::ridge
