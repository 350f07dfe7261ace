#pragma once
// GCV's probes on the device (gcv.hpp): kProbeWidth Golub-Kahan bidiagonalizations of A at
// once, each started from a random sign vector, all sharing each pass over A and A^T
// (probe_products.hpp). No step waits for the host: u and v are kept unnormalised (u holds
// beta u_true, v holds alpha v_true), each pass's finish forms the next one from the
// squared norms the previous finish left in device memory, and sums this one's. The host
// reads the squared alphas and betas once at the end, for the quadrature. On several row
// ranks each step's A^T u shares and this rank's ||u||^2 travel in one all-reduce of
// kProbeWidth (columns + 1) numbers. An engine runs it with its products (Products: a_times,
// at_times, a_stride, at_stride; see FusedProbeProducts and PlainProbeProducts).
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/array_sums.hpp"
#include "transport/device_comm.hpp"
#include "ridge/detail/execution.hpp"
#include "ridge/detail/probe_products.hpp"
#include "ridge/detail/sweep_engine.hpp"

namespace trident::ridge {

namespace probes {

KOKKOS_INLINE_FUNCTION std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Entry `row` (of the whole A) of probe `probe`'s sign vector for `seed`: the same on any
// rank count and back end.
KOKKOS_INLINE_FUNCTION double sign(std::uint64_t seed, std::int64_t probe, std::int64_t row) {
  const std::uint64_t h =
      splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(probe) ^ splitmix64(static_cast<std::uint64_t>(row))));
  return (h >> 63) != 0 ? -1.0 : 1.0;
}

KOKKOS_INLINE_FUNCTION double inverse_root(const double squared) {
  return squared > 0 ? 1.0 / ::sqrt(squared) : 0.0;
}

using Scalars = Kokkos::View<double*, RidgeDevice, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

// u(i, q) <- probe first + q's sign at row first_row + i (0 past `count`).
template <class S>
struct StartU {
  ProbeBlock<S> u;
  std::uint64_t seed;
  std::int64_t first_probe, first_row;
  int count;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    for (int q = 0; q < kProbeWidth; ++q)
      u(i, q) = q < count ? static_cast<S>(sign(seed, first_probe + q, first_row + i)) : S(0);
  }
};

// Array sums of kProbeWidth doubles.
using ProbeSquares = ArraySums<kProbeWidth>;

// v <- A^T u_true - beta v_true = sums / beta - (beta / alpha_prev) v, summing its squares
// (alpha^2). beta2: this step's ||u||^2; alpha2: the previous step's (0 at the start, v = 0).
template <class S>
struct NextV : ProbeSquares {
  ProbeBlock<S> v;
  Kokkos::View<const double*, RidgeDevice> sums;
  std::int64_t offset, stride;
  Scalars beta2, alpha2;
  KOKKOS_INLINE_FUNCTION void operator()(const int j, value_type s) const {
    for (int q = 0; q < kProbeWidth; ++q) {
      const double ib = inverse_root(beta2(q)), ia = inverse_root(alpha2(q));
      const double w = sums(offset + q * stride + j) * ib - beta2(q) * ib * ia * static_cast<double>(v(j, q));
      const S stored = static_cast<S>(w);
      v(j, q) = stored;
      s[q] += static_cast<double>(stored) * static_cast<double>(stored);
    }
  }
};

// u <- A v_true - alpha u_true = sums / alpha - (alpha / beta) u, summing its squares (this
// rank's share of the next beta^2).
template <class S>
struct NextU : ProbeSquares {
  ProbeBlock<S> u;
  Kokkos::View<const double*, RidgeDevice> sums;
  std::int64_t stride;
  Scalars alpha2, beta2;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, value_type s) const {
    for (int q = 0; q < kProbeWidth; ++q) {
      const double ia = inverse_root(alpha2(q)), ib = inverse_root(beta2(q));
      const double next = sums(q * stride + i) * ia - alpha2(q) * ia * ib * static_cast<double>(u(i, q));
      const S stored = static_cast<S>(next);
      u(i, q) = stored;
      s[q] += static_cast<double>(stored) * static_cast<double>(stored);
    }
  }
};

