// The fused engine of the λ sweep. An iteration is six launches that never wait for the
// host: A v, whose second pass also stores u and sums ||u||^2 into device memory; A^T u,
// whose second pass stores w and sums ||A^T u - beta^2 v||^2; one small team that
// advances every λ's recurrences on the device; and the update of v and of each λ's h,
// hbar and x (device_csr.hpp has the products). The host queues kChecksEvery iterations
// and then looks at a stop flag the device left in pinned memory, so a sweep pays one
// round trip per kChecksEvery iterations instead of one per iteration; a λ that stops
// freezes at once (its later updates are skipped), so the extra iterations queued after
// the last λ stopped change nothing.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "ridge/device_csr.hpp"
#include "ridge/sweep_engine.hpp"

namespace trident::ridge {
namespace {

#if defined(KOKKOS_ENABLE_CUDA)
using StatusSpace = Kokkos::CudaHostPinnedSpace;  // the device writes it, the host reads it
#else
using StatusSpace = Kokkos::HostSpace;
#endif

constexpr int kChecksEvery = 8;  // iterations queued between looks at the stop flag
constexpr int kBatch = 16;       // λ per update launch (the reduction holds one sum per λ)

// The bidiagonalization's scalars, kept on the device between launches. u holds
// u_scale * u_true; the update forms v' = (w - beta2 * v) * v_scale.
struct BidiagState {
  double alpha = 0, beta2 = 0, u_scale = 1, v_scale = 1;
  SharedNorms norms;
  std::int64_t itn = 0;
  int form_v = 0;
  int done = 0;  // every λ has stopped: the launches still queued change nothing
};

// One λ's coefficients for this iteration's update (LsmrStep), or inactive once stopped.
struct UpdateCoefficients {
  double hbar_scale = 0, x_scale = 0, h_scale = 0;
  int active = 0;
};

template <class S>
using Vector = Kokkos::View<S*, RidgeDevice>;
template <class S>
using Block = Kokkos::View<S**, Kokkos::LayoutLeft, RidgeDevice>;
using StateView = Kokkos::View<BidiagState, RidgeDevice>;

// Row finish of u <- A v - (alpha / u_scale) u: stores u and gives u^2, whose sum is beta'^2.
template <class S>
struct NextU {
  Vector<S> u;
  StateView state;
  KOKKOS_INLINE_FUNCTION double operator()(const int row, const double product) const {
    const BidiagState& s = state();
    if (s.done) return 0;
    const S ui = static_cast<S>(product - s.alpha / s.u_scale * static_cast<double>(u(row)));
    u(row) = ui;
    return static_cast<double>(ui) * static_cast<double>(ui);
  }
};

// Row finish of w <- A^T u: stores w and gives (w - beta^2 v)^2; with u = beta u_true that
// vector is beta alpha' v', so the sum is (alpha' beta)^2.
template <class S>
struct NextW {
  Vector<S> w, v;
  Kokkos::View<const double, RidgeDevice> beta2;
  StateView state;
  KOKKOS_INLINE_FUNCTION double operator()(const int row, const double product) const {
    if (state().done) return 0;
    const S wi = static_cast<S>(product);
    w(row) = wi;
    const double d = static_cast<double>(wi) - beta2() * static_cast<double>(v(row));
    return d * d;
  }
};

// Row finish of the true residual b - A x, summed squared in double.
struct ResidualSquared {
  Kokkos::View<const double*, RidgeDevice> b;
  KOKKOS_INLINE_FUNCTION double operator()(const int row, const double product) const {
    const double d = b(row) - product;
    return d * d;
  }
};

// One team: the stopping test of each λ's last iteration (its ||x||^2 came from the last
// update), then the shared alpha, beta and ||A|| estimate, then each running λ's next
// coefficients. Leaves the iteration count and the stop flag in pinned host memory.
struct AdvanceRecurrences {
  using Member = Kokkos::TeamPolicy<RidgeExec>::member_type;
  StateView state;
  Kokkos::View<const double, RidgeDevice> beta2, alpha_beta2;
  Kokkos::View<LsmrRecurrence*, RidgeDevice> lambdas;
  Kokkos::View<UpdateCoefficients*, RidgeDevice> coefficients;
  Kokkos::View<const double*, RidgeDevice> normx2;
  Kokkos::View<std::int64_t[2], StatusSpace> status;  // iterations, all stopped
  double normb;
  StoppingRules rules;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const BidiagState old = state();
    const int count = static_cast<int>(lambdas.extent(0));
    int running = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, count),
        [&](const int j, int& n) {
          // In registers: worked on in place, each of the recurrence's dependent steps
          // would be a round trip to device memory.
          LsmrRecurrence r = lambdas(j);
          if (!r.stopped() && r.steps() > 0) {
            r.test(::sqrt(normx2(j)), normb, old.norms.normA(), rules.atol, rules.btol,
                   rules.ctol, old.itn, rules.max_iterations);
            lambdas(j) = r;
          }
          if (!r.stopped()) ++n;
        },
        running);
    if (running == 0) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count),
                           [&](const int j) { coefficients(j).active = 0; });
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        state().form_v = 0;
        state().done = 1;
        status(0) = old.itn;
        status(1) = 1;
      });
      return;
    }
    // Every thread computes the same next state; one stores it once all have read the old.
    BidiagState next = old;
    next.itn = old.itn + 1;
    next.beta2 = beta2();
    const double beta = ::sqrt(next.beta2);
    if (beta > 0) {
      next.alpha = ::sqrt(alpha_beta2()) / beta;
      next.v_scale = next.alpha > 0 ? 1.0 / (next.alpha * beta) : 1.0 / beta;
      next.u_scale = beta;
      next.form_v = 1;
    } else {  // u is zero: v and alpha stay (as in SciPy's lsmr)
      next.u_scale = 1;
      next.form_v = 0;
    }
    next.norms.update(next.alpha, beta);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](const int j) {
      LsmrRecurrence r = lambdas(j);
      UpdateCoefficients c;
      if (!r.stopped()) {
        const LsmrStep step = r.advance(next.alpha, beta);
        lambdas(j) = r;
        c.hbar_scale = step.hbar_scale;
        c.x_scale = step.x_scale;
        c.h_scale = step.h_scale;
        c.active = 1;
      }
      coefficients(j) = c;
    });
    team.team_barrier();
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      state() = next;
      status(0) = next.itn;
      status(1) = 0;
    });
  }
};

