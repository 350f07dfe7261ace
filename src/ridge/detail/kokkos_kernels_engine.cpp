// The Kokkos Kernels engine of the λ sweep: KokkosSparse::spmv with A and A^T (cuSPARSE
// underneath when Kokkos Kernels was built with it), KokkosBlas, and the λ recurrences on
// the host, which waits for the device once per iteration.
#include "core/array_sums.hpp"
#include "transport/pinned_host_space.hpp"
#include "ridge/detail/probe_lanczos.hpp"
#include "ridge/detail/sweep_engine.hpp"

#include <Kokkos_Core.hpp>
#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_nrm2.hpp>
#include <KokkosBlas1_scal.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <type_traits>

// Kokkos Kernels 4.2 added SPMVHandle, which keeps cuSPARSE's descriptors and work buffer
// between products; without it every product would set them up (and allocate) anew.
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40200
#define TRIDENT_RIDGE_SPMV_HANDLE 1
#else
#define TRIDENT_RIDGE_SPMV_HANDLE 0
#endif

namespace trident::ridge {

namespace {

using ExecSpace = Kokkos::DefaultExecutionSpace;
using Device = Kokkos::Device<ExecSpace, ExecSpace::memory_space>;

// Where the kernels leave what the host reads each iteration (each λ's ||x||^2, beta^2 and
// (alpha beta)^2): page-locked host memory on CUDA, which the kernels write directly, so
// reading it needs no copy once the iteration's one wait is over; plain host memory elsewhere.
using ResultSpace = PinnedHostSpace;

// How many λ one launch of the fused update handles; more λ on a rank take more launches.
constexpr int kBatch = 16;

// The per-λ scalars of one iteration, passed by value into the fused kernel.
struct BatchCoefficients {
  int count = 0;
  int column[kBatch] = {};         // the λ's column in the h, hbar, x blocks
  double hbar_scale[kBatch] = {};  // hbar <- h + hbar_scale * hbar
  double x_scale[kBatch] = {};     // x <- x + x_scale * hbar
  double h_scale[kBatch] = {};     // h <- v + h_scale * h
};

// ||w - beta^2 v||^2 with w = A^T (beta u_true): that vector is beta * alpha' * v', so its norm
// gives the next alpha. Thread 0 also copies beta^2 out, so one wait brings both to the host.
template <class S>
struct NextAlphaNorm {
  using value_type = double;
  Kokkos::View<S*, Device> w, v;
  Kokkos::View<double, Device> beta2;
  Kokkos::View<double, ResultSpace> beta2_out;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, double& sum) const {
    const double b2 = beta2();
    if (i == 0) beta2_out() = b2;
    const double d = static_cast<double>(w(i)) - b2 * static_cast<double>(v(i));
    sum += d * d;
  }
};

// beta^2 <- the summed ||u||^2 in the all-reduce buffer's tail.
template <class S>
struct BetaFromTail {
  Kokkos::View<S*, Device> buffer;
  Kokkos::View<double, Device> beta2;
  int columns;
  KOKKOS_INLINE_FUNCTION void operator()(const int) const { beta2() = norm_from_tail(buffer.data(), columns); }
};

// One pass over the columns: forms the next v = (w - beta^2 v) / (alpha beta) (first batch
// only) and updates hbar, x and h of every λ in the batch, summing ||x||^2 per λ (in
// double) for the stopping tests.
template <class S>
struct FusedUpdate : ArraySums<> {
  using Vector = Kokkos::View<S*, Device>;
  using Block = Kokkos::View<S**, Kokkos::LayoutLeft, Device>;

  Vector v, w;
  Block h, hbar, x;
  BatchCoefficients c;
  double beta2 = 0, v_scale = 1;
  bool form_v = false;

