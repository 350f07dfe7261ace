#pragma once
// Page-locked host memory for fast copies to and from the device, without allocating it
// anew: the kNN result rows and the ridge matrices' host layouts are first written by many
// threads (huge pages), then locked in place for their copies.
#include <cstddef>

namespace trident::transport {

// Page-locks host memory [data, data + bytes) while it lives (CUDA builds, from 1 MiB; a
// failure leaves it pageable: the copies are only slower). Locking memory already touched
// costs far less than Kokkos' page-locked allocation (cudaHostAlloc), and copies from
// locked memory run at the link's rate, several times those from pageable memory
// (figures in docs/history/core.md).
class PageLock {
 public:
  PageLock(void* data, std::size_t bytes);
  ~PageLock();
  PageLock(const PageLock&) = delete;
  PageLock& operator=(const PageLock&) = delete;

 private:
  void* data_ = nullptr;
};

}  // namespace trident::transport
