#pragma once
// The fused engine's kernels other than the products and the recurrences: the state the
// launches share on the device, the row finishes of its products (u, w and the residual,
// each giving its row's share of a squared norm), and the update of every λ's h, hbar and
// x with the next v.
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "transport/pinned_host_space.hpp"
#include "ridge/detail/execution.hpp"
#include "ridge/detail/lsmr_recurrence.hpp"

namespace trident::ridge::fused {

using StatusSpace = PinnedHostSpace;  // the device writes it, the host reads it

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
// rank: float32 shares rounded and summed again would make the sweep stop later on
// several ranks than on one (docs/history/ridge.md, "Row ranks").
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

}  // namespace trident::ridge::fused
