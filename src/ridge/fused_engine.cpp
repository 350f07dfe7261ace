// The fused engine of the λ sweep. On one rank an iteration is five launches that never
// wait for the host: A v, whose second pass also stores u and sums ||u||^2 into device
// memory; A^T u, whose second pass stores w, sums ||A^T u - beta^2 v||^2, and in the warp
// that ends it tests and advances every λ's recurrences (AdvanceRecurrences; a launch of
// their own after it when A^T has many rows: AdvanceAlone); and the
// update of v and of each λ's h, hbar and x, a team per λ and chunk of columns
// (device_csr.hpp has the products). On several row ranks A^T u's sums go to an
// all-reduce, and the pass after it stores w, sums its norm and advances the recurrences:
// five launches (more when A^T's rows are cut or banded) and the all-reduce; there each
// rank updates h, hbar and x over its own share of the columns only (v over all of them),
// and its share of every ||x_λ||^2 rides the next iteration's all-reduce. The host
// queues a block of iterations (iterations_per_check: about 4 ms of them, at most
// kChecksEvery, never past the iteration limit) and then looks at a stop flag the device
// left in pinned memory, so a sweep pays one round trip per block instead of one per
// iteration; a λ that stops freezes at once (its later updates are skipped), and once
// every λ has stopped the iterations still queued skip their products and change nothing.
// Each product is two launches whatever the schedule (row_schedule.hpp): the second adds
// long rows' segments and bands' pieces.
// On CUDA the iteration's launches are recorded once as a graph and replayed
// (core::QueueRecording).
// Measured on one H200 with ncu at the GPU's own clocks, tutorial sweep (32 lanes per row):
// the two products take 47 + 8 microseconds each, the recurrences 8 and the update 7 (as
// separate launches, before the recurrences moved into the A^T u finish).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "core/pinned_host_space.hpp"
#include "core/queue_recording.hpp"
#include "ridge/device_csr.hpp"
#include "ridge/sweep_engine.hpp"

