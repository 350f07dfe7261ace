#pragma once
// A lane group: the 32 lanes of a warp on CUDA, working on one thing together (votes,
// ballots, broadcasts, reductions); on host back ends one thread, where each primitive
// is the identity. Used by the screens (screen_kernels.hpp, buffer_kernels.hpp,
// select_kernels.hpp) and their compaction (lane_compaction.hpp). On CUDA every lane of
// the warp must be active at each call.
#include <Kokkos_Core.hpp>

#include <type_traits>

#include "core/warp.hpp"

namespace trident::knn {

// Lanes of a lane group: a warp on CUDA, one thread elsewhere.
#if defined(KOKKOS_ENABLE_CUDA)
constexpr int kSelectLanes = std::is_same<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>::value ? 32 : 1;
#else
constexpr int kSelectLanes = 1;
#endif

// Lane-group primitives: on CUDA warp intrinsics over the V lanes of a warp (the shared
// ones from core/warp.hpp); elsewhere a group is one thread and they reduce to the identity.
struct LaneGroup {
  int lane = 0;
  KOKKOS_FORCEINLINE_FUNCTION unsigned ballot(bool p) const { return warp::ballot(p); }
  KOKKOS_FORCEINLINE_FUNCTION static bool any(bool p) { return warp::any(p); }
  // the lowest lane of a non-empty mask
  KOKKOS_FORCEINLINE_FUNCTION static int lowest(unsigned mask) { return warp::lowest(mask); }
  KOKKOS_FORCEINLINE_FUNCTION static void sync() { warp::sync(); }
  // lane `from`'s v, in every lane
  template <class U>
  KOKKOS_FORCEINLINE_FUNCTION static U broadcast(U v, int from) {
    return warp::broadcast(v, from);
  }
  // `combine` over the lanes' v, in every lane (a butterfly of five shuffles)
  template <class U, class Combine>
  KOKKOS_FORCEINLINE_FUNCTION static U reduce(U v, Combine combine) {
    return warp::butterfly(v, combine);
  }
#if defined(__CUDA_ARCH__)
  // lanes below this one whose predicate holds
  KOKKOS_FORCEINLINE_FUNCTION int below(unsigned mask) const { return __popc(mask & ((1u << lane) - 1u)); }
  KOKKOS_FORCEINLINE_FUNCTION static int count(unsigned mask) { return __popc(mask); }
  // the lane of the mask's set bit number k (0-based; k < count(mask)): the largest p
  // with at most k set bits below it
  KOKKOS_FORCEINLINE_FUNCTION static int nth(unsigned mask, int k) {
    int p = 0;
    for (int step = 16; step > 0; step >>= 1) {
      if (__popc(mask & ((1u << (p + step)) - 1u)) <= k) p += step;
    }
    return p;
  }
  // Sums, minima and maxima of 32-bit integers are one warp-reduce instruction on sm_80
  // and later (the counting passes of a compaction are mostly these); other types take
  // five shuffles (reduce).
  template <class U>
  static constexpr bool kReduceInstruction = std::is_same<U, int>::value || std::is_same<U, unsigned>::value;
  template <class U>
  KOKKOS_FORCEINLINE_FUNCTION static U sum(U v) {
#if __CUDA_ARCH__ >= 800
    if constexpr (kReduceInstruction<U>) return __reduce_add_sync(0xffffffffu, v);
#endif
    return warp::sum(v);
  }
  template <class U>
  KOKKOS_FORCEINLINE_FUNCTION static U min(U v) {
#if __CUDA_ARCH__ >= 800
    if constexpr (kReduceInstruction<U>) return __reduce_min_sync(0xffffffffu, v);
#endif
    return reduce(v, [](U a, U b) { return b < a ? b : a; });
  }
  template <class U>
  KOKKOS_FORCEINLINE_FUNCTION static U max(U v) {
#if __CUDA_ARCH__ >= 800
    if constexpr (kReduceInstruction<U>) return __reduce_max_sync(0xffffffffu, v);
#endif
    return reduce(v, [](U a, U b) { return b > a ? b : a; });
  }
#else
  KOKKOS_FORCEINLINE_FUNCTION int below(unsigned) const { return 0; }
  KOKKOS_FORCEINLINE_FUNCTION static int count(unsigned mask) { return static_cast<int>(mask); }
  KOKKOS_FORCEINLINE_FUNCTION static int nth(unsigned, int) { return 0; }
  template <class U>
  KOKKOS_FORCEINLINE_FUNCTION static U sum(U v) { return v; }
  template <class U>
  KOKKOS_FORCEINLINE_FUNCTION static U min(U v) { return v; }
  template <class U>
  KOKKOS_FORCEINLINE_FUNCTION static U max(U v) { return v; }
#endif
};

}  // namespace trident::knn
