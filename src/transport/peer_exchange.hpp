#pragma once
// Exchanges between the GPUs of one host through peer memory (transport/peer_areas.hpp), for the
// pairs of ranks that send to each other in one call (a halo exchange). Each rank owns an
// inbox of two sets of slots (used by the pair's calls in turn: the call's parity), one slot
// a sender. A sender's kernel copies its pieces for a peer into its slot of the peer's inbox,
// chunk by chunk, and sets each chunk's flag to the pair's call number (a release at system
// scope); the receiver's kernel waits for each chunk's flag (an acquire) and copies the chunk
// into place. Both kernels are queued on the caller's stream: no host waits, no NCCL, so a
// job on one host never pays for NCCL's set-up (docs/history/core.md).
//
// Why a sender may write a slot: it writes the slot of call n + 2 of a pair only after its
// own receive of call n + 1 ended (stream order), which waited for the peer's send of call
// n + 1, which the peer queued after its receive of call n, the last reader of that slot.
// This needs pieces both ways in every call of a pair and the calls of one communicator in
// one stream's order; a pair with pieces one way only goes by another transport (the
// decision depends on the pair's pieces alone, so both ranks of a pair make it alike).
#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace trident::transport {

class PeerAreas;

// One piece of an exchange: `count` numbers at `offset` of the send or receive buffer, to or
// from `peer` (MPI_PROC_NULL pieces are skipped). Pieces between one pair of ranks are matched
// in the order they are listed.
struct ExchangePiece {
  int peer;
  std::size_t offset;
  std::size_t count;
  int tag;
};

class PeerExchange {
 public:
  // A slot's flags guard chunks of this many bytes; a piece starts on a chunk.
  static constexpr std::size_t kChunkBytes = std::size_t(16) << 10;
  // The most pieces one way between a pair in one call.
  static constexpr int kMostPiecesPerPeer = 4;

  // Collective over `comm` (every rank gets the same answer): exchanges of up to `most_bytes`
  // (the largest over the ranks) each way between a pair, or null with the reason in
  // `why_not` (PeerAreas::map's reasons, a test exchange that came out wrong or waited more
  // than 10 s). The inboxes take 2 x ranks slots of about most_bytes each.
  static std::unique_ptr<PeerExchange> connect(MPI_Comm comm, std::size_t most_bytes, std::string& why_not);
  ~PeerExchange();
  PeerExchange(const PeerExchange&) = delete;
  PeerExchange& operator=(const PeerExchange&) = delete;

  // Queues on `space` the pieces of every pair it carries (pieces both ways, at most
  // kMostPiecesPerPeer and a slot's bytes each way) and removes them from `sends` and
  // `receives`; the rest is left for another transport. Work queued on `space` before the
  // call is done before anything is read; what arrives is in `receive` for work queued after.
  template <class T>
  void exchange(const Kokkos::DefaultExecutionSpace& space, const T* send, std::vector<ExchangePiece>& sends,
                T* receive, std::vector<ExchangePiece>& receives);

 private:
  PeerExchange() = default;
  void queue(const Kokkos::DefaultExecutionSpace& space, const char* send, std::size_t value_bytes,
             std::vector<ExchangePiece>& sends, char* receive, std::vector<ExchangePiece>& receives,
             std::uint64_t timeout_ns);
  std::unique_ptr<PeerAreas> areas_;
  std::size_t slot_data_bytes_ = 0, slot_bytes_ = 0;
  std::vector<unsigned> calls_;  // each pair's calls so far, by peer
  int* timed_out_ = nullptr;      // device flag of the test exchange
};

}  // namespace trident::transport
