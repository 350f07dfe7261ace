#pragma once
// Large downloads into pageable host memory at the link's rate: the device's bytes travel in
// chunks into two page-locked buffers, and while one chunk travels every host thread copies
// the last one into place. A copy straight into pageable memory goes through the driver's
// own small buffers on one thread, and into memory never touched it also pays each page's
// first touch there: several times slower (docs/history/knn.md).
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <memory>

#include "transport/pinned_host_space.hpp"
#include "transport/side_stream.hpp"

namespace trident::transport {

class StagedDownload {
 public:
  // Chunks of `chunk_bytes` (on CUDA two page-locked buffers and a queue of its own, made
  // here; elsewhere the copy is the host's own).
  explicit StagedDownload(std::size_t chunk_bytes = std::size_t(32) << 20);

  // Copies [device, device + bytes) of device memory, which the work already finished
  // wrote (the caller fenced it), to [host, host + bytes); returns when the bytes are in
  // place. Its copies run on its own queue, so it may be called on another host thread while
  // that thread launches the next kernels (one copy at a time).
  void copy(void* host, const void* device, std::size_t bytes);
  // As copy(), into host memory already page-locked (a LockedArena's): on the same queue,
  // straight from the device, with no staging and no host copy.
  void copy_to_locked(void* host, const void* device, std::size_t bytes);

 private:
  std::size_t chunk_;
  Kokkos::View<char*, PinnedHostSpace> buffers_[2];
  std::unique_ptr<SideStream> queue_;
};

}  // namespace trident::transport
