#include "transport/nccl_comm.hpp"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/runtime.hpp"

#if defined(TRIDENT_HAVE_NCCL)
#include <cuda_runtime_api.h>
#include <nccl.h>
#endif

namespace trident::transport {

#if defined(TRIDENT_HAVE_NCCL)
struct NcclComm::State {
  ncclComm_t comm = nullptr;
  ncclResult_t made = ncclSuccess;
  std::thread maker;
  bool agreed = false;  // every rank has learnt whether the set-up failed
};

namespace {
// The releasing threads; joined before the runtime finalizes (the first use asks it to), or
// at the latest when the program ends.
struct Releases {
  std::mutex mutex;
  std::vector<std::thread> threads;
  void join() {
    const std::lock_guard<std::mutex> lock(mutex);
    for (std::thread& t : threads) t.join();
    threads.clear();
  }
  ~Releases() { join(); }
};
Releases& releases() {
  static Releases r;
  static const bool joined_before_finalize = [] {
    Runtime::before_finalize([] { r.join(); });
    return true;
  }();
  (void)joined_before_finalize;
  return r;
}
}  // namespace

NcclComm::NcclComm() = default;

namespace {
// Sums of 4 KiB and of `bytes` over the ranks (zeros, on a stream of this thread's own):
// NCCL connects the ranks for a collective's algorithm on its first call.
ncclResult_t connect_sums(ncclComm_t comm, std::size_t bytes) {
  const std::size_t count = std::max<std::size_t>(bytes, 4096) / sizeof(float);
  float* data = nullptr;
  cudaStream_t stream = nullptr;
  if (cudaMalloc(&data, count * sizeof(float)) != cudaSuccess) return ncclUnhandledCudaError;
  ncclResult_t result = ncclUnhandledCudaError;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess &&
      cudaMemsetAsync(data, 0, count * sizeof(float), stream) == cudaSuccess) {
    result = ncclAllReduce(data, data, 1024, ncclFloat32, ncclSum, comm, stream);
    if (result == ncclSuccess && count > 1024) result = ncclAllReduce(data, data, count, ncclFloat32, ncclSum, comm, stream);
    if (result == ncclSuccess && cudaStreamSynchronize(stream) != cudaSuccess) result = ncclUnhandledCudaError;
  }
  if (stream != nullptr) cudaStreamDestroy(stream);
  cudaFree(data);
  return result;
}
}  // namespace

void NcclComm::start(MPI_Comm comm, const std::size_t sum_bytes) {
  if (state_ != nullptr) return;
  state_ = std::make_unique<State>();
  const int ranks = mpi::size(comm), rank = mpi::rank(comm);
  ncclUniqueId id;
  int ok = 1;
  if (rank == 0) ok = ncclGetUniqueId(&id) == ncclSuccess;
  mpi::broadcast(comm, &ok, 1);
  if (!ok) throw CollectiveError("NCCL could not make a communicator id (ncclGetUniqueId)", kExitRunFailure);
  mpi::broadcast(comm, reinterpret_cast<char*>(&id), static_cast<int>(sizeof id));
  int device = 0;
  cudaGetDevice(&device);
  // Point-to-point operations connect up to 32 channels to each peer over NVLink, each with
  // its own buffers, at a cost that dominated a halo's first exchange; halos are small
  // enough for a few. A user's own setting stands.
  setenv("NCCL_MAX_P2P_NCHANNELS", "4", /*overwrite=*/0);
  State* s = state_.get();
  s->maker = std::thread([s, id, device, ranks, rank, sum_bytes] {
    cudaSetDevice(device);
    s->made = ncclCommInitRank(&s->comm, ranks, id, rank);
    if (s->made == ncclSuccess && sum_bytes > 0) s->made = connect_sums(s->comm, sum_bytes);
  });
}

bool NcclComm::started() const { return state_ != nullptr; }

void* NcclComm::get(MPI_Comm comm) {
  if (state_ == nullptr) start(comm);
  if (state_->agreed) return state_->comm;
  if (state_->maker.joinable()) state_->maker.join();
  const int failed = state_->made != ncclSuccess;
  int any_failed = failed;
  mpi::max_over_ranks(comm, &any_failed, 1);
  state_->agreed = true;
  if (any_failed)
    throw CollectiveError(std::string("NCCL could not set up its communicator (ncclCommInitRank") +
                              (failed ? std::string(": ") + ncclGetErrorString(state_->made) : std::string(" on another rank")) +
                              "); TRIDENT_DEVICE_COMM=host-staging avoids NCCL",
                          kExitRunFailure);
  return state_->comm;
}

NcclComm::~NcclComm() {
  if (state_ == nullptr) return;
  if (state_->maker.joinable()) state_->maker.join();
  if (state_->comm == nullptr) return;
  int device = 0;
  cudaGetDevice(&device);
  Releases& r = releases();
  const std::lock_guard<std::mutex> lock(r.mutex);
  r.threads.emplace_back([comm = state_->comm, device] {
    cudaSetDevice(device);
    ncclCommDestroy(comm);
  });
}

#else
struct NcclComm::State {};
NcclComm::NcclComm() = default;
void NcclComm::start(MPI_Comm, std::size_t) {}
bool NcclComm::started() const { return false; }
void* NcclComm::get(MPI_Comm) { return nullptr; }
NcclComm::~NcclComm() = default;
#endif

}  // namespace trident::transport
