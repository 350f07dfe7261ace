#include "transport/staged_upload.hpp"

#include <cstring>
#include <string>
#include <type_traits>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

#include "transport/staging.hpp"

namespace trident::transport {

using staging::DeviceMemory;
using staging::host_copy;
using staging::kStaged;
using staging::Unmanaged;

bool page_locked(const void* host) {
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::is_same<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>::value) {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, host) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    return attributes.type == cudaMemoryTypeHost;
  }
#endif
  (void)host;
  return false;
}

StagedUpload::StagedUpload(std::size_t chunk_bytes) : chunk_(chunk_bytes > 0 ? chunk_bytes : 1) {}

void StagedUpload::prepare() {
  if (!kStaged || queue_) return;
  for (auto& buffer : buffers_)
    buffer = Kokkos::View<char*, PinnedHostSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("trident::staged_upload")), chunk_);
  queue_ = std::make_unique<SideStream>();
}

void StagedUpload::copy(void* device, const void* host, std::size_t bytes) {
  char* const to = static_cast<char*>(device);
  const char* const from = static_cast<const char*>(host);
  if constexpr (!kStaged) {
    if (bytes > 0) std::memcpy(to, from, bytes);  // the device's memory is the host's
  } else {
    if (bytes == 0) return;
    if (bytes <= chunk_ || page_locked(host)) {  // (one copy: nothing to overlap)
      Kokkos::deep_copy(Kokkos::DefaultExecutionSpace(), Kokkos::View<char*, DeviceMemory, Unmanaged>(to, bytes),
                        Kokkos::View<const char*, Kokkos::HostSpace, Unmanaged>(from, bytes));
      Kokkos::DefaultExecutionSpace().fence();
      return;
    }
    prepare();
    const ExecutionSpace& space = queue_->space();
    const std::size_t chunks = (bytes + chunk_ - 1) / chunk_;
    for (std::size_t c = 0; c < chunks; ++c) {
      const std::size_t at = c * chunk_, size = bytes - at < chunk_ ? bytes - at : chunk_;
      // buffer c % 2 was last sent two chunks ago, whose copy the fence below has seen done
      host_copy(buffers_[c % 2].data(), from + at, size);
      space.fence();  // chunk c - 1 has arrived
      Kokkos::deep_copy(space, Kokkos::View<char*, DeviceMemory, Unmanaged>(to + at, size),
                        Kokkos::View<const char*, PinnedHostSpace, Unmanaged>(buffers_[c % 2].data(), size));
    }
    space.fence();
  }
}

}  // namespace trident::transport
