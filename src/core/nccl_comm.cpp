#include "core/nccl_comm.hpp"

#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"

#if defined(TRIDENT_HAVE_NCCL)
#include <cuda_runtime_api.h>
#include <nccl.h>
#endif

namespace trident::core {

#if defined(TRIDENT_HAVE_NCCL)
struct NcclComm::State {
  ncclComm_t comm = nullptr;
  ncclResult_t made = ncclSuccess;
  std::thread maker;
  bool agreed = false;  // every rank has learnt whether the set-up failed
};

namespace {
std::mutex releases_mutex;
std::vector<std::thread> releases;
}  // namespace

NcclComm::NcclComm() = default;

void NcclComm::start(MPI_Comm comm) {
  if (state_ != nullptr) return;
  state_ = std::make_unique<State>();
  ncclUniqueId id;
  int ok = 1;
  if (mpi::rank(comm) == 0) ok = ncclGetUniqueId(&id) == ncclSuccess;
  MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
  if (!ok) throw CollectiveError("NCCL could not make a communicator id (ncclGetUniqueId)", kExitRunFailure);
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm);
  int device = 0;
  cudaGetDevice(&device);
  // Point-to-point operations connect up to 32 channels to each peer over NVLink, each with
  // its own buffers, at a cost that dominated a halo's first exchange; halos are small
  // enough for a few. A user's own setting stands.
  setenv("NCCL_MAX_P2P_NCHANNELS", "4", /*overwrite=*/0);
  const int ranks = mpi::size(comm), rank = mpi::rank(comm);
  State* s = state_.get();
  s->maker = std::thread([s, id, device, ranks, rank] {
    cudaSetDevice(device);
    s->made = ncclCommInitRank(&s->comm, ranks, id, rank);
  });
}

bool NcclComm::started() const { return state_ != nullptr; }

void* NcclComm::get(MPI_Comm comm) {
  if (state_ == nullptr) start(comm);
  if (state_->agreed) return state_->comm;
  if (state_->maker.joinable()) state_->maker.join();
  const int failed = state_->made != ncclSuccess;
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm);
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
  const std::lock_guard<std::mutex> lock(releases_mutex);
  releases.emplace_back([comm = state_->comm, device] {
    cudaSetDevice(device);
    ncclCommDestroy(comm);
  });
}

void join_nccl_releases() {
  const std::lock_guard<std::mutex> lock(releases_mutex);
  for (std::thread& t : releases) t.join();
  releases.clear();
}

#else
struct NcclComm::State {};
NcclComm::NcclComm() = default;
void NcclComm::start(MPI_Comm) {}
bool NcclComm::started() const { return false; }
void* NcclComm::get(MPI_Comm) { return nullptr; }
NcclComm::~NcclComm() = default;
void join_nccl_releases() {}
#endif

}  // namespace trident::core