namespace trident::ridge {
namespace {

using StatusSpace = PinnedHostSpace;  // the device writes it, the host reads it

// Iterations queued between looks at the stop flag (iterations_per_check): each look idles
// the device for a round trip, so at most kChecksEvery; 32 against 8 took the tutorial's
// float32 sweep from 0.1006 to 0.0996 s on an H200. But the iterations queued after the
// last λ stopped, which skip their products, still schedule their grids: at 2^27 nonzeros
// (10^5 blocks a product) one took 0.55 ms on an H200, so 31 of them added 17 ms to a sweep
// of 128 iterations (0.305 s, against 0.288 s queueing no more than the iteration limit
// needs). A block is cut to about kCheckSeconds of the last block's iterations: then a
// look costs well under 1 % of the block and at most a block's worth is skipped.
constexpr int kChecksEvery = 32;
constexpr double kCheckSeconds = 4e-3;
// The first block, before any has been timed.
constexpr int kFirstCheck = 8;

// Whether the iterations are recorded once and replayed (CUDA graphs, core::QueueRecording),
// from TRIDENT_RIDGE_GRAPHS: auto (the default) and on record them on CUDA builds, off never.
// On several row ranks an all-reduce through NCCL or MPI stays outside the recordings
// (between the replays of the launches before it and after it): NCCL's collectives can be
// recorded, but on two H200s the tutorial's 2-rank sweep took 0.0843 s with the all-reduce
// recorded inside, against 0.0722-0.0728 s queued kernel by kernel (the same call); an MPI
// all-reduce waits on the host, which a recording cannot hold. A sum through peer memory
// (core::PeerSum) is one kernel, recorded with the rest (solve()).
bool iteration_graphs_wanted() {
  const char* text = std::getenv("TRIDENT_RIDGE_GRAPHS");
  const std::string value = text == nullptr ? "auto" : text;
  if (value != "auto" && value != "on" && value != "off")
    throw InputError("TRIDENT_RIDGE_GRAPHS: expected auto, on or off, got '" + value + "'");
#if defined(KOKKOS_ENABLE_CUDA)
  return value != "off";
#else
  return false;
#endif
}

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
// (The finishes load what they read of a row first: FinishRows issues several rows' loads
// before their stores.)
template <class S>
struct NextU {
  Vector<S> u;
  StateView state;
  struct Loaded {
    S u;
    double alpha, u_scale;  // the state's, read with the row (a store to u would make it read again)
  };
  KOKKOS_INLINE_FUNCTION Loaded load(const int row) const { return {u(row), state().alpha, state().u_scale}; }
  KOKKOS_INLINE_FUNCTION double operator()(const int row, const double product, const Loaded& in) const {
    const S ui = static_cast<S>(product - in.alpha / in.u_scale * static_cast<double>(in.u));
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
  KOKKOS_INLINE_FUNCTION S load(const int row) const { return v(row); }
  KOKKOS_INLINE_FUNCTION double operator()(const int row, const double product, const S vi) const {
    const S wi = static_cast<S>(product);
    w(row) = wi;
    const double d = static_cast<double>(wi) - beta2() * static_cast<double>(vi);
    return d * d;
  }
};

// On one rank of several, A_i^T u_i's row sums (this rank's share of w, in double) go
// straight into the all-reduce's buffer, after its head, where the finish of A_i v left
// ||u_i||^2: one all-reduce sums both. Summed in double, w is rounded to S once, as on one
// rank: float32 shares rounded and summed again made the tutorial's sweep stop 6 % later
// on 2 ranks (968 iterations against 915).
// After the all-reduce, the row finish of w (FinishRows over the reduced sums): beta^2 =
// ||u||^2 from the buffer's head (stored for the update), w = the sum rounded to S, and
// (w - beta^2 v)^2, as NextW gives them on one rank.
template <class S>
struct ReducedW {
  Kokkos::View<const double*, RidgeDevice> buffer;  // ||u||^2, then w in double
  Vector<S> w, v;
  Kokkos::View<double, RidgeDevice> beta2;
  KOKKOS_INLINE_FUNCTION S load(const int i) const { return v(i); }
  KOKKOS_INLINE_FUNCTION double operator()(const int i, const double product, const S vi) const {
    const double b2 = buffer(0);
    if (i == 0) beta2() = b2;
    const S wi = static_cast<S>(product);
    w(i) = wi;
    const double d = static_cast<double>(wi) - b2 * static_cast<double>(vi);
    return d * d;
  }
};

// Row finish of the true residual b - A x, summed squared in double.
struct ResidualSquared {
  Kokkos::View<const double*, RidgeDevice> b;
  KOKKOS_INLINE_FUNCTION double load(const int row) const { return b(row); }
  KOKKOS_INLINE_FUNCTION double operator()(const int, const double product, const double bi) const {
    const double d = bi - product;
    return d * d;
  }
};

// One warp (a thread on host back ends): for each λ, the stopping test of its last
// iteration (its ||x||^2 came from the last update), then, while it runs, its next
// coefficients from the shared alpha and beta; lane l takes λ l, l + 32, .... Leaves the
// new state, the iteration count and the stop flag (pinned host memory). It runs in the
// warp that ends the pass summing (alpha beta)^2 (FinishRows' After): on one rank the A^T u
// finish, on several the reduced w's (AdvanceAfterReduction), which saves a launch an
// iteration (on one H200, 14.7 µs for the A^T u finish with it against 7.3 + 9.2 µs for the
// finish and a launch of its own, ncu, float64 power-law rows at 2^24).
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
// the recurrences' code takes that pass to 168 registers (12 warps a multiprocessor on an
// H200), which costs more than a launch once the pass is more than one wave (at 2^27
// nonzeros, 2^18 threads: 46-47 µs for the pass with them, ncu).
struct AdvanceAlone {
  AdvanceRecurrences advance;
  KOKKOS_INLINE_FUNCTION void operator()(const int lane) const { advance(lane, advance.alpha_beta2()); }
};
// On GPUs one wave at 168 registers (132 multiprocessors x 12 warps, rounded down); on
// host back ends few, so that the tests' larger matrices take this path and small ones
// the other.
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

// The update of one λ over one chunk of columns (a team each): hbar, x and h, and the
// chunk's share of ||x||^2. The teams of λ 0 also store the next v; v is double-buffered
// (v_old is this iteration's, v_new the next's) because the other λ's teams form the same
// entries from v_old at the same time. The last of a λ's chunks to finish sums the chunks'
// shares in order, so ||x||^2 does not depend on which team finishes first.
// On several row ranks each rank takes only its chunks [first_chunk, first_chunk +
// own_chunks) for h, hbar and x (x stays zero elsewhere, so summing x over the ranks
// gathers it), and its sum is its share of ||x||^2; teams of their own form v over the
// other chunks, since every rank needs all of v for its rows' product. On one rank every
// chunk is its own and the teams are the same as without the split.
template <class S>
struct UpdateSolutions {
  using Member = Kokkos::TeamPolicy<RidgeExec>::member_type;
  static constexpr int kChunk = 256;  // columns per team

