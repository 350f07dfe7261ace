#pragma once
// Host memory the device copies to and from at full speed (and asynchronously): page-locked
// on CUDA, plain host memory elsewhere.
#include <Kokkos_Core.hpp>

namespace trident {
#if defined(KOKKOS_ENABLE_CUDA)
using PinnedHostSpace = Kokkos::CudaHostPinnedSpace;
#else
using PinnedHostSpace = Kokkos::HostSpace;
#endif
}  // namespace trident