// dst(j) <- src(offset + q * stride + j) for the first `columns` entries of each probe's sums.
struct PackShares {
  Kokkos::View<double*, RidgeDevice> dst;
  Kokkos::View<const double*, RidgeDevice> src;
  std::int64_t stride;
  int columns;
  KOKKOS_INLINE_FUNCTION void operator()(const int j) const {
    for (int q = 0; q < kProbeWidth; ++q) dst(kProbeWidth + std::int64_t(q) * columns + j) = src(q * stride + j);
  }
};

}  // namespace probes

// `steps` steps of kProbeWidth bidiagonalizations of this rank's rows of A (rows_comm
// joining the ranks of the others, null when they are all here), started from probes
// first_probe .. first_probe + count - 1 of `seed` (count <= kProbeWidth), this rank's
// rows starting at row first_row of the whole A, which has total_rows rows. Collective
// over rows_comm. The squared alphas and betas (ProbeNorms), probe q at index q of
// each step; after a breakdown (a zero norm) a probe's later numbers mean nothing. Every
// kProbeCheckEvery steps `enough` (when given) is asked with the steps so far but the last
// (whose beta the next all-reduce sums): true ends the steps there, all the group's ranks
// deciding alike from the same numbers.
template <class S, class Products>
ProbeNorms run_probe_lanczos(const Products& products, transport::DeviceComm* rows_comm, const int rows,
                             const int columns, const ProbeStart& start, const std::int64_t steps,
                             const ProbeCheck& enough) {
  using namespace probes;
  ProbeNorms out;
  ProbeBlock<S> u(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::probe_u"), rows, kProbeWidth);
  ProbeBlock<S> v("trident::ridge::probe_v", columns, kProbeWidth);
  ProbeSums sums(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::probe_sums"),
                 kProbeWidth * std::max(products.a_stride(), products.at_stride()));
  // alpha2 row k, beta2 row k (beta2 row 0: ||z||^2 = total_rows, signs)
  Kokkos::View<double**, Kokkos::LayoutRight, RidgeDevice> alpha2("trident::ridge::probe_alpha2", steps + 1,
                                                                 kProbeWidth);
  Kokkos::View<double**, Kokkos::LayoutRight, RidgeDevice> beta2("trident::ridge::probe_beta2", steps + 1,
                                                                kProbeWidth);
  // with rows_comm: [this rank's ||u||^2 per probe][A_i^T u_i's columns per probe], summed
  Kokkos::View<double*, RidgeDevice> buffer("trident::ridge::probe_reduced",
                                            rows_comm != nullptr ? kProbeWidth * (std::int64_t(columns) + 1) : 0);
  const auto row_of = [](const auto& view, const std::int64_t k) {
    return Scalars(view.data() + k * kProbeWidth, kProbeWidth);
  };
  const Scalars no_alpha = row_of(alpha2, steps);  // stays 0: v = 0 at the start
  RidgeExec exec;
  Kokkos::parallel_for("trident::ridge::probe_start", Kokkos::RangePolicy<RidgeExec>(exec, 0, rows),
                       StartU<S>{u, start.seed, start.first_probe, start.first_row, start.count});
  {
    auto b0 = Kokkos::create_mirror_view(beta2);
    Kokkos::deep_copy(b0, 0.0);
    for (int q = 0; q < start.count; ++q) b0(0, q) = static_cast<double>(start.total_rows);
    Kokkos::deep_copy(beta2, b0);
  }
  std::int64_t done = 0;
  for (std::int64_t k = 0; k < steps; ++k) {
    if (enough && k > 0 && k % kProbeCheckEvery == 0) {
      exec.fence();
      const auto a_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), alpha2);
      const auto b_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), beta2);
      ProbeNorms so_far;
      so_far.steps = k - 1;
      so_far.alpha2.assign(a_host.data(), a_host.data() + (k - 1) * kProbeWidth);
      so_far.beta2.assign(b_host.data(), b_host.data() + k * kProbeWidth);
      if (enough(so_far)) break;
    }
    done = k + 1;
    products.at_times(u, sums);
    const Scalars b2 = row_of(beta2, k), a2_prev = k == 0 ? no_alpha : row_of(alpha2, k - 1);
    if (rows_comm != nullptr) {
      Kokkos::parallel_for("trident::ridge::probe_pack", Kokkos::RangePolicy<RidgeExec>(exec, 0, columns),
                           PackShares{buffer, sums, products.at_stride(), columns});
      rows_comm->all_reduce_sum(exec, buffer.data(), buffer.extent(0));
      if (k > 0) Kokkos::deep_copy(exec, b2, Scalars(buffer.data(), kProbeWidth));
      Kokkos::parallel_reduce("trident::ridge::probe_v", Kokkos::RangePolicy<RidgeExec>(exec, 0, columns),
                              NextV<S>{{}, v, buffer, kProbeWidth, columns, b2, a2_prev}, row_of(alpha2, k));
    } else {
      Kokkos::parallel_reduce("trident::ridge::probe_v", Kokkos::RangePolicy<RidgeExec>(exec, 0, columns),
                              NextV<S>{{}, v, sums, 0, products.at_stride(), b2, a2_prev}, row_of(alpha2, k));
    }
    products.a_times(v, sums);
    // with rows_comm, this rank's share goes to the next all-reduce's head
    const Scalars next = rows_comm != nullptr ? Scalars(buffer.data(), kProbeWidth) : row_of(beta2, k + 1);
    Kokkos::parallel_reduce("trident::ridge::probe_u", Kokkos::RangePolicy<RidgeExec>(exec, 0, rows),
                            NextU<S>{{}, u, sums, products.a_stride(), row_of(alpha2, k), b2}, next);
  }
  if (rows_comm != nullptr && done > 0) {
    rows_comm->all_reduce_sum(exec, buffer.data(), kProbeWidth);
    Kokkos::deep_copy(exec, row_of(beta2, done), Scalars(buffer.data(), kProbeWidth));
  }
  out.steps = done;
  exec.fence();
  auto a_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), alpha2);
  auto b_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), beta2);
  out.alpha2.assign(a_host.data(), a_host.data() + done * kProbeWidth);
  out.beta2.assign(b_host.data(), b_host.data() + (done + 1) * kProbeWidth);
  return out;
}

