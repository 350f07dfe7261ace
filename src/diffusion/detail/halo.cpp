#include "diffusion/detail/halo.hpp"

#include <mpi.h>

#include <algorithm>

#include "core/comm.hpp"
#include "core/error.hpp"

namespace trident::diffusion {

int halo_width_for(std::array<int, 2> blocks, std::int64_t nx, std::int64_t ny, std::int64_t requested,
                   bool periodic) {
  if (blocks[0] == 1 && blocks[1] == 1 && !periodic) return 1;
  // the last blocks along each axis are the smallest (remainders go to the first ones)
  const std::int64_t smallest = std::min(nx / blocks[0], ny / blocks[1]);
  if (requested <= 0) return static_cast<int>(std::min(kDefaultHaloWidth, smallest));
  if (requested > smallest) {
    throw InputError("diffusion.halo_width: expected at most " + std::to_string(smallest) +
                     ", the smallest block's side (" + std::to_string(blocks[0]) + " x " +
                     std::to_string(blocks[1]) + " blocks of the " + std::to_string(nx) + " x " +
                     std::to_string(ny) + " grid), got " + std::to_string(requested) +
                     "; a halo comes from the adjacent block alone");
  }
  return static_cast<int>(requested);
}

int halo_width_for(const Decomposition& d, std::int64_t requested, bool wrapped) {
  int width = 1;
  // The same on every rank (the smallest block is a global figure): thrown by all alike.
  const bool periodic = d.periodic()[0] || d.periodic()[1];
  mpi::collective(d.cart(), [&] { width = halo_width_for(d.dims(), d.nx(), d.ny(), requested, periodic); });
  if (wrapped && requested <= 0) width = static_cast<int>(std::min<std::int64_t>(width, kWrappedHaloWidth));
  return width;
}

namespace {

// The eight directions (dx east, dy north); a piece received from direction k was sent
// by that neighbour towards kOpposite[k].
constexpr int kDx[8] = {-1, 1, 0, 0, -1, 1, -1, 1};
constexpr int kDy[8] = {0, 0, -1, 1, -1, -1, 1, 1};
constexpr int kOpposite[8] = {1, 0, 3, 2, 7, 6, 5, 4};

// Cells [first, first + count) along one axis of a block of n cells with a w-deep halo:
// what goes towards direction `d` (the w cells on that edge, or all n), or what comes
// from it (the w halo cells beyond that edge).
void axis_part(int d, int n, int w, bool incoming, int& first, int& count) {
  if (d == 0) {
    first = w;
    count = n;
  } else {
    count = w;
    first = d < 0 ? (incoming ? 0 : w) : (incoming ? w + n : n);
  }
}

}  // namespace

template <class T>
HaloExchange<T>::HaloExchange(const Decomposition& d, transport::DeviceComm& comm, int width, core::Switch peer_memory)
    : comm_(comm),
      width_(width),
      queued_transfer_(comm.transport() == core::Transport::nccl),
      field_ready_(false),
      halo_ready_(false) {
  const int nx = static_cast<int>(d.x().size), ny = static_cast<int>(d.y().size), w = width_;
  // The 5-point stencil never reads a corner of a 1-deep halo; deeper ones need them.
  const int directions = w == 1 ? 4 : 8;
  const int me = mpi::rank(d.cart());
  for (int k = 0; k < directions; ++k) {
    const int peer = d.neighbour(kDx[k], kDy[k]);
    if (peer == MPI_PROC_NULL) continue;  // the domain's edge: its ghosts follow the boundary rule
    for (int incoming = 0; incoming < 2; ++incoming) {
      HaloRegions& regions = incoming ? receives_ : sends_;
      HaloRegion& r = regions.region[regions.count++];
      axis_part(kDx[k], nx, w, incoming, r.x0, r.columns);
      axis_part(kDy[k], ny, w, incoming, r.y0, r.rows);
      r.offset = regions.total;
      const std::int64_t count = std::int64_t(r.rows) * r.columns;
      regions.total += count;
      // Tags name the direction as the receiver sees it; NCCL ignores them (one piece
      // per pair of ranks and direction).
      if (peer == me) continue;  // paired with its receive below
      (incoming ? receive_pieces_ : send_pieces_)
          .push_back({peer, static_cast<std::size_t>(r.offset), static_cast<std::size_t>(count),
                      incoming ? k : kOpposite[k]});
    }
  }
  // A piece to itself (one block across a periodic axis) sent towards k arrives from
  // kOpposite[k]: the receive whose tag is the send's.
  for (int k = 0; k < directions; ++k) {
    if (d.neighbour(kDx[k], kDy[k]) != me) continue;
    int index = 0;
    for (int q = 0; q < k; ++q) index += d.neighbour(kDx[q], kDy[q]) != MPI_PROC_NULL ? 1 : 0;
    int from = 0;  // the receive region of direction kOpposite[k]
    for (int q = 0; q < kOpposite[k]; ++q) from += d.neighbour(kDx[q], kDy[q]) != MPI_PROC_NULL ? 1 : 0;
    const HaloRegion& sent = sends_.region[index];
    const HaloRegion& received = receives_.region[from];
    self_copies_.push_back({sent.offset, received.offset, std::int64_t(sent.rows) * sent.columns});
  }
  // Across a periodic axis with two blocks, one neighbour is there twice (or more): the
  // transports match a pair's pieces in the order listed, so both sides list them by tag.
  const auto by_tag = [](const transport::DeviceComm::Piece& a, const transport::DeviceComm::Piece& b) {
    return a.peer != b.peer ? a.peer < b.peer : a.tag < b.tag;
  };
  if (d.periodic()[0] || d.periodic()[1]) {
    std::stable_sort(send_pieces_.begin(), send_pieces_.end(), by_tag);
    std::stable_sort(receive_pieces_.begin(), receive_pieces_.end(), by_tag);
  }
  // The most bytes one way between this rank and a neighbour, for the peer memory's slots.
  std::size_t most_bytes = 0;
  for (const auto* pieces : {&send_pieces_, &receive_pieces_})
    for (const auto& p : *pieces) {
      std::size_t bytes = 0;
      for (const auto& q : *pieces)
        if (q.peer == p.peer) bytes += q.count * sizeof(T);
      most_bytes = std::max(most_bytes, bytes);
    }
  comm_.connect_peer_exchanges(most_bytes, peer_memory);
  send_ = Kokkos::View<T*>("trident::diffusion::halo_send", sends_.total);
  receive_ = Kokkos::View<T*>("trident::diffusion::halo_receive", receives_.total);
  // One exchange of the (zeroed) buffers now: NCCL (where peer memory does not carry the
  // halos) connects each pair of ranks on their first send and receive, a host-side wait
  // that would otherwise land in the first step's timer. What arrives is overwritten by
  // every real exchange before it is unpacked.
  transfer();
  side_.space().fence();
}

namespace {
// Which region of `regions` holds buffer index k, and where in the grid.
KOKKOS_INLINE_FUNCTION void locate(const HaloRegions& regions, std::int64_t k, int& j, int& i) {
  int p = 0;
  while (p + 1 < regions.count && k >= regions.region[p + 1].offset) ++p;
  const HaloRegion& r = regions.region[p];
  const std::int64_t local = k - r.offset;
  j = r.y0 + static_cast<int>(local / r.columns);
  i = r.x0 + static_cast<int>(local % r.columns);
}
}  // namespace

template <class T>
void HaloExchange<T>::start(const ExecutionSpace& compute, const Grid<T>& u) {
  if (sends_.count == 0) return;
  field_ready_.record(compute);
  field_ready_.wait_on(side_.space());
  const HaloRegions regions = sends_;
  const auto send = send_;
  Kokkos::parallel_for(
      "trident::diffusion::halo_pack", Kokkos::RangePolicy<ExecutionSpace>(side_.space(), 0, regions.total),
      KOKKOS_LAMBDA(const std::int64_t k) {
        int j, i;
        locate(regions, k, j, i);
        send(k) = u(j, i);
      });
  if (queued_transfer_) transfer();
}

template <class T>
void HaloExchange<T>::transfer() {
  if (!send_pieces_.empty() || !receive_pieces_.empty())
    comm_.exchange<T>(side_.space(), send_.data(), send_.extent(0), send_pieces_, receive_.data(), receive_.extent(0),
                      receive_pieces_);
  for (const SelfCopy& c : self_copies_) {
    const auto from = Kokkos::subview(send_, std::make_pair(c.from, c.from + c.count));
    const auto to = Kokkos::subview(receive_, std::make_pair(c.to, c.to + c.count));
    Kokkos::deep_copy(side_.space(), to, from);
  }
}

template <class T>
void HaloExchange<T>::finish(const ExecutionSpace& compute, const Grid<T>& u) {
  if (receives_.count == 0) return;
  if (!queued_transfer_) transfer();
  const HaloRegions regions = receives_;
  const auto receive = receive_;
  Kokkos::parallel_for(
      "trident::diffusion::halo_unpack", Kokkos::RangePolicy<ExecutionSpace>(side_.space(), 0, regions.total),
      KOKKOS_LAMBDA(const std::int64_t k) {
        int j, i;
        locate(regions, k, j, i);
        u(j, i) = receive(k);
      });
  halo_ready_.record(side_.space());
  halo_ready_.wait_on(compute);
}

template class HaloExchange<float>;
template class HaloExchange<double>;

}  // namespace trident::diffusion
