#pragma once
// Large uploads from pageable host memory at the link's rate, the mirror of StagedDownload:
// the host's threads copy a chunk into one of two page-locked buffers while the chunk before
// travels from the other. A copy straight from pageable memory goes through the driver's
// own small buffers on one thread, at a third of the link's rate or less, and its time
// moves from run to run (docs/history/knn.md).
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <memory>

#include "transport/pinned_host_space.hpp"
#include "transport/side_stream.hpp"

namespace trident::transport {

// Whether host memory at `host` is page-locked (allocated so, or registered: PageLock,
// LockedArena); false on back ends without a device of their own.
bool page_locked(const void* host);

class StagedUpload {
 public:
  // Chunks of `chunk_bytes` (on CUDA two page-locked buffers and a queue of their own, made
  // by prepare() or the first copy that needs them; elsewhere the copy is the host's own).
  explicit StagedUpload(std::size_t chunk_bytes = std::size_t(32) << 20);
  // Makes the buffers now (a study's set-up, before the timed work).
  void prepare();

  // Copies [host, host + bytes) of host memory to [device, device + bytes) of device
  // memory; returns when the bytes are in place. Memory already page-locked goes in one
  // copy, straight.
  void copy(void* device, const void* host, std::size_t bytes);

 private:
  std::size_t chunk_;
  Kokkos::View<char*, PinnedHostSpace> buffers_[2];
  std::unique_ptr<SideStream> queue_;
};

}  // namespace trident::transport