// One pass over the columns: forms the next v (first batch only) and updates hbar, x and
// h of each running λ in the batch, summing ||x||^2 per λ in double.
template <class S>
struct UpdateSolutions {
  using value_type = double[];
  unsigned value_count;  // λ in this batch
  Vector<S> v, w;
  Block<S> h, hbar, x;
  StateView state;
  Kokkos::View<const UpdateCoefficients*, RidgeDevice> coefficients;
  int first;
  bool forms_v;

  KOKKOS_INLINE_FUNCTION void operator()(const int i, value_type sums) const {
    S vi = v(i);
    if (forms_v) {
      const BidiagState& s = state();
      if (s.form_v) {
        vi = static_cast<S>((static_cast<double>(w(i)) - s.beta2 * static_cast<double>(vi)) * s.v_scale);
        v(i) = vi;
      }
    }
    for (unsigned k = 0; k < value_count; ++k) {
      const int j = first + static_cast<int>(k);
      const UpdateCoefficients c = coefficients(j);
      if (!c.active) continue;
      const S hb = h(i, j) + static_cast<S>(c.hbar_scale) * hbar(i, j);
      const S xn = x(i, j) + static_cast<S>(c.x_scale) * hb;
      hbar(i, j) = hb;
      x(i, j) = xn;
      h(i, j) = vi + static_cast<S>(c.h_scale) * h(i, j);
      sums[k] += static_cast<double>(xn) * static_cast<double>(xn);
    }
  }
  KOKKOS_INLINE_FUNCTION void init(value_type sums) const {
    for (unsigned k = 0; k < value_count; ++k) sums[k] = 0;
  }
#if KOKKOS_VERSION >= 30700
  KOKKOS_INLINE_FUNCTION void join(value_type dst, const value_type src) const {
#else
  KOKKOS_INLINE_FUNCTION void join(volatile value_type dst, const volatile value_type src) const {
#endif
    for (unsigned k = 0; k < value_count; ++k) dst[k] += src[k];
  }
};

// M: the matrices' scalar; S: the vectors'.
template <class M, class S>
class FusedEngine final : public SweepSolver::Engine {
 public:
  explicit FusedEngine(const Problem& p)
      : rows_(p.a.rows),
        columns_(p.a.columns),
        a_(p.a, "trident::ridge::A"),
        at_(transpose(p.a), "trident::ridge::At") {
    b_ = Vector<S>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::b"), rows_);
    b64_ = Kokkos::View<double*, RidgeDevice>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::b64"), rows_);
    auto b = Kokkos::create_mirror_view(b_);
    auto b64 = Kokkos::create_mirror_view(b64_);
    for (int i = 0; i < rows_; ++i) {
      b(i) = static_cast<S>(p.b[i]);
      b64(i) = p.b[i];
    }
    Kokkos::deep_copy(b_, b);
    Kokkos::deep_copy(b64_, b64);
    lane_sums_ = Kokkos::View<double*, RidgeDevice>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::lane_sums"),
        static_cast<std::size_t>(std::max(rows_, columns_)) * static_cast<std::size_t>(row_lanes()));
  }

