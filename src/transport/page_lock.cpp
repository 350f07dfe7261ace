#include "transport/page_lock.hpp"

#include <Kokkos_Core.hpp>

#include <type_traits>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace trident::transport {

PageLock::PageLock(void* data, std::size_t bytes) {
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::is_same<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>::value && bytes >= (std::size_t(1) << 20)) {
    if (cudaHostRegister(data, bytes, cudaHostRegisterDefault) == cudaSuccess) {
      data_ = data;
    } else {
      (void)cudaGetLastError();  // not fatal: the copies are only slower
    }
  }
#else
  (void)data;
  (void)bytes;
#endif
}

PageLock::~PageLock() {
#if defined(KOKKOS_ENABLE_CUDA)
  if (data_ != nullptr) cudaHostUnregister(data_);
#endif
}

}  // namespace trident::transport
