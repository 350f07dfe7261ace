#pragma once
// Device memory that the ranks of one host share through CUDA IPC: every rank allocates an
// area, zeroed, and maps every other rank's, so that a kernel or a copy of one rank reads
// and writes the others' areas directly (NVLink, or PCIe peer access). The ground under the
// sums (transport/peer_sum.hpp), the exchanges (transport/peer_exchange.hpp) and the gathers
// (transport/peer_window.hpp) through peer memory.
#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>

namespace trident::transport {

class PeerAreas {
 public:
  static constexpr int kMostRanks = 16;

  // Collective over `comm` (every rank gets the same answer): the mapped areas, this rank's
  // of `bytes` (0: none, area() is null), or null with the reason in `why_not` (not a CUDA
  // build, more than kMostRanks ranks, ranks on several hosts, no device memory, a GPU that
  // cannot map another's).
  static std::unique_ptr<PeerAreas> map(MPI_Comm comm, std::size_t bytes, std::string& why_not);
  ~PeerAreas();
  PeerAreas(const PeerAreas&) = delete;
  PeerAreas& operator=(const PeerAreas&) = delete;

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  // Rank q's area as this rank addresses it (its own for q == rank()).
  char* area(int q) const { return base_[q]; }

 private:
  PeerAreas() = default;
  int rank_ = 0, ranks_ = 1;
  char* base_[kMostRanks] = {};
};

// Whether `mine` holds on every rank of `comm` (collective).
bool on_all_ranks(MPI_Comm comm, bool mine);
// Collective, after a set-up step that may fail on some ranks (`mine`: this rank's failure,
// empty if none): whether it failed anywhere; if so, clears the CUDA error state and puts
// this rank's failure, or that another rank failed at `step`, in `why_not`.
bool failed_on_any_rank(MPI_Comm comm, const std::string& mine, const std::string& step, std::string& why_not);

}  // namespace trident::transport