  Vector<S> v_old, v_new, w;
  Block<S> h, hbar, x;
  StateView state;
  Kokkos::View<const UpdateCoefficients*, RidgeDevice> coefficients;
  Kokkos::View<double**, RidgeDevice> chunk_norms;  // λ x chunk
  Kokkos::View<int*, RidgeDevice> chunks_done;      // per λ, back to 0 by the last chunk
  Kokkos::View<double*, RidgeDevice> normx2;
  int columns, chunks;
  int first_chunk, own_chunks;

  static int chunk_count(int columns) { return (columns + kChunk - 1) / kChunk; }
  // Teams: one per λ and own chunk, then one per other chunk (v alone).
  int league() const {
    return static_cast<int>(coefficients.extent(0)) * own_chunks + chunks - own_chunks;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const BidiagState& s = state();
    if (s.done) return;
    const int updates = static_cast<int>(coefficients.extent(0)) * own_chunks;
    const int r = team.league_rank();
    int j = -1, chunk;  // j < 0: a team that forms v alone
    if (r < updates) {
      j = r / own_chunks;
      chunk = first_chunk + r % own_chunks;
    } else {
      chunk = r - updates;
      if (chunk >= first_chunk) chunk += own_chunks;
    }
    const int first = chunk * kChunk, last = first + kChunk < columns ? first + kChunk : columns;
    auto next_v = [&](const int i) -> S {
      if (!s.form_v) return v_old(i);
      return static_cast<S>((static_cast<double>(w(i)) - s.beta2 * static_cast<double>(v_old(i))) * s.v_scale);
    };
    if (j <= 0)
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](const int i) { v_new(i) = next_v(i); });
    if (j < 0) return;
    const UpdateCoefficients c = coefficients(j);
    if (!c.active) return;
    double sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, first, last),
        [&](const int i, double& partial) {
          const S hb = h(i, j) + static_cast<S>(c.hbar_scale) * hbar(i, j);
          const S xn = x(i, j) + static_cast<S>(c.x_scale) * hb;
          hbar(i, j) = hb;
          x(i, j) = xn;
          h(i, j) = next_v(i) + static_cast<S>(c.h_scale) * h(i, j);
          partial += static_cast<double>(xn) * static_cast<double>(xn);
        },
        sum);
    int last_chunk = 0;
    Kokkos::single(
        Kokkos::PerTeam(team),
        [&](int& is_last) {
          chunk_norms(j, chunk) = sum;
          Kokkos::memory_fence();  // the share is visible before the count says so
          is_last = Kokkos::atomic_fetch_add(&chunks_done(j), 1) == own_chunks - 1;
        },
        last_chunk);
    if (!last_chunk) return;
    Kokkos::memory_fence();
    const volatile double* shares = &chunk_norms(j, 0);  // other teams' writes: not from a stale cache
    double total = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, first_chunk, first_chunk + own_chunks),
        [&](const int k, double& t) { t += shares[k]; }, total);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      normx2(j) = total;
      chunks_done(j) = 0;
    });
  }
};