  std::int64_t bytes_per_iteration() const override {
    return a_.product_bytes() + at_.product_bytes();
  }

  void solve(const std::vector<double>& lambdas, const StoppingRules& rules, bool keep_solutions,
             const std::function<void(std::int64_t)>& on_iteration, SweepOutcome& out) override;

 private:
  int rows_, columns_;
  DeviceCsr<M> a_, at_;
  Vector<S> b_;
  Kokkos::View<double*, RidgeDevice> b64_;
  Kokkos::View<double*, RidgeDevice> lane_sums_;  // the row products' first pass
};

template <class M, class S>
void FusedEngine<M, S>::solve(const std::vector<double>& lambdas, const StoppingRules& rules,
                            bool keep_solutions,
                            const std::function<void(std::int64_t)>& on_iteration,
                            SweepOutcome& out) {
  const int count = static_cast<int>(lambdas.size());

  Vector<S> u(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::u"), rows_);
  Vector<S> v("trident::ridge::v", columns_);
  Vector<S> w("trident::ridge::w", columns_);  // A^T u before it becomes the next v
  Block<S> h("trident::ridge::h", columns_, count);
  Block<S> hbar("trident::ridge::hbar", columns_, count);
  Block<S> x("trident::ridge::x", columns_, count);
  Kokkos::View<double, RidgeDevice> beta2("trident::ridge::beta2");
  Kokkos::View<double, RidgeDevice> alpha_beta2("trident::ridge::alpha_beta2");
  Kokkos::View<double*, RidgeDevice> normx2("trident::ridge::normx2", count);
  StateView state("trident::ridge::state");
  Kokkos::View<LsmrRecurrence*, RidgeDevice> recurrences(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::recurrences"), count);
  Kokkos::View<UpdateCoefficients*, RidgeDevice> coefficients("trident::ridge::coefficients", count);
  Kokkos::View<std::int64_t[2], StatusSpace> status("trident::ridge::status");

  const int batches = (count + kBatch - 1) / kBatch;
  auto queue_iteration = [&](const AdvanceRecurrences& advance) {
    launch_row_products("trident::ridge::next_u", a_, v, NextU<S>{u, state}, lane_sums_, beta2);
    launch_row_products("trident::ridge::next_w", at_, u, NextW<S>{w, v, beta2, state}, lane_sums_, alpha_beta2);
    Kokkos::parallel_for("trident::ridge::advance_recurrences",
                         Kokkos::TeamPolicy<RidgeExec>(1, Kokkos::AUTO), advance);
    for (int k = 0; k < batches; ++k) {
      const int first = k * kBatch;
      UpdateSolutions<S> f{static_cast<unsigned>(std::min(kBatch, count - first)), v, w, h, hbar, x,
                           state, coefficients, first, k == 0};
      Kokkos::parallel_reduce("trident::ridge::update_solutions",
                              Kokkos::RangePolicy<RidgeExec>(0, columns_), f,
                              Kokkos::subview(normx2, Kokkos::make_pair(first, first + static_cast<int>(f.value_count))));
    }
  };

  // An update with no λ running (coefficients are all inactive until the first advance):
  // forms v when the state says so, and touches nothing else.
  Kokkos::View<double*, Kokkos::HostSpace> ignored_sum("trident::ridge::ignored_sum", 1);
  auto form_v_only = [&] {
    Kokkos::parallel_reduce("trident::ridge::update_solutions",
                            Kokkos::RangePolicy<RidgeExec>(0, columns_),
                            UpdateSolutions<S>{1, v, w, h, hbar, x, state, coefficients, 0, true},
                            ignored_sum);
  };

  // Every kernel runs once before the clock starts, changing nothing (the state says done,
  // no λ is running): the first launch of a kernel loads it, a one-time cost that is not
  // part of the sweep.
  {
    BidiagState idle;
    idle.done = 1;
    Kokkos::deep_copy(state, idle);
    double ignored = 0;
    launch_row_products("trident::ridge::next_u", a_, v, NextU<S>{u, state}, lane_sums_, ignored);
    launch_row_products("trident::ridge::next_w", at_, u, NextW<S>{w, v, beta2, state}, lane_sums_, ignored);
    Kokkos::parallel_reduce("trident::ridge::norm_b", Kokkos::RangePolicy<RidgeExec>(0, rows_),
                            SquaredNorm<Vector<S>>{v}, ignored);
    Kokkos::parallel_for("trident::ridge::advance_recurrences",
                         Kokkos::TeamPolicy<RidgeExec>(1, Kokkos::AUTO),
                         AdvanceRecurrences{state, beta2, alpha_beta2,
                                            Kokkos::subview(recurrences, Kokkos::make_pair(0, 0)),
                                            coefficients, normx2, status, 1, StoppingRules{0, 0, 0, 1}});
    form_v_only();
    Kokkos::fence();
  }

  // The start, waiting for the device: u = b (u_scale = beta), beta^2 = ||b||^2; then
  // w = A^T u with (alpha beta)^2 = ||w||^2 (v is zero), so v = w / (alpha beta).
  const auto start = std::chrono::steady_clock::now();
  Kokkos::deep_copy(u, b_);
  double beta_squared = 0;
  Kokkos::parallel_reduce("trident::ridge::norm_b", Kokkos::RangePolicy<RidgeExec>(0, rows_),
                          SquaredNorm<Vector<S>>{u}, beta_squared);
  const double beta = std::sqrt(beta_squared);
  double alpha = 0;
  if (beta > 0) {
    Kokkos::deep_copy(beta2, beta_squared);
    Kokkos::deep_copy(state, BidiagState{});
    double ab2 = 0;
    launch_row_products("trident::ridge::next_w", at_, u, NextW<S>{w, v, beta2, state}, lane_sums_, ab2);
    alpha = std::sqrt(ab2) / beta;
  }
  std::vector<LsmrRecurrence> lam;
  for (int j = 0; j < count; ++j) lam.emplace_back(lambdas[j], alpha, beta);

  std::int64_t itn = 0;
  if (alpha * beta == 0) {
    for (auto& l : lam) l.stop_now(kStopZeroSolution, 0);
  } else {
    BidiagState first;
    first.alpha = alpha;
    first.beta2 = beta_squared;
    first.u_scale = beta;
    first.v_scale = 1.0 / (alpha * beta);
    first.norms = SharedNorms(alpha);
    first.form_v = 1;
    Kokkos::deep_copy(state, first);
    form_v_only();  // v = w / (alpha beta); then h = v for every λ
    Kokkos::parallel_for("trident::ridge::start_h", Kokkos::RangePolicy<RidgeExec>(0, columns_),
                         CopyToColumns<Vector<S>, Block<S>>{v, h});
    first.form_v = 0;  // the first iteration's update forms v anew from its own state
    Kokkos::deep_copy(state, first);
    {
      auto m = Kokkos::create_mirror_view(recurrences);
      for (int j = 0; j < count; ++j) m(j) = lam[j];
      Kokkos::deep_copy(recurrences, m);
    }
    status(0) = 0;
    status(1) = 0;  // the warm-up's advance left it set
    const AdvanceRecurrences advance{state, beta2, alpha_beta2, recurrences, coefficients, normx2,
                                     status, beta, rules};
    while (true) {
      for (int k = 0; k < kChecksEvery; ++k) queue_iteration(advance);
      RidgeExec().fence();
      if (status(1)) break;
      if (on_iteration) on_iteration(status(0));
    }
    itn = status(0);
    auto m = Kokkos::create_mirror_view(recurrences);
    Kokkos::deep_copy(m, recurrences);
    for (int j = 0; j < count; ++j) lam[j] = m(j);
  }
  Kokkos::fence();
  const auto iterated = std::chrono::steady_clock::now();
  out.shared_iterations = itn;
  out.iteration_seconds = std::chrono::duration<double>(iterated - start).count();

  // The true residuals ||b - A x_j||, in double from the stored x.
  std::vector<double> residual_norms(lambdas.size());
  for (int j = 0; j < count; ++j) {
    double rr = 0;
    launch_row_products("trident::ridge::residual", a_, Kokkos::subview(x, Kokkos::ALL(), j),
                        ResidualSquared{b64_}, lane_sums_, rr);
    residual_norms[j] = std::sqrt(rr);
  }
  auto x_host = Kokkos::create_mirror_view(x);
  Kokkos::deep_copy(x_host, x);
  report_outcomes(out, lam, residual_norms, x_host, keep_solutions);
  out.residual_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - iterated).count();
}

}  // namespace

std::unique_ptr<SweepSolver::Engine> make_fused_engine(const Problem& problem,
                                                       deck::RidgePrecision precision) {
  return make_typed_engine<FusedEngine>(problem, precision);
}

}  // namespace trident::ridge
