#pragma once
// The λ recurrences of the fused engine, advanced on the device by one warp: each λ's
// stopping test and next update coefficients from the shared alpha and beta, the new
// bidiagonalization state, and the stop flag the host looks at between blocks.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>

#include "core/warp.hpp"
#include "ridge/detail/execution.hpp"
#include "ridge/detail/fused_kernels.hpp"
#include "ridge/detail/lsmr_recurrence.hpp"
#include "ridge/detail/sweep_engine.hpp"

namespace trident::ridge::fused {

// One warp (a thread on host back ends): for each λ, the stopping test of its last
// iteration (its ||x||^2 came from the last update), then, while it runs, its next
// coefficients from the shared alpha and beta; lane l takes λ l, l + 32, .... Leaves the
// new state, the iteration count and the stop flag (pinned host memory). It runs in the
// warp that ends the pass summing (alpha beta)^2 (FinishRows' After): on one rank the A^T u
// finish, on several the reduced w's (AdvanceAfterReduction), which saves a launch an
// iteration.
struct AdvanceRecurrences {
  StateView state;
  Kokkos::View<const double, RidgeDevice> beta2, alpha_beta2;
  Kokkos::View<LsmrRecurrence*, RidgeDevice> lambdas;
  Kokkos::View<UpdateCoefficients*, RidgeDevice> coefficients;
  // each λ's ||x||^2 from the last update, set to 0 once read: on several row ranks the
  // update writes this rank's share of it there, and a rank without columns of its own
  // (or a λ that stopped) must add 0, not the last all-reduce's total, to the next one
  Kokkos::View<double*, RidgeDevice> normx2;
  Kokkos::View<std::int64_t[2], StatusSpace> status;  // iterations, all stopped
  double normb;
  StoppingRules rules;

  KOKKOS_INLINE_FUNCTION void operator()(const int lane, const double alpha_beta_squared) const {
    advance(lane, beta2(), alpha_beta_squared);
  }

  KOKKOS_INLINE_FUNCTION void advance(const int lane, const double beta_squared, const double alpha_beta_squared) const {
    const BidiagState old = state();
    // Every lane computes the same next state.
    BidiagState next = old;
    next.itn = old.itn + 1;
    next.beta2 = beta_squared;
    const double beta = ::sqrt(next.beta2);
    if (beta > 0) {
      next.alpha = ::sqrt(alpha_beta_squared) / beta;
      next.v_scale = next.alpha > 0 ? 1.0 / (next.alpha * beta) : 1.0 / beta;
      next.u_scale = beta;
      next.form_v = 1;
    } else {  // u is zero: v and alpha stay (as in SciPy's lsmr)
      next.u_scale = 1;
      next.form_v = 0;
    }
    next.norms.update(next.alpha, beta);
    int running = 0;
    for (int j = lane; j < static_cast<int>(lambdas.extent(0)); j += kWarpLanes) {
      // In registers: worked on in place, each of the recurrence's dependent steps would be
      // a round trip to device memory.
      LsmrRecurrence r = lambdas(j);
      if (!r.stopped() && r.steps() > 0)
        r.test(::sqrt(normx2(j)), normb, old.norms.normA(), rules.atol, rules.btol, rules.ctol, old.itn,
               rules.max_iterations);
      normx2(j) = 0;
      UpdateCoefficients c;  // inactive once stopped
      if (!r.stopped()) {
        const LsmrStep step = r.advance(next.alpha, beta);
        c.hbar_scale = step.hbar_scale;
        c.x_scale = step.x_scale;
        c.h_scale = step.h_scale;
        c.active = 1;
        ++running;
      }
      lambdas(j) = r;
      coefficients(j) = c;
    }
    // Every λ has stopped: none advanced, and the state keeps its iteration count.
    if (warp::sum(running) == 0) {
      next = old;
      next.form_v = 0;
      next.done = 1;
    }
    if (lane == 0) {
      state() = next;
      status(0) = next.itn;
      status(1) = next.done;
    }
  }
};

// The recurrences as a launch of one warp, after the pass that summed (alpha beta)^2. On
// one rank when A^T u's finishing pass has more threads than kMostThreadsWithRecurrences:
// the recurrences' code takes that pass to many more registers a thread (fewer warps a
// multiprocessor), which costs more than a launch once the pass is more than one wave.
struct AdvanceAlone {
  AdvanceRecurrences advance;
  KOKKOS_INLINE_FUNCTION void operator()(const int lane) const { advance(lane, advance.alpha_beta2()); }
};
// On GPUs one wave at the pass's 168 registers a thread (an H200's 132 multiprocessors x
// 12 warps, rounded down); on host back ends few, so that the tests' larger matrices take
// this path and small ones the other.
inline constexpr std::int64_t kMostThreadsWithRecurrences = kLanesAreWarpThreads ? 1 << 16 : 32;

// On several row ranks, the recurrences in the warp that ends the reduced w's finish, with
// beta^2 from the all-reduce's head (the finish stores it for later launches).
struct AdvanceAfterReduction {
  AdvanceRecurrences advance;
  Kokkos::View<const double*, RidgeDevice> buffer;
  KOKKOS_INLINE_FUNCTION void operator()(const int lane, const double alpha_beta_squared) const {
    advance.advance(lane, buffer(0), alpha_beta_squared);
  }
};

}  // namespace trident::ridge::fused