  KOKKOS_INLINE_FUNCTION void operator()(const int i, value_type sums) const {
    S vi = v(i);
    if (form_v) {
      vi = static_cast<S>((static_cast<double>(w(i)) - beta2 * static_cast<double>(vi)) * v_scale);
      v(i) = vi;
    }
    for (int k = 0; k < c.count; ++k) {
      const int j = c.column[k];
      const S hb = h(i, j) + static_cast<S>(c.hbar_scale[k]) * hbar(i, j);
      const S xn = x(i, j) + static_cast<S>(c.x_scale[k]) * hb;
      hbar(i, j) = hb;
      x(i, j) = xn;
      h(i, j) = vi + static_cast<S>(c.h_scale[k]) * h(i, j);
      sums[k] += static_cast<double>(xn) * static_cast<double>(xn);
    }
  }
};


// M: the matrix's scalar; S: the vectors' (and the products' sums).
template <class M, class S>
class TypedEngine final : public SweepSolver::Engine {
 public:
  using Matrix = KokkosSparse::CrsMatrix<M, int, Device, void, int>;
  using Vector = Kokkos::View<S*, Device>;
  using Block = Kokkos::View<S**, Kokkos::LayoutLeft, Device>;
#if TRIDENT_RIDGE_SPMV_HANDLE
  using Handle = KokkosSparse::SPMVHandle<Device, Matrix, Vector, Vector>;
#endif

  TypedEngine(const Problem& p, transport::DeviceComm* rows_comm)
      : rows_(p.a.rows),
        columns_(p.a.columns),
        rows_comm_(rows_comm),
        b_host_(p.b),
        bytes_per_iteration_(2 * product_bytes(p.a, sizeof(M)) +
                             std::int64_t(p.a.columns - p.a.rows) * std::int64_t(sizeof(int))) {
    a_ = to_device(p.a, "trident::ridge::A");
    at_ = to_device(transpose(p.a), "trident::ridge::At");
    b_ = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::b"), rows_);
    auto b_mirror = Kokkos::create_mirror_view(b_);
    for (int i = 0; i < rows_; ++i) b_mirror(i) = static_cast<S>(p.b[i]);
    Kokkos::deep_copy(b_, b_mirror);
  }

  void solve(const std::vector<double>& lambdas, const StoppingRules& rules, bool keep_solutions,
             const IterationHook& on_iteration, SweepOutcome& out) override;
  std::int64_t bytes_per_iteration() const override { return bytes_per_iteration_; }
  // GCV's probes: block products of a thread a row on the same CSR arrays as spmv.
  ProbeNorms bidiagonalize_probes(const ProbeStart& start, std::int64_t steps, const ProbeCheck& enough) override {
    const PlainProbeProducts<M, ProbeScalar> products{a_.graph.row_map, a_.graph.entries, at_.graph.row_map,
                                            at_.graph.entries, a_.values,       at_.values,
                                            rows_,             columns_};
    return run_probe_lanczos<ProbeScalar>(products, rows_comm_, rows_, columns_, start, steps, enough);
  }

