#include "transport/peer_areas.hpp"

#include "core/comm.hpp"

#include <Kokkos_Macros.hpp>  // KOKKOS_ENABLE_CUDA
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

#include <vector>

namespace trident::transport {

bool on_all_ranks(MPI_Comm comm, bool mine) {
  int ok = mine ? 1 : 0;
  mpi::min_over_ranks(comm, &ok, 1);
  return ok != 0;
}

#if defined(KOKKOS_ENABLE_CUDA)

bool failed_on_any_rank(MPI_Comm comm, const std::string& mine, const std::string& step, std::string& why_not) {
  if (on_all_ranks(comm, mine.empty())) return false;
  cudaGetLastError();
  why_not = mine.empty() ? step + " failed on another rank" : mine;
  return true;
}

std::unique_ptr<PeerAreas> PeerAreas::map(MPI_Comm comm, std::size_t bytes, std::string& why_not) {
  const int ranks = mpi::size(comm), rank = mpi::rank(comm);
  if (ranks > kMostRanks) {
    why_not = "more than " + std::to_string(kMostRanks) + " ranks";
    return nullptr;
  }
  MPI_Comm host_comm;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host_comm);
  const int on_my_host = mpi::size(host_comm);
  MPI_Comm_free(&host_comm);
  if (!on_all_ranks(comm, on_my_host == ranks)) {
    why_not = "the ranks are on several hosts";
    return nullptr;
  }
  std::unique_ptr<PeerAreas> areas(new PeerAreas());
  areas->rank_ = rank;
  areas->ranks_ = ranks;
  std::string mine;  // this rank's failure
  cudaIpcMemHandle_t handle{};
  char* own = nullptr;
  cudaError_t status = cudaSuccess;
  if (bytes > 0) {
    status = cudaMalloc(&own, bytes);
    if (status == cudaSuccess) {
      areas->base_[rank] = own;
      status = cudaMemset(own, 0, bytes);
    }
    if (status == cudaSuccess) status = cudaDeviceSynchronize();
    if (status == cudaSuccess) status = cudaIpcGetMemHandle(&handle, own);
  }
  if (status != cudaSuccess) mine = std::string("device memory for peers: ") + cudaGetErrorString(status);
  if (failed_on_any_rank(comm, mine, "allocating device memory for peers", why_not)) return nullptr;
  std::vector<cudaIpcMemHandle_t> handles(static_cast<std::size_t>(ranks));
  MPI_Allgather(&handle, sizeof handle, MPI_BYTE, handles.data(), sizeof handle, MPI_BYTE, comm);
  std::vector<unsigned long long> sizes(static_cast<std::size_t>(ranks));
  const unsigned long long mine_bytes = bytes;
  mpi::all_gather(comm, &mine_bytes, 1, sizes.data());
  for (int q = 0; q < ranks && mine.empty(); ++q) {
    if (q == rank || sizes[static_cast<std::size_t>(q)] == 0) continue;
    void* peer = nullptr;
    status = cudaIpcOpenMemHandle(&peer, handles[static_cast<std::size_t>(q)], cudaIpcMemLazyEnablePeerAccess);
    if (status != cudaSuccess) mine = "mapping rank " + std::to_string(q) + "'s memory: " + cudaGetErrorString(status);
    else areas->base_[q] = static_cast<char*>(peer);
  }
  if (failed_on_any_rank(comm, mine, "mapping another GPU's memory", why_not)) return nullptr;
  return areas;
}

PeerAreas::~PeerAreas() {
  for (int q = 0; q < ranks_; ++q) {
    if (base_[q] == nullptr) continue;
    if (q == rank_) cudaFree(base_[q]);
    else cudaIpcCloseMemHandle(base_[q]);
  }
}

#else  // not a CUDA build

std::unique_ptr<PeerAreas> PeerAreas::map(MPI_Comm, std::size_t, std::string& why_not) {
  why_not = "not a CUDA build";
  return nullptr;
}

PeerAreas::~PeerAreas() = default;

#endif

}  // namespace trident::transport
