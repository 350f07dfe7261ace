#pragma once
// Where the ridge kernels run, and the warp-level helpers they share: on CUDA the threads
// of a range launch are laid out along warps, so 32 consecutive indices are one warp's
// lanes; on host back ends a "warp" is one thread.
#include <Kokkos_Core.hpp>

#include <type_traits>

namespace trident::ridge {

using RidgeExec = Kokkos::DefaultExecutionSpace;
using RidgeDevice = Kokkos::Device<RidgeExec, RidgeExec::memory_space>;

// Whether the lanes of a work item are threads of one warp that add their sums with
// shuffles (CUDA), or one thread that runs them in turn (host back ends, where lanes is 1
// unless a test asks for more, and other devices).
#if defined(KOKKOS_ENABLE_CUDA)
inline constexpr bool kLanesAreWarpThreads = std::is_same_v<RidgeExec, Kokkos::Cuda>;
#else
inline constexpr bool kLanesAreWarpThreads = false;
#endif

// Threads of a warp: 32 on CUDA, 1 on host back ends.
inline constexpr int kWarpLanes = kLanesAreWarpThreads ? 32 : 1;

// The sum of `value` over the 32 lanes of a warp, the same bits in every lane (a butterfly
// of shuffles: lane i adds v_i + v_{i^k}, its partner v_{i^k} + v_i, equal); `value` itself
// on host back ends. Every lane of the warp must call it.
template <class T>
KOKKOS_INLINE_FUNCTION T warp_sum(T value) {
#if defined(__CUDA_ARCH__)
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
#endif
  return value;
}

// The value of lane 0 in every lane (on host back ends, `value`).
template <class T>
KOKKOS_INLINE_FUNCTION T from_lane0(T value) {
#if defined(__CUDA_ARCH__)
  value = __shfl_sync(0xffffffffu, value, 0);
#endif
  return value;
}

// A bit for each lane of the warp whose `predicate` holds (bit i: lane i); on host back
// ends bit 0 for the one thread. Every lane of the warp must call it.
KOKKOS_INLINE_FUNCTION unsigned warp_ballot(const bool predicate) {
#if defined(__CUDA_ARCH__)
  return __ballot_sync(0xffffffffu, predicate);
#else
  return predicate ? 1u : 0u;
#endif
}

// The lowest lane whose bit is set in a nonzero ballot.
KOKKOS_INLINE_FUNCTION int lowest_lane(const unsigned ballot) {
#if defined(__CUDA_ARCH__)
  return __ffs(ballot) - 1;
#else
  int lane = 0;
  while (!((ballot >> lane) & 1u)) ++lane;
  return lane;
#endif
}

// Range index t's lane in its warp, checked on CUDA against the hardware's (a launch whose
// threads were not laid out along warps would make warp_sum add the wrong values: trap).
KOKKOS_INLINE_FUNCTION int warp_lane(const long long t) {
#if defined(__CUDA_ARCH__)
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  if ((static_cast<unsigned>(t) & 31u) != lane) __trap();
  return static_cast<int>(lane);
#else
  (void)t;
  return 0;
#endif
}

// Launches that the host queues many of: their arguments travel with the launch rather
// than through constant memory, whose reuse makes the host wait for the previous such
// kernel to end (Kokkos passes functors over 512 bytes that way by default).
template <class Policy>
auto light(const Policy& policy) {
  return Kokkos::Experimental::require(policy, Kokkos::Experimental::WorkItemProperty::HintLightWeight);
}

}  // namespace trident::ridge
