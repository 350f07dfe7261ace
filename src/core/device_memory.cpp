#include "core/device_memory.hpp"

#include <Kokkos_Core.hpp>

#include <fstream>
#include <sstream>

#include "core/error.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace trident {

std::string gib_text(std::int64_t bytes) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(2);
  s << double(bytes) / double(1ll << 30) << " GiB";
  return s.str();
}

void check_device_memory(std::int64_t need, std::int64_t have, const std::string& where,
                         const std::string& what, const std::string& device,
                         const std::string& memory) {
  if (have < 0 || need <= have) return;
  throw InputError(where + ": " + what + " needs " + gib_text(need) + " of " + memory + " but " +
                   device + " has " + gib_text(have) + " free");
}

std::int64_t device_free_bytes() {
#if defined(KOKKOS_ENABLE_CUDA)
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return -1;
  return static_cast<std::int64_t>(free_bytes);
#elif defined(KOKKOS_ENABLE_HIP) || defined(KOKKOS_ENABLE_SYCL)
  return -1;
#else
  return host_free_bytes();
#endif
}

std::int64_t host_free_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::int64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return -1;
}

}  // namespace trident
