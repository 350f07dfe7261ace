// The device queries behind the fused engine's row schedules; the only CUDA runtime calls
// of the ridge products (the L2 size).
#include "ridge/detail/device_tuning.hpp"

#include <Kokkos_Core.hpp>

#include <type_traits>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

#include "ridge/detail/execution.hpp"

namespace trident::ridge {

namespace {
constexpr bool kHostBackEnd = Kokkos::SpaceAccessibility<Kokkos::HostSpace, RidgeExec::memory_space>::accessible;
}

std::int64_t fill_threads() {
  if (kHostBackEnd) return 0;
  return std::int64_t(1) << 17;
}

std::int64_t gather_cache_bytes() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<RidgeExec, Kokkos::Cuda>) {
    int device = 0, bytes = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device) != cudaSuccess)
      return 0;
    return bytes;
  }
#endif
  return 0;
}

int row_lanes(std::size_t vector_bytes) {
  if (kHostBackEnd) return 1;
  return vector_bytes == 4 ? 16 : 32;
}

}  // namespace trident::ridge
