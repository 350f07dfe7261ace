#pragma once
// Page-locked host memory for fast copies to and from the device, without allocating it
// anew: the kNN result rows and the ridge matrices' host layouts are first written by many
// threads (huge pages), then locked in place for their copies.
#include <cstddef>

namespace trident::core {

// Page-locks host memory [data, data + bytes) while it lives (CUDA builds, from 1 MiB; a
// failure leaves it pageable: the copies are only slower). Locking memory already touched
// took about 0.05 s a GB on an H200 host and unlocking 0.015 s a GB, where Kokkos'
// page-locked allocation (cudaHostAlloc) took 0.35 s a GB; copies from pageable memory ran
// at about 7.5e9 B/s, from locked memory at the link's 5e10.
class PageLock {
 public:
  PageLock(void* data, std::size_t bytes);
  ~PageLock();
  PageLock(const PageLock&) = delete;
  PageLock& operator=(const PageLock&) = delete;

 private:
  void* data_ = nullptr;
};

}  // namespace trident::core