// The fused engine's products (its DeviceCsr A and A^T).
template <class M, class S>
struct FusedProbeProducts {
  const DeviceCsr<M>& a;
  const DeviceCsr<M>& at;
  std::int64_t a_stride() const { return a.work_items; }
  std::int64_t at_stride() const { return at.work_items; }
  void a_times(const ProbeBlock<S>& x, const ProbeSums& sums) const {
    launch_block_row_sums("trident::ridge::probe_av", a, x, sums);
  }
  void at_times(const ProbeBlock<S>& x, const ProbeSums& sums) const {
    launch_block_row_sums("trident::ridge::probe_atu", at, x, sums);
  }
};

// A plain CSR pair's (the Kokkos Kernels engine's A and A^T).
template <class M, class S>
struct PlainProbeProducts {
  Kokkos::View<const int*, RidgeDevice> a_ptr, a_col, at_ptr, at_col;
  Kokkos::View<const M*, RidgeDevice> a_val, at_val;
  int rows, columns;
  std::int64_t a_stride() const { return rows; }
  std::int64_t at_stride() const { return columns; }
  void a_times(const ProbeBlock<S>& x, const ProbeSums& sums) const {
    Kokkos::parallel_for("trident::ridge::probe_av", Kokkos::RangePolicy<RidgeExec>(0, rows),
                         PlainBlockProducts<M, S>{a_ptr, a_col, a_val, x, sums, rows});
  }
  void at_times(const ProbeBlock<S>& x, const ProbeSums& sums) const {
    Kokkos::parallel_for("trident::ridge::probe_atu", Kokkos::RangePolicy<RidgeExec>(0, columns),
                         PlainBlockProducts<M, S>{at_ptr, at_col, at_val, x, sums, columns});
  }
};

}  // namespace trident::ridge
