#pragma once
// Sums over the ranks of one host whose GPUs can reach each other's memory (NVLink, or PCIe
// peer access), in one kernel on the caller's stream. Each rank owns a receive area in
// device memory that every other rank maps (CUDA IPC). Numbers travel as 4-byte pieces,
// each in an 8-byte word beside the call's number (one store delivers both, so no fence and
// no flag: NCCL's LL protocol). Every number's sum adds the ranks' contributions in rank
// order 0, 1, ..., P - 1, so every rank gets the same bits, and a repeated run the same
// bits again, whichever of the two kernels a call takes:
//  - gathered (up to kMostBytes): rank r's kernel writes its numbers into slot r of every
//    other rank's area, then adds up every rank's numbers as they arrive (one hop);
//  - spread (larger sums): rank q owns share q of the numbers; each rank sends each share
//    to its owner, the owner adds it up and sends the sums to every rank (two hops, but a
//    rank sends 2 (P - 1) / P of its numbers where gathering sends them P - 1 times: what
//    NCCL's ring sends, without NCCL's set-up).
//
// Why: the ridge's LSMR sums a buffer of n numbers over the ranks every iteration; through
// NCCL a small sum is bound by launch latency, a noticeable part of an iteration (figures in
// docs/history/core.md), where one kernel of ours reaches the data directly; and NCCL's
// communicator takes most of a second to set up.
//
// A call's number lives in device memory (each launch's last block to end sets the next),
// so a launch recorded in a CUDA graph and replayed numbers its calls by itself.
// Two sets of slots used in turn (the call's parity): a rank writes the slots of call s + 2
// only after its launch of call s + 1 ended, which read words of every other rank's launch
// of call s + 1, which began after that rank's launch of call s had read its slots (both
// kernels read every other rank's words: a spread sum's shares are never empty).
// Every rank must make the same calls in the same order (as with any collective).
#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>

namespace trident::transport {

class PeerSum {
 public:
  // The most bytes (one rank's contribution) one call sums gathered: past it a sum is
  // bandwidth's, which the spread sum spends better.
  static constexpr std::size_t kMostBytes = std::size_t(256) << 10;
  // The most bytes one call sums (spread past kMostBytes).
  static constexpr std::size_t kMostSpreadBytes = std::size_t(2) << 20;

  // Collective over `comm` (every rank gets the same answer): the sums through peer memory,
  // or null with the reason in `why_not` (not a CUDA build, ranks on several hosts, a GPU
  // that cannot map another's memory, a test sum that came out wrong).
  static std::unique_ptr<PeerSum> connect(MPI_Comm comm, std::string& why_not);
  ~PeerSum();
  PeerSum(const PeerSum&) = delete;
  PeerSum& operator=(const PeerSum&) = delete;

  // data[0..count) <- its sum over the ranks, in place, queued on `space` (one kernel, which
  // a recording of the stream may hold). Requires count * sizeof(T) <= kMostSpreadBytes; T
  // is float or double.
  template <class T>
  void sum(const Kokkos::DefaultExecutionSpace& space, T* data, std::size_t count);

 private:
  PeerSum() = default;
  struct Mapping;
  std::unique_ptr<Mapping> mapping_;
};

}  // namespace trident::transport