 private:
  static Matrix to_device(const HostCsr& h, const std::string& label) {
    const auto nnz = static_cast<std::size_t>(h.nonzeros());
    Kokkos::View<int*, Device> row_ptr(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::row_ptr"),
                                       h.row_ptr.size());
    Kokkos::View<int*, Device> col_ind(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::col_ind"), nnz);
    Kokkos::View<M*, Device> values(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::values"), nnz);
    {
      auto m = Kokkos::create_mirror_view(row_ptr);
      std::copy(h.row_ptr.begin(), h.row_ptr.end(), m.data());
      Kokkos::deep_copy(row_ptr, m);
    }
    {
      auto m = Kokkos::create_mirror_view(col_ind);
      std::copy(h.col_ind.begin(), h.col_ind.end(), m.data());
      Kokkos::deep_copy(col_ind, m);
    }
    {
      auto m = Kokkos::create_mirror_view(values);
      for (std::size_t k = 0; k < nnz; ++k) m(k) = static_cast<M>(h.values[k]);
      Kokkos::deep_copy(values, m);
    }
    return Matrix(label, h.rows, h.columns, static_cast<int>(nnz), values, row_ptr, col_ind);
  }

  // y <- alpha * M x + beta * y, through the kept handle where Kokkos Kernels has one.
  void product(int which, const Matrix& m, double alpha, const Vector& x, double beta,
               const Vector& y) {
    if constexpr (!std::is_same_v<M, S>) {
      // Kokkos Kernels' device kernel keeps alpha and beta in the matrix's scalar: with a
      // float32 matrix and float64 vectors (precision: mixed) 1/beta and alpha/u_scale
      // would be rounded to float32, costing the sweep 7 digits (7.2e-8 against the dense
      // solve on an H200, the tests ask 1e-8). So the product runs with alpha = 1, beta =
      // 0, exact in any scalar, and the scaling follows in S: the operations of Kokkos
      // Kernels' Serial kernel, which keeps alpha and beta in the vectors' scalar.
      if (alpha == 1.0 && beta == 0.0) return multiply(which, m, x, y);
      if (beta == 0.0) {
        multiply(which, m, x, y);
        KokkosBlas::scal(y, static_cast<S>(alpha), y);
        return;
      }
      Vector& unscaled = which == 0 ? unscaled_a_ : unscaled_at_;
      if (unscaled.extent(0) != y.extent(0))
        unscaled = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::unscaled"), y.extent(0));
      multiply(which, m, x, unscaled);
      KokkosBlas::axpby(static_cast<S>(alpha), unscaled, static_cast<S>(beta), y);
      return;
    }
    spmv(which, m, static_cast<S>(alpha), x, static_cast<S>(beta), y);
  }

  void multiply(int which, const Matrix& m, const Vector& x, const Vector& y) { spmv(which, m, S(1), x, S(0), y); }

  void spmv(int which, const Matrix& m, S alpha, const Vector& x, S beta, const Vector& y) {
#if TRIDENT_RIDGE_SPMV_HANDLE
    Handle& handle = which == 0 ? *handle_a_ : *handle_at_;
    KokkosSparse::spmv(&handle, KokkosSparse::NoTranspose, alpha, m, x, beta, y);
#else
    (void)which;
    KokkosSparse::spmv(KokkosSparse::NoTranspose, alpha, m, x, beta, y);
#endif
  }

  int rows_, columns_;  // this rank's rows
  transport::DeviceComm* rows_comm_;  // null when this rank holds every row
  std::vector<double> b_host_;
  std::int64_t bytes_per_iteration_;
  Matrix a_, at_;
  Vector b_;
  Vector unscaled_a_, unscaled_at_;  // mixed precision: M x before its scaling (see product())
#if TRIDENT_RIDGE_SPMV_HANDLE
  std::unique_ptr<Handle> handle_a_, handle_at_;
#endif
};

template <class M, class S>
void TypedEngine<M, S>::solve(const std::vector<double>& lambdas, const StoppingRules& rules,
                            bool keep_solutions,
                            const IterationHook& on_iteration,
                            SweepOutcome& out) {
  const int count = static_cast<int>(lambdas.size());

#if TRIDENT_RIDGE_SPMV_HANDLE
  handle_a_ = std::make_unique<Handle>();
  handle_at_ = std::make_unique<Handle>();
#endif
  Vector u(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::u"), rows_);
  Vector v("trident::ridge::v", columns_);
  // A^T u before it becomes the next v; with several row ranks, the head of the all-reduce's
  // buffer, whose tail carries ||u_i||^2.
  Vector reduced;
  if (rows_comm_ != nullptr) reduced = Vector("trident::ridge::reduced", static_cast<std::size_t>(columns_) + kNormTail<S>);
  Vector w = rows_comm_ != nullptr ? Vector(reduced.data(), columns_) : Vector("trident::ridge::w", columns_);
  Kokkos::View<double, Device> beta2("trident::ridge::beta2");
  Kokkos::View<double, ResultSpace> beta2_host("trident::ridge::beta2_host");
  Kokkos::View<double, ResultSpace> next_norm2("trident::ridge::next_norm2");
  // After A^T u: the sums over the row ranks, beta^2 read back from the tail.
  auto reduce_rows = [&]() {
    if (rows_comm_ == nullptr) return;
    Kokkos::parallel_for("trident::ridge::norm_tail", Kokkos::RangePolicy<ExecSpace>(0, 1),
                         NormTail<S>{reduced, beta2, columns_, nullptr});
    rows_comm_->all_reduce_sum(ExecSpace(), reduced.data(), reduced.extent(0));
    Kokkos::parallel_for("trident::ridge::norm_from_tail", Kokkos::RangePolicy<ExecSpace>(0, 1),
                         BetaFromTail<S>{reduced, beta2, columns_});
  };
  Block h("trident::ridge::h", columns_, count);
  Block hbar("trident::ridge::hbar", columns_, count);
  Block x("trident::ridge::x", columns_, count);
  const int batches = (count + kBatch - 1) / kBatch;
  std::vector<Kokkos::View<double*, ResultSpace>> normx2;
  for (int k = 0; k < batches; ++k) normx2.emplace_back("trident::ridge::normx2", kBatch);

  // Everything the iterations launch runs once before the clock starts: cuSPARSE's
  // descriptors and work buffers (one per matrix), cuBLAS's handle, and the kernels' first
  // (lazy) loading are one-time costs, not part of the sweep.
  product(0, a_, 1.0, v, 0.0, u);
  product(1, at_, 1.0, u, 0.0, w);
  if (rows_comm_ != nullptr) rows_comm_->all_reduce_sum(ExecSpace(), reduced.data(), reduced.extent(0));
  (void)KokkosBlas::nrm2(u);
  KokkosBlas::scal(v, static_cast<S>(1), v);
  Kokkos::parallel_reduce("trident::ridge::beta2", Kokkos::RangePolicy<ExecSpace>(0, rows_),
                          SquaredNorm<Vector>{u}, beta2);
  Kokkos::parallel_reduce("trident::ridge::next_alpha", Kokkos::RangePolicy<ExecSpace>(0, columns_),
                          NextAlphaNorm<S>{w, v, beta2, beta2_host}, next_norm2);
  {
    FusedUpdate<S> idle;  // no λ: loads the kernel, changes nothing
    idle.value_count = 1;
    idle.v = v;
    idle.w = w;
    idle.h = h;
    idle.hbar = hbar;
    idle.x = x;
    Kokkos::parallel_reduce("trident::ridge::fused_update", Kokkos::RangePolicy<ExecSpace>(0, columns_),
                            idle, normx2[0]);
  }
  Kokkos::deep_copy(v, S(0));
  Kokkos::fence();
  const auto start = std::chrono::steady_clock::now();

  // u = b / beta (kept unnormalized: u holds u_scale * u_true), v = A^T u / alpha.
  Kokkos::deep_copy(u, b_);
  double beta = 0;
  if (rows_comm_ == nullptr) {
    beta = static_cast<double>(KokkosBlas::nrm2(u));
  } else {
    double share = 0;
    Kokkos::parallel_reduce("trident::ridge::beta2", Kokkos::RangePolicy<ExecSpace>(0, rows_), SquaredNorm<Vector>{u},
                            share);
    std::vector<double> total{share};
    sum_over_rows(rows_comm_, total);
    beta = std::sqrt(total[0]);
  }
  double alpha = 0;
  double u_scale = beta > 0 ? beta : 1.0;
  if (beta > 0) {
    if (rows_comm_ == nullptr) {
      product(1, at_, 1.0 / beta, u, 0.0, v);
    } else {
      product(1, at_, 1.0 / beta, u, 0.0, w);
      rows_comm_->all_reduce_sum(ExecSpace(), reduced.data(), static_cast<std::size_t>(columns_));
      Kokkos::deep_copy(v, w);
    }
    alpha = static_cast<double>(KokkosBlas::nrm2(v));
    if (alpha > 0) KokkosBlas::scal(v, static_cast<S>(1.0 / alpha), v);
  }
  Kokkos::parallel_for("trident::ridge::start_h", Kokkos::RangePolicy<ExecSpace>(0, columns_),
                       CopyToColumns<Vector, Block>{v, h});

  std::vector<LsmrRecurrence> lam;
  lam.reserve(lambdas.size());
  for (int j = 0; j < count; ++j) lam.emplace_back(lambdas[j], alpha, beta);
  const double normb = beta;
  SharedNorms shared(alpha);

  std::int64_t itn = 0;
  if (alpha * beta == 0) {
    for (auto& l : lam) l.stop_now(kStopZeroSolution, 0);
  } else {
    std::vector<int> pending;  // λ whose test at iteration itn waits for ||x||
    while (true) {
      // One wait per iteration. u <- A v - alpha u (u holds u_scale * u_true); beta^2 =
      // ||u||^2 stays on the device; w <- A^T u; then ||w - beta^2 v||^2 = (alpha beta)^2 and
      // beta^2 come to the host together, once the last fused update (whose ||x||^2 are in
      // normx2) and these have finished.
      product(0, a_, 1.0, v, -alpha / u_scale, u);
      Kokkos::parallel_reduce("trident::ridge::beta2", Kokkos::RangePolicy<ExecSpace>(0, rows_),
                              SquaredNorm<Vector>{u}, beta2);
      product(1, at_, 1.0, u, 0.0, w);
      ++out.queued_iterations;
      reduce_rows();
      Kokkos::parallel_reduce("trident::ridge::next_alpha",
                              Kokkos::RangePolicy<ExecSpace>(0, columns_),
                              NextAlphaNorm<S>{w, v, beta2, beta2_host}, next_norm2);
      ExecSpace().fence();
      if (!pending.empty()) {
        for (std::size_t p = 0; p < pending.size(); ++p) {
          const double normx = std::sqrt(normx2[p / kBatch](p % kBatch));
          lam[pending[p]].test(normx, normb, shared.normA(), rules.atol, rules.btol, rules.ctol,
                               itn, rules.max_iterations);
        }
        pending.clear();
      }
      std::vector<int> active;
      for (int j = 0; j < count; ++j)
        if (!lam[j].stopped()) active.push_back(j);
      if (active.empty()) break;
      ++itn;

      beta = std::sqrt(beta2_host());
      double v_scale = 1.0;
      const bool form_v = beta > 0;
      if (form_v) {
        alpha = std::sqrt(next_norm2()) / beta;
        v_scale = alpha > 0 ? 1.0 / (alpha * beta) : 1.0 / beta;
        u_scale = beta;
      } else {
        u_scale = 1.0;  // u is zero: v and alpha stay (as in SciPy's lsmr)
      }
      shared.update(alpha, beta);

      for (int first = 0, k = 0; first < static_cast<int>(active.size()); first += kBatch, ++k) {
        FusedUpdate<S> f;
        f.c.count = std::min<int>(kBatch, static_cast<int>(active.size()) - first);
        f.value_count = static_cast<unsigned>(f.c.count);
        for (int q = 0; q < f.c.count; ++q) {
          const int j = active[first + q];
          const LsmrStep step = lam[j].advance(alpha, beta);
          f.c.column[q] = j;
          f.c.hbar_scale[q] = step.hbar_scale;
          f.c.x_scale[q] = step.x_scale;
          f.c.h_scale[q] = step.h_scale;
          pending.push_back(j);
        }
        f.v = v;
        f.w = w;
        f.h = h;
        f.hbar = hbar;
        f.x = x;
        f.beta2 = beta2_host();  // exactly what the norm used
        f.v_scale = v_scale;
        f.form_v = form_v && first == 0;
        Kokkos::parallel_reduce("trident::ridge::fused_update",
                                Kokkos::RangePolicy<ExecSpace>(0, columns_), f, normx2[k]);
      }
      if (on_iteration && !on_iteration(itn)) break;  // stopped: unstopped λ report unfinished
    }
  }
  Kokkos::fence();
  const auto iterated = std::chrono::steady_clock::now();
  out.shared_iterations = itn;
  out.iteration_seconds = std::chrono::duration<double>(iterated - start).count();

  // The true residuals b - A x, one rank-1 product per λ (so that the rounding does not
  // depend on how many λ this rank holds).
  Block r(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::ax"), rows_, count);
  {
    Vector xj(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::xj"), columns_);
    Vector rj(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::rj"), rows_);
    for (int j = 0; j < count; ++j) {
      Kokkos::deep_copy(xj, Kokkos::subview(x, Kokkos::ALL(), j));
      product(0, a_, 1.0, xj, 0.0, rj);
      Kokkos::deep_copy(Kokkos::subview(r, Kokkos::ALL(), j), rj);
    }
  }
  auto r_host = Kokkos::create_mirror_view(r);
  auto x_host = Kokkos::create_mirror_view(x);
  Kokkos::deep_copy(r_host, r);
  Kokkos::deep_copy(x_host, x);
  std::vector<double> residual_norms(lambdas.size());
  for (int j = 0; j < count; ++j) {
    double rr = 0;
    for (int i = 0; i < rows_; ++i) {
      const double d = b_host_[i] - static_cast<double>(r_host(i, j));
      rr += d * d;
    }
    residual_norms[j] = rr;
  }
  sum_over_rows(rows_comm_, residual_norms);  // this rank's rows' shares
  for (double& r : residual_norms) r = std::sqrt(r);
  report_outcomes(out, lam, residual_norms, x_host, keep_solutions);
  out.residual_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - iterated).count();
}

}  // namespace

std::unique_ptr<SweepSolver::Engine> make_kokkos_kernels_engine(const Problem& problem,
                                                                core::Precision precision,
                                                                transport::DeviceComm* rows_comm) {
  return make_typed_engine<TypedEngine>(problem, precision, rows_comm);
}

}  // namespace trident::ridge