// v <- w * scale: the first v, from w = A^T u.
template <class S>
struct ScaleInto {
  Vector<S> v, w;
  double scale;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    v(i) = static_cast<S>(static_cast<double>(w(i)) * scale);
  }
};

// M: the matrices' scalar; S: the vectors'.
template <class M, class S>
class FusedEngine final : public SweepSolver::Engine {
 public:
  FusedEngine(const Problem& p, core::DeviceComm* rows_comm)
      : rows_(p.a.rows),
        columns_(p.a.columns),
        rows_comm_(rows_comm),
        a_(DeviceCsr<M>::scheduled(p.a, "trident::ridge::A", row_lanes(sizeof(S)), sizeof(S))),
        at_(DeviceCsr<M>::transpose_of(p.a, "trident::ridge::At", row_lanes(sizeof(S)), sizeof(S))),
        graphs_wanted_(iteration_graphs_wanted()),
        recurrences_apart_(rows_comm == nullptr && finish_threads(at_) > kMostThreadsWithRecurrences) {
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
    products_ = RowProductScratch({&a_, &at_});
  }

  std::int64_t bytes_per_iteration() const override {
    return a_.product_bytes() + at_.product_bytes();
  }

  std::string product_layout() const override {
    return "A: " + a_.schedule.describe() + "; A^T: " + at_.schedule.describe() +
           (graphs_wanted_ ? "; iterations recorded once and replayed (CUDA graphs)" : "") +
           (recurrences_apart_ ? "; recurrences in a launch of their own" : "");
  }

  void solve(const std::vector<double>& lambdas, const StoppingRules& rules, bool keep_solutions,
             const IterationHook& on_iteration, SweepOutcome& out) override;

 private:
  // Queues w <- A^T u summed over the row ranks (in double, then rounded to S), beta^2 <-
  // ||u||^2 (this rank's share in beta2_share_) likewise, and (alpha beta)^2 <- ||w - beta^2 v||^2
  // into alpha_beta2, then `after` in the warp that ends that sum (FinishRows): the three
  // parts below, in turn.
  template <class After = NothingAfter>
  void queue_reduced_w(const Vector<S>& u, const Vector<S>& v_old, const Vector<S>& w,
                       const Kokkos::View<double, RidgeDevice>& beta2,
                       const Kokkos::View<double, RidgeDevice>& alpha_beta2, const int* done,
                       const After& after = After{}) {
    queue_w_shares(u, done);
    queue_all_reduce();
    queue_w_from_sums(v_old, w, beta2, alpha_beta2, done, after);
  }
  // A_i^T u_i's row sums into the all-reduce's buffer.
  void queue_w_shares(const Vector<S>& u, const int* done);
  // The buffer summed over the row ranks: its head and the first columns_ sums.
  void queue_all_reduce();
  std::size_t reduced_count() const { return 1 + normx2_shares_.extent(0) + static_cast<std::size_t>(columns_); }
  // w, beta^2 and (alpha beta)^2 from the summed buffer, then `after`.
  template <class After>
  void queue_w_from_sums(const Vector<S>& v_old, const Vector<S>& w, const Kokkos::View<double, RidgeDevice>& beta2,
                         const Kokkos::View<double, RidgeDevice>& alpha_beta2, const int* done, const After& after);

  int rows_, columns_;  // this rank's rows
  core::DeviceComm* rows_comm_;  // null when this rank holds every row
  DeviceCsr<M> a_, at_;
  // With rows_comm_ (lay_out_buffer, for each sweep's λ count): the all-reduce's buffer:
  // this rank's ||u_i||^2 (beta2_share_), its share of each λ's ||x||^2 (normx2_shares_,
  // from the last update), then A_i^T u_i's item sums (shares_), of which the first
  // columns_ are summed.
  void lay_out_buffer(int lambdas);
  using ShareHead = Kokkos::View<double, RidgeDevice, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::View<double*, RidgeDevice> buffer_, normx2_shares_, shares_;
  ShareHead beta2_share_;
  Vector<S> b_;
  Kokkos::View<double*, RidgeDevice> b64_;
  RowProductScratch products_;
  bool graphs_wanted_;
  bool recurrences_apart_;  // one rank: the recurrences after A^T u's pass, not in its last warp
};

