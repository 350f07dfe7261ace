#pragma once
// Sums over the ranks of one host whose GPUs can reach each other's memory (NVLink, or PCIe
// peer access), for small buffers, in one kernel on the caller's stream. Each rank owns a
// receive area in device memory that every other rank maps (CUDA IPC). Rank r's kernel
// writes its numbers into slot r of every other rank's area, each 4-byte piece in an 8-byte
// word beside the call's number (one store delivers both, so no fence and no flag: NCCL's
// LL protocol), then reads the other ranks' words for the same numbers as they arrive and
// adds the contributions in rank order 0, 1, ..., P - 1 (its own from its buffer). Every
// rank adds the same numbers in the same order, so every rank gets the same bits, and a
// repeated run the same bits again.
//
// Why: the ridge's LSMR sums a small buffer (n numbers) over the ranks every iteration;
// through NCCL that sum is bound by launch latency, a noticeable part of an iteration
// (figures in docs/history/core.md), where one kernel of ours reaches the data directly.
//
// A call's number lives in device memory (each launch's last block to end sets the next),
// so a launch recorded in a CUDA graph and replayed numbers its calls by itself.
// Two sets of slots used in turn (the call's parity): a rank writes the slots of call s + 2
// only after its launch of call s + 1 ended, which read words of every other rank's launch
// of call s + 1, which began after that rank's launch of call s had read its slots.
// Every rank must make the same calls in the same order (as with any collective).
#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>

namespace trident::core {

class PeerSum {
 public:
  // The most bytes one call sums (one rank's contribution): past it a sum is bandwidth's,
  // which NCCL's ring spends better.
  static constexpr std::size_t kMostBytes = std::size_t(256) << 10;

  // Collective over `comm` (every rank gets the same answer): the sums through peer memory,
  // or null with the reason in `why_not` (not a CUDA build, ranks on several hosts, a GPU
  // that cannot map another's memory, a test sum that came out wrong).
  static std::unique_ptr<PeerSum> connect(MPI_Comm comm, std::string& why_not);
  ~PeerSum();
  PeerSum(const PeerSum&) = delete;
  PeerSum& operator=(const PeerSum&) = delete;

  // data[0..count) <- its sum over the ranks, in place, queued on `space` (one kernel, which
  // a recording of the stream may hold). Requires count * sizeof(T) <= kMostBytes; T is
  // float or double.
  template <class T>
  void sum(const Kokkos::DefaultExecutionSpace& space, T* data, std::size_t count);

 private:
  PeerSum() = default;
  struct Mapping;
  std::unique_ptr<Mapping> mapping_;
};

}  // namespace trident::core
