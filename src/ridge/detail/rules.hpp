#pragma once
// The λ rules of a finished sweep together: which λ converged, each rule's choice (the
// corner always; the discrepancy with ridge.noise_level; quasi-optimality; GCV with
// ridge.gcv_probes), the warning naming the λ that did not converge, the rules' log lines,
// and /ridge/converged, /ridge/selection and /ridge/solution in the output.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ridge/settings.hpp"
#include "ridge/detail/problem.hpp"
#include "ridge/detail/selection.hpp"
#include "ridge/detail/sweep.hpp"

namespace trident::io {
class OutputFile;
}

namespace trident::ridge {

struct Selection {
  std::vector<std::uint8_t> converged;  // per λ of the curve
  Choice corner, discrepancy, quasi_optimality, gcv;
  double discrepancy_target = 0;         // tau * noise_level * sqrt(rows); 0: no noise level
  std::pair<long, long> discrepancy_bracket{-1, -1};
  std::vector<double> steps;             // ||x_i - x_next converged||, NaN elsewhere
  std::vector<double> traces, gcv_values;  // empty without GCV: t and G (t from below)
  std::vector<double> gcv_upper;           // G with t from above (gcv.hpp's TraceEstimate)
  std::vector<std::uint8_t> gcv_settled;   // per λ: G settled (TraceEstimate::settled)
  std::string gcv_unsettled;               // the converged λ whose G did not settle, listed for the log
  std::int64_t gcv_steps = 0;            // bidiagonalization steps of each probe
  std::string none;                      // set when no rule chose (a stopped run): why

  // The choice of `rule` (one of the above).
  const Choice& of(ridge::RidgeRule rule) const;
};

// ||x_i - x_j|| for each converged λ_i and the next converged λ_j (NaN elsewhere), from the
// solution rows the ranks hold (curve.local_lambdas()). Collective.
std::vector<double> solution_steps(MPI_Comm comm, const GatheredSweep& curve, const std::vector<std::uint8_t>& converged,
                                   std::int64_t columns);

// Every rule on `curve` but GCV. Collective.
Selection select_lambdas(MPI_Comm comm, const Problem& problem, const ridge::RidgeSettings& settings,
                         const GatheredSweep& curve);
// GCV added to `selection` when ridge.gcv_probes > 0: its probes are the costly part, run
// once, on the final curve, on the device with `solver`'s matrices. Collective.
void add_gcv(MPI_Comm comm, const SweepLayout& layout, SweepSolver& solver, const Problem& problem,
             const ridge::RidgeSettings& settings, const GatheredSweep& curve, Selection& selection);

// The λ a refinement sweep adds: refine_corner around the corner, refine_discrepancy inside
// the discrepancy's bracket (ascending, without repeats or λ already on the curve).
std::vector<double> refinement_for(const ridge::RidgeSettings& settings, const GatheredSweep& curve,
                                   const Selection& selection);

// A warning naming every λ that stopped at the condition or iteration limit, with the deck
// key that would let it converge. Collective (rank 0 prints).
void warn_unconverged(MPI_Comm comm, const ridge::RidgeSettings& settings, const GatheredSweep& curve,
                      std::int64_t rows, std::int64_t columns);

// One log line per rule, the chosen one marked.
void log_selection(MPI_Comm comm, const ridge::RidgeSettings& settings, const Selection& selection);

// /ridge/converged, /ridge/selection (a group per rule) and, when the chosen rule chose,
// /ridge/solution (x at its λ plus `shift`, the prior, when given). Collective.
void write_selection(io::OutputFile& out, const ridge::RidgeSettings& settings,
                     const GatheredSweep& curve, const Selection& selection, std::int64_t columns,
                     const std::vector<double>& shift);

}  // namespace trident::ridge
