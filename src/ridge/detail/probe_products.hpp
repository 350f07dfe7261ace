#pragma once
// Block products for GCV's probes (probe_lanczos.hpp): A times kProbeWidth vectors at once,
// each nonzero of A read once for all of them. The vectors are a LayoutRight block (a row
// of kProbeWidth scalars per entry), so the gather of one nonzero's column fetches the
// probes' kProbeWidth scalars together: in float32, 8 floats, the one 32-byte sector that a
// single vector's gather fetches anyway. A product bound by A's bytes thus costs about what
// one vector's does. Two forms: on the fused engine's DeviceCsr (its packs, lanes,
// segments and bands), and on a plain CSR (the Kokkos Kernels engine's matrices).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ridge/detail/device_csr.hpp"
#include "ridge/detail/execution.hpp"
#include "ridge/detail/finish_rows.hpp"
#include "ridge/detail/lane_products.hpp"
#include "ridge/detail/lsmr_sweep.hpp"

namespace trident::ridge {

// The probes' vectors' scalar. float would halve the bytes a block's gathers fetch (8
// floats a 32-byte sector), but float vectors cannot resolve small singular values: on a
// matrix graded over 4 decades the trace at small λ moved by 15 % (test_mpi_gcv_probes).
using ProbeScalar = double;

template <class S>
using ProbeBlock = Kokkos::View<S**, Kokkos::LayoutRight, RidgeDevice>;  // entries x kProbeWidth

// The sums of a block product: probe q's sum of item (or row) r at q * stride + r.
using ProbeSums = Kokkos::View<double*, RidgeDevice>;

// What a block product of a DeviceCsr reads and writes: its work items' entries (values M,
// column indices I, in packs), the block x and the sums (probe q's of item r at q * stride +
// r).
template <class M, class I, class S>
struct BlockOperands {
  static constexpr int kPack = DeviceCsr<M>::kPack;
  using ValuePack = Pack<M, kPack>;
  using IndexPack = Pack<I, kPack>;

  Kokkos::View<const int*, RidgeDevice> work_begin, work_end;
  Kokkos::View<const I*, RidgeDevice> col;
  Kokkos::View<const M*, RidgeDevice> val;
  ProbeBlock<S> x;
  ProbeSums sums;
  std::int64_t stride;

  // Item `item`'s packs of values and of column indices (vp, cp), and how many.
  KOKKOS_INLINE_FUNCTION int packs_of(const int item, const ValuePack*& vp, const IndexPack*& cp) const {
    const int begin = work_begin(item);
    vp = reinterpret_cast<const ValuePack*>(val.data() + begin);
    cp = reinterpret_cast<const IndexPack*>(col.data() + begin);
    return (work_end(item) - begin) / kPack;
  }
};

// f(operands) for `m`'s column indices, 16 or 32 bits.
template <class M, class S, class F>
void with_block_operands(const DeviceCsr<M>& m, const ProbeBlock<S>& x, const ProbeSums& sums, F&& f) {
  if (m.narrow_indices())
    f(BlockOperands<M, std::uint16_t, S>{m.work_begin, m.work_end, m.narrow, m.values, x, sums, m.work_items});
  else
    f(BlockOperands<M, int, S>{m.work_begin, m.work_end, m.wide, m.values, x, sums, m.work_items});
}

// Each work item's kProbeWidth sums, in double, by `lanes` threads as LaneProducts (a
// lane's packs l, l + lanes, ...; on CUDA the lanes of an item, an aligned group of a warp,
// add their sums by shuffles).
template <class Operands>
struct BlockLaneProducts {
  Operands in;
  int lanes;

  KOKKOS_INLINE_FUNCTION void lane_sums(const int item, const int lane, double (&s)[kProbeWidth]) const {
    const typename Operands::ValuePack* vp;
    const typename Operands::IndexPack* cp;
    const int packs = in.packs_of(item, vp, cp);
    for (int p = lane; p < packs; p += lanes) {
      const auto v = stream_load(vp + p);
      const auto c = stream_load(cp + p);
      for (int k = 0; k < Operands::kPack; ++k) {
        const double a = static_cast<double>(v.v[k]);
        const auto* xr = &in.x(static_cast<int>(c.v[k]), 0);
        for (int q = 0; q < kProbeWidth; ++q) s[q] += a * static_cast<double>(xr[q]);
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t t) const {
    double s[kProbeWidth];
    for (int q = 0; q < kProbeWidth; ++q) s[q] = 0;
#if defined(__CUDA_ARCH__)
    const int shift = __ffs(lanes) - 1;
    const int item = static_cast<int>(t >> shift), lane = static_cast<int>(t) & (lanes - 1);
    lane_sums(item, lane, s);
    unsigned lane_id;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane_id));
    const unsigned group = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1u) << (lane_id & ~unsigned(lanes - 1));
    for (int offset = lanes / 2; offset > 0; offset /= 2)
      for (int q = 0; q < kProbeWidth; ++q) s[q] += __shfl_xor_sync(group, s[q], offset, lanes);
    if (lane != 0) return;
#else
    const int item = static_cast<int>(t);
    for (int l = 0; l < lanes; ++l) lane_sums(item, l, s);
#endif
    for (int q = 0; q < kProbeWidth; ++q) in.sums(q * in.stride + item) = s[q];
  }
};

#if defined(KOKKOS_ENABLE_CUDA)
// BlockLaneProducts' form for CUDA: the probes spread over the threads as well as the packs.
// A group of 4 * pack_lanes threads takes a work item; thread (l, g) reads packs l, l +
// pack_lanes, ... (the group's 4 threads of one l load the same pack: one transaction) and
// gathers probes 2g and 2g + 1 of each entry's column with one 16-byte load. So a warp's
// gather instruction touches 8 rows of x (64 bytes each) rather than 32, a fourth of the L1
// lookups per entry of each thread gathering all 8 probes, and a thread holds 2 sums, not 8.
// (x in double.)
template <class Operands>
struct SpreadBlockProducts {
  static constexpr int kPairs = kProbeWidth / 2;  // threads of one pack
  static_assert(kProbeWidth % 2 == 0);

