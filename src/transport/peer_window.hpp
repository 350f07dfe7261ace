#pragma once
// A gather to one rank's device through peer memory: `root` owns a device buffer that the
// other ranks of its host map (transport/peer_areas.hpp), and put_all() copies each rank's piece
// into it, GPU to GPU, with no NCCL. The ranks meet (MPI_Barrier) before the copies, once
// the root is done with the buffer's last contents, and after them, so that the root reads
// the buffer only once every piece is in. Meant for data gathered now and then (a diffusion
// frame), where two barriers a call cost nothing beside the bytes.
#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>

namespace trident::transport {

class PeerAreas;

class PeerWindow {
 public:
  // Collective over `comm` (every rank gets the same answer): `bytes` of device memory on
  // `root` that the other ranks map, or null with the reason in `why_not` (PeerAreas::map's).
  static std::unique_ptr<PeerWindow> open(MPI_Comm comm, int root, std::size_t bytes, std::string& why_not);
  ~PeerWindow();
  PeerWindow(const PeerWindow&) = delete;
  PeerWindow& operator=(const PeerWindow&) = delete;

  // The root's buffer (on the root; elsewhere null).
  char* data() const;

  // Collective: every rank but the root copies `bytes` of device memory at `from` to
  // `offset` of the root's buffer; returns once all have landed. Work queued on `space`
  // before the call (the root's reads of the buffer, the others' writes of `from`) is done
  // before anything is copied.
  void put_all(const Kokkos::DefaultExecutionSpace& space, const void* from, std::size_t bytes, std::size_t offset);

 private:
  PeerWindow() = default;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int root_ = 0;
  std::unique_ptr<PeerAreas> areas_;
};

}  // namespace trident::transport
