#pragma once
// Warp primitives for kernels that work a warp at a time (the kNN screens' lane groups,
// the ridge products' long rows and ordered sums): on CUDA the intrinsics over all 32
// lanes of a warp, which every lane must call; on host back ends a warp is one thread and
// each primitive is the identity.
#include <Kokkos_Core.hpp>

namespace trident::warp {

// A bit for each lane whose predicate holds (bit i: lane i); bit 0 on host back ends.
KOKKOS_FORCEINLINE_FUNCTION unsigned ballot(bool predicate) {
#if defined(__CUDA_ARCH__)
  return __ballot_sync(0xffffffffu, predicate);
#else
  return predicate ? 1u : 0u;
#endif
}

// Whether the predicate holds in any lane.
KOKKOS_FORCEINLINE_FUNCTION bool any(bool predicate) {
#if defined(__CUDA_ARCH__)
  return __any_sync(0xffffffffu, predicate);
#else
  return predicate;
#endif
}

// The lowest lane whose bit is set in a nonzero mask.
KOKKOS_FORCEINLINE_FUNCTION int lowest(unsigned mask) {
#if defined(__CUDA_ARCH__)
  return __ffs(mask) - 1;
#else
  int lane = 0;
  while (lane < 31 && !((mask >> lane) & 1u)) ++lane;
  return lane;
#endif
}

// Lane `from`'s value, in every lane.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T broadcast(T value, int from) {
#if defined(__CUDA_ARCH__)
  return __shfl_sync(0xffffffffu, value, from);
#else
  (void)from;
  return value;
#endif
}

// `combine` over the lanes' values, the same bits in every lane: a butterfly of five
// shuffles, lane i combining (v_i, v_{i^d}) and its partner (v_{i^d}, v_i) for d = 16, 8,
// 4, 2, 1, so a commutative `combine` (a sum, a minimum) gives both the same.
template <class T, class Combine>
KOKKOS_FORCEINLINE_FUNCTION T butterfly(T value, Combine combine) {
#if defined(__CUDA_ARCH__)
  for (int d = 16; d > 0; d >>= 1) value = combine(value, __shfl_xor_sync(0xffffffffu, value, d));
#else
  (void)combine;
#endif
  return value;
}

// The sum of the lanes' values, the same bits in every lane (butterfly).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T sum(T value) {
  return butterfly(value, [](T a, T b) { return a + b; });
}

// Waits for the warp's lanes (their shared-memory writes become visible to each other).
KOKKOS_FORCEINLINE_FUNCTION void sync() {
#if defined(__CUDA_ARCH__)
  __syncwarp();
#endif
}

}  // namespace trident::warp