template <class M, class S>
void FusedEngine<M, S>::lay_out_buffer(const int lambdas) {
  buffer_ = Kokkos::View<double*, RidgeDevice>("trident::ridge::reduced", 1 + lambdas + at_.work_items);
  beta2_share_ = ShareHead(buffer_.data());
  normx2_shares_ = Kokkos::subview(buffer_, Kokkos::make_pair(std::int64_t(1), std::int64_t(1) + lambdas));
  shares_ = Kokkos::subview(buffer_, Kokkos::make_pair(std::int64_t(1) + lambdas, 1 + lambdas + at_.work_items));
}

template <class M, class S>
void FusedEngine<M, S>::queue_w_shares(const Vector<S>& u, const int* done) {
  launch_row_sums("trident::ridge::next_w_share", at_, u, shares_, done);
}

template <class M, class S>
void FusedEngine<M, S>::queue_all_reduce() {
  rows_comm_->all_reduce_sum(RidgeExec(), buffer_.data(), reduced_count());
}

template <class M, class S>
template <class After>
void FusedEngine<M, S>::queue_w_from_sums(const Vector<S>& v_old, const Vector<S>& w,
                                          const Kokkos::View<double, RidgeDevice>& beta2,
                                          const Kokkos::View<double, RidgeDevice>& alpha_beta2, const int* done,
                                          const After& after) {
  launch_finish_rows("trident::ridge::next_w_reduced", shares_, columns_, 1, LongRowSums{}, {},
                     ReducedW<S>{buffer_, w, v_old, beta2}, products_, alpha_beta2, done, after);
}

