#pragma once
// Where the ridge kernels run, and how their range launches map onto warps: on CUDA the
// threads of a range launch are laid out along warps, so 32 consecutive indices are one
// warp's lanes; on host back ends a "warp" is one thread. The warp primitives themselves
// (sums, ballots, broadcasts) are core/warp.hpp's.
#include <Kokkos_Core.hpp>

#include <type_traits>

#include "core/warp.hpp"

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

// Range index t's lane in its warp, checked on CUDA against the hardware's (a launch whose
// threads were not laid out along warps would make warp::sum add the wrong values: trap).
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
