#include "transport/peer_window.hpp"

#include "core/comm.hpp"
#include "core/error.hpp"
#include "transport/peer_areas.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace trident::transport {

std::unique_ptr<PeerWindow> PeerWindow::open(MPI_Comm comm, int root, std::size_t bytes, std::string& why_not) {
  const bool is_root = mpi::rank(comm) == root;
  std::unique_ptr<PeerWindow> window(new PeerWindow());
  window->areas_ = PeerAreas::map(comm, is_root ? bytes : 0, why_not);
  if (window->areas_ == nullptr) return nullptr;
  window->comm_ = comm;
  window->root_ = root;
  return window;
}

PeerWindow::~PeerWindow() = default;

char* PeerWindow::data() const { return mpi::rank(comm_) == root_ ? areas_->area(root_) : nullptr; }

void PeerWindow::put_all(const Kokkos::DefaultExecutionSpace& space, const void* from, std::size_t bytes,
                         std::size_t offset) {
  space.fence();
  MPI_Barrier(comm_);
  std::string failed;
#if defined(KOKKOS_ENABLE_CUDA)
  if (mpi::rank(comm_) != root_ && bytes > 0) {
    cudaStream_t stream = space.cuda_stream();
    cudaError_t status = cudaMemcpyAsync(areas_->area(root_) + offset, from, bytes, cudaMemcpyDefault, stream);
    if (status == cudaSuccess) status = cudaStreamSynchronize(stream);
    if (status != cudaSuccess) failed = cudaGetErrorString(status);
  }
#else
  (void)from;
  (void)bytes;
  (void)offset;
#endif
  // Also the meeting after the copies: every rank learns whether one failed.
  if (!on_all_ranks(comm_, failed.empty()))
    throw RunError("a copy to rank " + std::to_string(root_) + "'s GPU through peer memory failed" +
                   (failed.empty() ? " on another rank" : ": " + failed));
}

}  // namespace trident::transport