template <class M, class S>
void FusedEngine<M, S>::solve(const std::vector<double>& lambdas, const StoppingRules& rules,
                            bool keep_solutions,
                            const IterationHook& on_iteration,
                            SweepOutcome& out) {
  const int count = static_cast<int>(lambdas.size());
  const int chunks = UpdateSolutions<S>::chunk_count(columns_);
  // this rank's chunks of columns for h, hbar and x: all on one rank
  int first_chunk = 0, own_chunks = chunks;
  if (rows_comm_ != nullptr) {
    lay_out_buffer(count);
    const std::int64_t rank = rows_comm_->rank(), ranks = rows_comm_->size();
    first_chunk = static_cast<int>(rank * chunks / ranks);
    own_chunks = static_cast<int>((rank + 1) * chunks / ranks) - first_chunk;
  }

  Vector<S> u(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::u"), rows_);
  const Vector<S> v[2] = {Vector<S>("trident::ridge::v0", columns_),
                          Vector<S>("trident::ridge::v1", columns_)};
  Vector<S> w("trident::ridge::w", columns_);  // A^T u before it becomes the next v
  Block<S> h("trident::ridge::h", columns_, count);
  Block<S> hbar("trident::ridge::hbar", columns_, count);
  Block<S> x("trident::ridge::x", columns_, count);
  Kokkos::View<double, RidgeDevice> beta2("trident::ridge::beta2");
  Kokkos::View<double, RidgeDevice> alpha_beta2("trident::ridge::alpha_beta2");
  // on several row ranks the all-reduce sums the ranks' shares in place
  const Kokkos::View<double*, RidgeDevice> normx2 =
      rows_comm_ == nullptr ? Kokkos::View<double*, RidgeDevice>("trident::ridge::normx2", count) : normx2_shares_;
  Kokkos::View<double**, RidgeDevice> chunk_norms("trident::ridge::chunk_norms", count, chunks);
  Kokkos::View<int*, RidgeDevice> chunks_done("trident::ridge::chunks_done", count);
  StateView state("trident::ridge::state");
  Kokkos::View<LsmrRecurrence*, RidgeDevice> recurrences(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::recurrences"), count);
  Kokkos::View<UpdateCoefficients*, RidgeDevice> coefficients("trident::ridge::coefficients", count);
  Kokkos::View<std::int64_t[2], StatusSpace> status("trident::ridge::status");
  const int* done = &state.data()->done;  // iterations queued after the last λ stopped skip the products

  // Iteration k reads v[k % 2] and forms v[(k + 1) % 2]. On several row ranks it is the
  // launches before the all-reduce, the all-reduce, and the launches after it; on one rank
  // all of its launches come "before".
  auto queue_update = [&](const std::int64_t k) {
    if (count == 0) return;
    const UpdateSolutions<S> update{v[k % 2], v[(k + 1) % 2], w,           h,     hbar,    x,
                                    state,    coefficients,   chunk_norms, chunks_done, normx2, columns_,
                                    chunks,   first_chunk,    own_chunks};
    Kokkos::parallel_for("trident::ridge::update_solutions",
                         light(Kokkos::TeamPolicy<RidgeExec>(update.league(), Kokkos::AUTO)), update);
  };
  auto queue_before_sums = [&](const AdvanceRecurrences& advance, const std::int64_t k) {
    const Vector<S>& v_old = v[k % 2];
    if (rows_comm_ != nullptr) {
      launch_row_products("trident::ridge::next_u", a_, v_old, NextU<S>{u, state}, products_, beta2_share_, done);
      queue_w_shares(u, done);
      return;
    }
    launch_row_products("trident::ridge::next_u", a_, v_old, NextU<S>{u, state}, products_, beta2, done);
    if (recurrences_apart_) {
      launch_row_products("trident::ridge::next_w", at_, u, NextW<S>{w, v_old, beta2}, products_, alpha_beta2,
                          done);
      Kokkos::parallel_for("trident::ridge::advance_recurrences",
                           light(Kokkos::RangePolicy<RidgeExec>(0, kWarpLanes)), AdvanceAlone{advance});
    } else {
      launch_row_products("trident::ridge::next_w_advance", at_, u, NextW<S>{w, v_old, beta2}, products_,
                          alpha_beta2, done, advance);
    }
    queue_update(k);
  };
  auto queue_after_sums = [&](const AdvanceRecurrences& advance, const std::int64_t k) {
    queue_w_from_sums(v[k % 2], w, beta2, alpha_beta2, done, AdvanceAfterReduction{advance, buffer_});
    queue_update(k);
  };
  auto queue_iteration = [&](const AdvanceRecurrences& advance, const std::int64_t k) {
    queue_before_sums(advance, k);
    if (rows_comm_ == nullptr) return;
    queue_all_reduce();
    queue_after_sums(advance, k);
  };

  // Every kernel runs once before the clock starts, changing nothing that the sweep reads
  // before writing it: the first launch of a kernel loads it, a one-time cost that is not
  // part of the sweep.
  {
    BidiagState idle;
    idle.done = 1;
    Kokkos::deep_copy(state, idle);
    double ignored = 0;
    Kokkos::parallel_reduce("trident::ridge::norm_b", Kokkos::RangePolicy<RidgeExec>(0, rows_),
                            SquaredNorm<Vector<S>>{u}, ignored);
    row_products("trident::ridge::next_w", at_, u, NextW<S>{w, v[0], beta2}, products_, done);
    Kokkos::parallel_for("trident::ridge::first_v", Kokkos::RangePolicy<RidgeExec>(0, columns_),
                         ScaleInto<S>{v[0], w, 0.0});
    Kokkos::parallel_for("trident::ridge::start_h", Kokkos::RangePolicy<RidgeExec>(0, columns_),
                         CopyToColumns<Vector<S>, Block<S>>{v[0], h});
    const auto none = Kokkos::subview(recurrences, Kokkos::make_pair(0, 0));
    queue_iteration(AdvanceRecurrences{state, beta2, alpha_beta2, none, coefficients, normx2, status, 1,
                                       StoppingRules{0, 0, 0, 1}},
                    0);
    Kokkos::fence();
  }

  // The start, waiting for the device: u = b (u_scale = beta), beta^2 = ||b||^2; then
  // w = A^T u with (alpha beta)^2 = ||w||^2 (v is zero), so v = w / (alpha beta).
  const auto start = std::chrono::steady_clock::now();
  Kokkos::deep_copy(u, b_);
  double beta_squared = 0;
  Kokkos::parallel_reduce("trident::ridge::norm_b", Kokkos::RangePolicy<RidgeExec>(0, rows_),
                          SquaredNorm<Vector<S>>{u}, beta_squared);
  if (rows_comm_ != nullptr) {
    std::vector<double> total{beta_squared};
    sum_over_rows(rows_comm_, total);
    beta_squared = total[0];
  }
  const double beta = std::sqrt(beta_squared);
  double alpha = 0;
  if (beta > 0) {
    Kokkos::deep_copy(beta2, beta_squared);
    Kokkos::deep_copy(state, BidiagState{});
    Kokkos::deep_copy(v[0], S(0));
    double alpha_beta_squared = 0;
    if (rows_comm_ == nullptr) {
      alpha_beta_squared = row_products("trident::ridge::next_w", at_, u, NextW<S>{w, v[0], beta2}, products_);
    } else {  // v is zero: the sum is ||w||^2
      Kokkos::deep_copy(beta2_share_, beta_squared);  // any finite number: only multiplies v = 0 here
      queue_reduced_w(u, v[0], w, beta2, alpha_beta2, nullptr);
      Kokkos::deep_copy(alpha_beta_squared, alpha_beta2);
      Kokkos::deep_copy(beta2, beta_squared);
    }
    alpha = std::sqrt(alpha_beta_squared) / beta;
  }
  std::vector<LsmrRecurrence> lam;
  for (int j = 0; j < count; ++j) lam.emplace_back(lambdas[j], alpha, beta);

  std::int64_t itn = 0, queued = 0;
  if (alpha * beta == 0) {
    for (auto& l : lam) l.stop_now(kStopZeroSolution, 0);
  } else {
    Kokkos::parallel_for("trident::ridge::first_v", Kokkos::RangePolicy<RidgeExec>(0, columns_),
                         ScaleInto<S>{v[0], w, 1.0 / (alpha * beta)});
    Kokkos::parallel_for("trident::ridge::start_h", Kokkos::RangePolicy<RidgeExec>(0, columns_),
                         CopyToColumns<Vector<S>, Block<S>>{v[0], h});
    BidiagState first;
    first.alpha = alpha;
    first.beta2 = beta_squared;
    first.u_scale = beta;
    first.v_scale = 1.0 / (alpha * beta);
    first.norms = SharedNorms(alpha);
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
    // An iteration depends on the iteration count only through v's parity: recordings
    // (CUDA graphs) for each parity replayed in turn launch every kernel of the sweep. On an
    // H200 the tutorial's float32 sweep took 0.0919 s so against 0.0942 s queued kernel by
    // kernel (1.56 and 1.60 times its bandwidth floor, the same call). On several row ranks
    // the all-reduce is recorded with the rest when it is device work alone (the sums
    // through peer memory, core::PeerSum); otherwise the launches before it and those after
    // it are recorded apart, and the all-reduce is queued between their replays: recorded
    // inside, NCCL's all-reduce made the iteration slower (iteration_graphs_wanted), and an
    // MPI one waits on the host.
    const bool whole = rows_comm_ == nullptr || rows_comm_->sum_recordable(reduced_count() * sizeof(double));
    const int parts = whole ? 1 : 2;
    core::QueueRecording recorded[2][2];
    bool replay = graphs_wanted_;
    for (int parity = 0; replay && parity < 2; ++parity)
      for (int part = 0; replay && part < parts; ++part) {
        std::string why_not;
        replay = recorded[parity][part].record(
            [&]() {
              if (whole) queue_iteration(advance, parity);
              else if (part == 0) queue_before_sums(advance, parity);
              else queue_after_sums(advance, parity);
            },
            why_not);
        if (!replay)
          std::fprintf(stderr, "trident: warning: ridge: the iterations are queued kernel by kernel: %s\n",
                       why_not.c_str());
      }
    const auto replay_iteration = [&](const std::int64_t k) {
      recorded[k % 2][0].replay();
      if (parts == 1) return;
      queue_all_reduce();
      recorded[k % 2][1].replay();
    };
    // Iteration q tests iteration q - 1 (its ||x|| comes from q - 1's update) before it
    // advances: iteration max_iterations stops every λ, and none is queued after it.
    int per_check = kFirstCheck;
    while (true) {
      const std::int64_t block = std::min<std::int64_t>(per_check, rules.max_iterations + 1 - queued);
      if (block <= 0) throw std::logic_error("ridge: the iteration limit passed without every λ stopping");
      const auto queued_at = std::chrono::steady_clock::now();
      for (std::int64_t k = 0; k < block; ++k, ++queued) {
        if (replay)
          replay_iteration(queued);
        else
          queue_iteration(advance, queued);
      }
      RidgeExec().fence();
      // The row ranks form the same state from the same sums; agreeing costs one small
      // MPI_Allreduce per block and rules out a rank leaving the all-reduces early. They
      // agree on the next block too (the shortest any rank's clock asks for), so that every
      // rank's iterations and this all-reduce stay in step.
      int agreed[2] = {static_cast<int>(status(1)),
                       iterations_per_check(std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                                          queued_at).count() / block)};
      if (rows_comm_ != nullptr)
        MPI_Allreduce(MPI_IN_PLACE, agreed, 2, MPI_INT, MPI_MIN, rows_comm_->mpi_comm());
      per_check = agreed[1];
      if (agreed[0]) break;
      if (on_iteration && !on_iteration(status(0))) break;  // stopped: unstopped λ report unfinished
    }
    itn = status(0);
    auto m = Kokkos::create_mirror_view(recurrences);
    Kokkos::deep_copy(m, recurrences);
    for (int j = 0; j < count; ++j) lam[j] = m(j);
  }
  Kokkos::fence();
  const auto iterated = std::chrono::steady_clock::now();
  out.shared_iterations = itn;
  out.queued_iterations = queued;
  out.iteration_seconds = std::chrono::duration<double>(iterated - start).count();

  // Each row rank holds x over its own columns, zero elsewhere: the sum over the ranks is x.
  if (rows_comm_ != nullptr && x.span() > 0) rows_comm_->all_reduce_sum(RidgeExec(), x.data(), x.span());
  // The true residuals ||b - A x_j||, in double from the stored x.
  std::vector<double> residual_norms(lambdas.size());
  for (int j = 0; j < count; ++j) {
    const auto x_j = Kokkos::subview(x, Kokkos::ALL(), j);
    residual_norms[j] = row_products("trident::ridge::residual", a_, x_j, ResidualSquared{b64_}, products_);
  }
  sum_over_rows(rows_comm_, residual_norms);  // this rank's rows' shares
  for (double& r : residual_norms) r = std::sqrt(r);
  auto x_host = Kokkos::create_mirror_view(x);
  Kokkos::deep_copy(x_host, x);
  report_outcomes(out, lam, residual_norms, x_host, keep_solutions);
  out.residual_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - iterated).count();
}

}  // namespace

int iterations_per_check(const double seconds_per_iteration) {
  if (!(seconds_per_iteration > 0)) return kChecksEvery;  // nothing measured (or a clock too coarse)
  return static_cast<int>(std::clamp(std::ceil(kCheckSeconds / seconds_per_iteration), 1.0, double(kChecksEvery)));
}

std::unique_ptr<SweepSolver::Engine> make_fused_engine(const Problem& problem,
                                                       deck::RidgePrecision precision,
                                                       core::DeviceComm* rows_comm) {
  return make_typed_engine<FusedEngine>(problem, precision, rows_comm);
}

}  // namespace trident::ridge
