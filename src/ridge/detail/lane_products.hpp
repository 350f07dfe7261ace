#pragma once
// The first pass of a row product: each work item's sum (a row's, a segment's or a band's
// piece's) in double, by `lanes` threads that read packs of values and indices with wide
// streaming loads and gather x. The CUDA-specific code of the products (streaming loads,
// warp shuffles, the lane check) is here and in execution.hpp.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ridge/detail/device_csr.hpp"
#include "ridge/detail/execution.hpp"

namespace trident::ridge {

// N consecutive entries, aligned so that one load reads them all.
template <class T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

// A pack read with a streaming (evict-first) load on CUDA devices, so that the matrix,
// read once a product, does not evict the gathered x from L1; a plain load elsewhere.
template <class T, int N>
KOKKOS_FORCEINLINE_FUNCTION Pack<T, N> stream_load(const Pack<T, N>* p) {
#if defined(__CUDA_ARCH__)
  Pack<T, N> out;
  if constexpr (sizeof(Pack<T, N>) == 16) {
    const int4 raw = __ldcs(reinterpret_cast<const int4*>(p));
    memcpy(&out, &raw, 16);
  } else if constexpr (sizeof(Pack<T, N>) == 8) {
    const int2 raw = __ldcs(reinterpret_cast<const int2*>(p));
    memcpy(&out, &raw, 8);
  } else {
    const int raw = __ldcs(reinterpret_cast<const int*>(p));
    memcpy(&out, &raw, 4);
  }
  return out;
#else
  return *p;
#endif
}

// Each lane's partial sum as it is summed: float when matrix and vector are, double
// otherwise. The lanes of a work item are added in double.
template <class M, class X>
using LaneSum = std::conditional_t<std::is_same_v<M, float> && std::is_same_v<X, float>, float, double>;

// Each work item's sum in double into item_sums. Lane l of an item sums its packs l,
// l + lanes, ...; on CUDA the lanes are consecutive threads of a warp that add their sums
// in double by a butterfly of shuffles (a fixed order: the sum does not depend on how many
// rows or λ a launch holds), so the pass stores one sum an item, not one a lane. A flat
// range of threads, not a team per row: Kokkos' team reductions cost more than the product
// itself here. Nothing is done while *skip is set (skip may be null).
template <class M, class I, class XView>
struct LaneProducts {
  static constexpr int kPack = DeviceCsr<M>::kPack;
  using Sum = LaneSum<M, typename XView::non_const_value_type>;

  Kokkos::View<const int*, RidgeDevice> work_begin, work_end;  // entry offsets of the work items
  Kokkos::View<const I*, RidgeDevice> col;
  Kokkos::View<const M*, RidgeDevice> val;
  XView x;  // a vector, or a column of a LayoutLeft block
  Kokkos::View<double*, RidgeDevice> item_sums;
  int lanes;
  const int* skip;

  // Lane `lane` of work item `item`: two packs loaded before their sums, so that each lane
  // has two wide reads in flight.
  KOKKOS_INLINE_FUNCTION Sum lane_sum(const int item, int p) const {
    const int begin = work_begin(item);
    const int packs = (work_end(item) - begin) / kPack;
    const auto* vp = reinterpret_cast<const Pack<M, kPack>*>(val.data() + begin);
    const auto* cp = reinterpret_cast<const Pack<I, kPack>*>(col.data() + begin);
    Sum s0 = 0, s1 = 0;
    for (; p + lanes < packs; p += 2 * lanes) {
      const Pack<M, kPack> v0 = stream_load(vp + p), v1 = stream_load(vp + p + lanes);
      const Pack<I, kPack> c0 = stream_load(cp + p), c1 = stream_load(cp + p + lanes);
      for (int k = 0; k < kPack; ++k) {
        s0 += static_cast<Sum>(v0.v[k]) * static_cast<Sum>(x(c0.v[k]));
        s1 += static_cast<Sum>(v1.v[k]) * static_cast<Sum>(x(c1.v[k]));
      }
    }
    if (p < packs) {
      const Pack<M, kPack> v0 = stream_load(vp + p);
      const Pack<I, kPack> c0 = stream_load(cp + p);
      for (int k = 0; k < kPack; ++k) s0 += static_cast<Sum>(v0.v[k]) * static_cast<Sum>(x(c0.v[k]));
    }
    return s0 + s1;
  }

  // t: a thread (lanes a work item) on CUDA, a work item elsewhere (items x lanes may pass 2^31).
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t t) const {
    if (skip && *skip) return;
#if defined(__CUDA_ARCH__)
    // lanes is a power of two up to 32 (row_lanes) and Kokkos' range threads are laid
    // out along warps, so an item's lanes are one aligned group of a warp. Only item and
    // lane live across the loop: 32 registers, full occupancy; the group and the lane's
    // place in the warp are worked out after it.
    const int shift = __ffs(lanes) - 1;
    const int item = static_cast<int>(t >> shift), lane = static_cast<int>(t) & (lanes - 1);
    double s = static_cast<double>(lane_sum(item, lane));
    unsigned lane_id;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane_id));
    if (((static_cast<unsigned>(lane) - lane_id) & static_cast<unsigned>(lanes - 1)) != 0) __trap();
    const unsigned group = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1u) << (lane_id & ~unsigned(lanes - 1));
    for (int offset = lanes / 2; offset > 0; offset /= 2) s += __shfl_xor_sync(group, s, offset, lanes);
    if (lane == 0) item_sums(item) = s;
#else
    const int item = static_cast<int>(t);
    double s = 0;
    for (int l = 0; l < lanes; ++l) s += static_cast<double>(lane_sum(item, l));
    item_sums(item) = s;
#endif
  }
};

}  // namespace trident::ridge
