#pragma once
// NCCL's communicator for one MPI communicator, made on a thread of its own so that its
// set-up (loading NCCL's kernels, its bootstrap, its buffers) overlaps the caller's own
// set-up; the first call that needs it waits. Destroyed on a thread of its own as well, so
// that NCCL's teardown overlaps writing the output; the runtime joins those threads before
// it finalizes (Runtime::before_finalize). Built without NCCL, it is never started.
#include <mpi.h>

#include <cstddef>
#include <memory>

namespace trident::transport {

class NcclComm {
 public:
  NcclComm();
  ~NcclComm();  // hands the communicator to a releasing thread
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  // Collective over `comm` (rank 0's id travels by MPI_Bcast); the communicator is then
  // made on a thread that drives the calling thread's device. With `sum_bytes`, that thread
  // then sums 4 KiB and `sum_bytes` over the ranks once, so that NCCL connects the ranks
  // (on first use) for the sums to come before anyone waits for them. Again: nothing.
  void start(MPI_Comm comm, std::size_t sum_bytes = 0);
  bool started() const;
  // The communicator (an ncclComm_t), waiting for it if it is still being made; starts it
  // first if nobody did. Collective over `comm` on its first call: every rank learns if
  // one failed (CollectiveError naming ncclCommInitRank).
  void* get(MPI_Comm comm);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace trident::transport
