#pragma once
// Halo exchange of a block's w-cell border with its neighbours through transport::DeviceComm
// (peer memory between the GPUs of one host, NCCL, MPI with device pointers, or host
// staging). The send side packs the edges (and, for w > 1, the w x w corners, which deep
// halos need for the diagonal cells of the stencil's reach) into one device buffer with
// one kernel; the receive side unpacks one buffer. Packing, transfer and unpacking run on
// a side stream of their own, so that the caller can update the block's inside on the
// default instance meanwhile:
//   start(compute, u)   pack after the work queued on `compute`; peer memory and NCCL also
//                       queue the transfer
//   ... queue the work that needs no halo on `compute` ...
//   finish(compute, u)  MPI transports: the host waits for the transfer here (the queued
//                       kernels keep running); then unpack, and work queued on `compute`
//                       after this call sees the halos.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "transport/device_comm.hpp"
#include "transport/side_stream.hpp"
#include "diffusion/detail/decomposition.hpp"
#include "diffusion/detail/stencil.hpp"

namespace trident::diffusion {

// The halo depth for `d`: 1 when the block is alone (nothing is exchanged); `requested`
// when the deck sets diffusion.halo_width (> 0), which must not exceed the smallest
// block's side (InputError naming the key otherwise); else kDefaultHaloWidth, or the
// smallest block's side when that is less. The bytes sent a step do not depend on the
// width; a wider halo pays an exchange's latency and the strips updated after it once per
// more steps, for a little recomputation at the block's edges (64 was the fastest of 16,
// 32 and 64 on four GPUs at 2000^2 and 8192^2: docs/history/diffusion.md).
constexpr std::int64_t kDefaultHaloWidth = 64;
// A block alone across a periodic axis is its own neighbour there: it has a halo as if it
// had neighbours. But where its trips read those axes wrapped (`wrapped`: Stepper's
// fold_sides) the halo serves its single steps alone, and is kWrappedHaloWidth deep unless
// the deck asks otherwise: the grid's pitch with 16 to 64 cells of halo took the periodic
// 8192^2 float64 deck 2 % longer a step (docs/history/diffusion-boundaries.md).
constexpr std::int64_t kWrappedHaloWidth = 8;
int halo_width_for(const Decomposition& d, std::int64_t requested, bool wrapped = false);
// The same for `blocks` (ranks along x, y) over an nx x ny grid, on one rank: InputError,
// not collective (validate checks a job of another size with it).
int halo_width_for(std::array<int, 2> blocks, std::int64_t nx, std::int64_t ny, std::int64_t requested,
                   bool periodic = false);

// Where a piece of the halo lies in the grid and in the buffer.
struct HaloRegion {
  int y0, x0, rows, columns;
  std::int64_t offset;  // in the buffer
};
constexpr int kMaxHaloRegions = 8;  // 4 edges and 4 corners
struct HaloRegions {
  int count = 0;
  HaloRegion region[kMaxHaloRegions];
  std::int64_t total = 0;
};

template <class T>
class HaloExchange {
 public:
  // Collective over d.cart(): connects `comm`'s exchanges through peer memory where
  // `peer_memory` and the machine allow (transport::DeviceComm::connect_peer_exchanges).
  HaloExchange(const Decomposition& d, transport::DeviceComm& comm, int width,
               core::Switch peer_memory = core::Switch::automatic);
  int width() const { return width_; }
  void start(const ExecutionSpace& compute, const Grid<T>& u);
  void finish(const ExecutionSpace& compute, const Grid<T>& u);
  void exchange(const ExecutionSpace& compute, const Grid<T>& u) {
    start(compute, u);
    finish(compute, u);
  }
  std::int64_t values_sent() const { return sends_.total; }

 private:
  void transfer();
  transport::DeviceComm& comm_;
  int width_;
  bool queued_transfer_;  // NCCL: the transfer is queued on the side stream by start()
  HaloRegions sends_, receives_;
  std::vector<transport::DeviceComm::Piece> send_pieces_, receive_pieces_;
  // Pieces a block sends to itself across a periodic axis with one block: copied from the
  // send buffer into the receive buffer (offset sent, offset received, count).
  struct SelfCopy {
    std::int64_t from, to, count;
  };
  std::vector<SelfCopy> self_copies_;
  Kokkos::View<T*> send_, receive_;
  transport::SideStream side_;
  transport::QueueMark field_ready_, halo_ready_;
};

}  // namespace trident::diffusion
