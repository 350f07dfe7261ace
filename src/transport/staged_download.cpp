#include "transport/staged_download.hpp"

#include <cstring>

#include "transport/staging.hpp"

namespace trident::transport {

using staging::DeviceMemory;
using staging::host_copy;
using staging::kStaged;
using staging::Unmanaged;

StagedDownload::StagedDownload(std::size_t chunk_bytes) : chunk_(chunk_bytes > 0 ? chunk_bytes : 1) {
  if constexpr (kStaged) {
    for (auto& buffer : buffers_)
      buffer = Kokkos::View<char*, PinnedHostSpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("trident::staged_download")), chunk_);
    queue_ = std::make_unique<SideStream>();
  }
}

void StagedDownload::copy(void* host, const void* device, std::size_t bytes) {
  char* const to = static_cast<char*>(host);
  const char* const from = static_cast<const char*>(device);
  if constexpr (!kStaged) {
    if (bytes > 0) std::memcpy(to, from, bytes);  // the device's memory is the host's
  } else {
    if (bytes == 0) return;
    const ExecutionSpace& space = queue_->space();
    const std::size_t chunks = (bytes + chunk_ - 1) / chunk_;
    const auto travel = [&](std::size_t c) {  // chunk c on its way into buffer c % 2
      const std::size_t at = c * chunk_, size = bytes - at < chunk_ ? bytes - at : chunk_;
      Kokkos::deep_copy(space, Kokkos::View<char*, PinnedHostSpace, Unmanaged>(buffers_[c % 2].data(), size),
                        Kokkos::View<const char*, DeviceMemory, Unmanaged>(from + at, size));
    };
    travel(0);
    for (std::size_t c = 0; c < chunks; ++c) {
      space.fence();  // chunk c has arrived
      if (c + 1 < chunks) travel(c + 1);
      const std::size_t at = c * chunk_, size = bytes - at < chunk_ ? bytes - at : chunk_;
      host_copy(to + at, buffers_[c % 2].data(), size);
    }
  }
}

void StagedDownload::copy_to_locked(void* host, const void* device, std::size_t bytes) {
  if constexpr (!kStaged) {
    copy(host, device, bytes);
  } else {
    if (bytes == 0) return;
    const ExecutionSpace& space = queue_->space();
    Kokkos::deep_copy(space, Kokkos::View<char*, PinnedHostSpace, Unmanaged>(static_cast<char*>(host), bytes),
                      Kokkos::View<const char*, DeviceMemory, Unmanaged>(static_cast<const char*>(device), bytes));
    space.fence();
  }
}

}  // namespace trident::transport