  Operands in;
  int pack_lanes;  // 1 .. 32 / kPairs, a power of 2

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t t) const {
#if defined(__CUDA_ARCH__)
    const int group = kPairs * pack_lanes;
    const int shift = __ffs(group) - 1;
    const int item = static_cast<int>(t >> shift), in_group = static_cast<int>(t) & (group - 1);
    const int pair = in_group % kPairs, lane = in_group / kPairs;
    const typename Operands::ValuePack* vp;
    const typename Operands::IndexPack* cp;
    const int packs = in.packs_of(item, vp, cp);
    const double2* const rows = reinterpret_cast<const double2*>(in.x.data()) + pair;
    double s0 = 0, s1 = 0;
    for (int p = lane; p < packs; p += pack_lanes) {
      const auto v = stream_load(vp + p);
      const auto c = stream_load(cp + p);
      for (int k = 0; k < Operands::kPack; ++k) {
        const double a = static_cast<double>(v.v[k]);
        const double2 xr = rows[static_cast<std::int64_t>(c.v[k]) * kPairs];
        s0 += a * xr.x;
        s1 += a * xr.y;
      }
    }
    unsigned lane_id;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane_id));
    const unsigned mask = group == 32 ? 0xffffffffu : ((1u << group) - 1u) << (lane_id & ~unsigned(group - 1));
    for (int offset = group / 2; offset >= kPairs; offset /= 2) {
      s0 += __shfl_xor_sync(mask, s0, offset, group);
      s1 += __shfl_xor_sync(mask, s1, offset, group);
    }
    if (lane != 0) return;
    in.sums(std::int64_t(2 * pair) * in.stride + item) = s0;
    in.sums(std::int64_t(2 * pair + 1) * in.stride + item) = s1;
#else
    (void)t;
#endif
  }
};
#endif

// Each work item's sums of the block product: on CUDA SpreadBlockProducts, elsewhere
// BlockLaneProducts.
template <class M, class S>
void launch_block_items(const char* label, const DeviceCsr<M>& m, const ProbeBlock<S>& x, const ProbeSums& sums) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (kLanesAreWarpThreads && std::is_same_v<S, double>) {
    // as many packs at once as a single vector's lanes read, as far as a warp goes
    constexpr int kPairs = kProbeWidth / 2;
    const int pack_lanes = std::min(32 / kPairs, m.lanes);
    const auto threads = light(Kokkos::RangePolicy<RidgeExec, Kokkos::IndexType<std::int64_t>>(
        0, m.work_items * kPairs * pack_lanes));
    with_block_operands(m, x, sums, [&](const auto& in) {
      Kokkos::parallel_for(label, threads, SpreadBlockProducts<std::decay_t<decltype(in)>>{in, pack_lanes});
    });
    return;
  }
#endif
  const std::int64_t threads_per_item = kLanesAreWarpThreads ? m.lanes : 1;
  const auto threads =
      light(Kokkos::RangePolicy<RidgeExec, Kokkos::IndexType<std::int64_t>>(0, m.work_items * threads_per_item));
  with_block_operands(m, x, sums, [&](const auto& in) {
    Kokkos::parallel_for(label, threads, BlockLaneProducts<std::decay_t<decltype(in)>>{in, m.lanes});
  });
}

// sums(q * m.work_items + row) <- (M x(:, q))(row) for every row of `m` and probe q: the
// items' sums, then per probe the long rows' segments and the bands' pieces added
// (LongRowSums, BandSums), as launch_row_sums does for one vector.
template <class M, class S>
void launch_block_row_sums(const char* label, const DeviceCsr<M>& m, const ProbeBlock<S>& x, const ProbeSums& sums) {
  launch_block_items(label, m, x, sums);
  for (int q = 0; q < kProbeWidth && (m.split() || m.bands > 1); ++q) {
    const Kokkos::View<double*, RidgeDevice> probe(sums.data() + q * m.work_items, m.work_items);
    if (m.split()) {
      const LongRowSums long_sums{m.long_rows, m.further_first, probe, m.rows, nullptr};
      Kokkos::parallel_for(label, light(Kokkos::RangePolicy<RidgeExec>(0, long_sums.threads())), long_sums);
    }
    if (m.bands > 1)
      Kokkos::parallel_for(label, light(Kokkos::RangePolicy<RidgeExec>(0, m.rows)),
                           BandSums{probe, m.rows, m.bands, nullptr});
  }
}

// The same on a plain CSR (row offsets, columns, values): a thread a row.
template <class M, class S>
struct PlainBlockProducts {
  Kokkos::View<const int*, RidgeDevice> row_ptr, col;
  Kokkos::View<const M*, RidgeDevice> val;
  ProbeBlock<S> x;
  ProbeSums sums;
  std::int64_t stride;
  KOKKOS_INLINE_FUNCTION void operator()(const int row) const {
    double s[kProbeWidth];
    for (int q = 0; q < kProbeWidth; ++q) s[q] = 0;
    for (int k = row_ptr(row); k < row_ptr(row + 1); ++k) {
      const double a = static_cast<double>(val(k));
      const S* xr = &x(col(k), 0);
      for (int q = 0; q < kProbeWidth; ++q) s[q] += a * static_cast<double>(xr[q]);
    }
    for (int q = 0; q < kProbeWidth; ++q) sums(q * stride + row) = s[q];
  }
};

}  // namespace trident::ridge
