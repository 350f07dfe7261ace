#include "transport/device_comm.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/timers.hpp"
#include "transport/peer_exchange.hpp"
#include "transport/peer_sum.hpp"
#include "transport/pinned_host_space.hpp"

#if defined(TRIDENT_HAVE_NCCL)
#include <nccl.h>
#endif

namespace trident::transport {

namespace {

constexpr bool kDeviceMemoryIsHostMemory =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                               Kokkos::DefaultExecutionSpace::memory_space>::accessible;

using StagingSpace = PinnedHostSpace;

}  // namespace

struct DeviceComm::Staging {
  Kokkos::View<char*, StagingSpace> send, receive;
};

#if defined(TRIDENT_HAVE_NCCL)
namespace {
void check_nccl(ncclResult_t result, const char* what) {
  if (result != ncclSuccess)
    throw RunError(std::string("NCCL ") + what + " failed: " + ncclGetErrorString(result));
}
template <class T>
ncclDataType_t nccl_type();
template <> ncclDataType_t nccl_type<float>() { return ncclFloat32; }
template <> ncclDataType_t nccl_type<double>() { return ncclFloat64; }
template <> ncclDataType_t nccl_type<std::int64_t>() { return ncclInt64; }
cudaStream_t stream_of(const Kokkos::DefaultExecutionSpace& space) { return space.cuda_stream(); }
}  // namespace
#endif

DeviceComm::DeviceComm(MPI_Comm comm, const core::TransportChoice& choice, const NcclStart start)
    : choice_(choice), staging_(std::make_unique<Staging>()) {
  const double begin = wall_seconds();
  MPI_Comm_dup(comm, &comm_);
  rank_ = mpi::rank(comm_);
  size_ = mpi::size(comm_);
  if (choice_.transport == core::Transport::nccl && start == NcclStart::at_once) nccl_.start(comm_);
  setup_seconds_ = wall_seconds() - begin;
}

DeviceComm::~DeviceComm() {
  mpi::free_comm(comm_);
}

void* DeviceComm::nccl() {
  const double begin = wall_seconds();
  void* comm = nccl_.get(comm_);
  setup_seconds_ += wall_seconds() - begin;
  return comm;
}

bool DeviceComm::device_to_device() const {
  return choice_.transport == core::Transport::nccl || (choice_.transport == core::Transport::mpi && !kDeviceMemoryIsHostMemory);
}

char* DeviceComm::staging_send(std::size_t bytes) {
  if (staging_->send.extent(0) < bytes)
    staging_->send = Kokkos::View<char*, StagingSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::core::staging_send"), bytes);
  return staging_->send.data();
}

char* DeviceComm::staging_receive(std::size_t bytes) {
  if (staging_->receive.extent(0) < bytes)
    staging_->receive = Kokkos::View<char*, StagingSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::core::staging_receive"), bytes);
  return staging_->receive.data();
}

namespace {
// Unmanaged views of raw buffers, for deep_copy on a stream.
template <class T>
using DeviceBuffer = Kokkos::View<T*, Kokkos::DefaultExecutionSpace::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class T>
using StagingBuffer = Kokkos::View<T*, StagingSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class T>
DeviceBuffer<T> device_view(T* data, std::size_t count) { return DeviceBuffer<T>(data, count); }
template <class T>
StagingBuffer<T> host_view(char* data, std::size_t count) { return StagingBuffer<T>(reinterpret_cast<T*>(data), count); }
}  // namespace

template <class T>
void DeviceComm::exchange(const ExecutionSpace& space, const T* send, std::size_t send_size,
                          const std::vector<Piece>& sends, T* receive, std::size_t receive_size,
                          const std::vector<Piece>& receives) {
  if (peer_exchange_ != nullptr) {
    std::vector<Piece> other_sends = sends, other_receives = receives;
    peer_exchange_->exchange<T>(space, send, other_sends, receive, other_receives);
    // What peer memory does not carry goes through MPI, not NCCL: the ranks whose pieces
    // all went through peer memory make no call here, and NCCL's set-up is collective.
    if (other_sends.empty() && other_receives.empty()) return;
    send_by_transport(space, core::mpi_transport().transport, send, send_size, other_sends, receive, receive_size,
                      other_receives);
    return;
  }
  send_by_transport(space, choice_.transport, send, send_size, sends, receive, receive_size, receives);
}

template <class T>
void DeviceComm::send_by_transport(const ExecutionSpace& space, const core::Transport transport, const T* send,
                                   std::size_t send_size, const std::vector<Piece>& sends, T* receive,
                                   std::size_t receive_size, const std::vector<Piece>& receives) {
#if defined(TRIDENT_HAVE_NCCL)
  if (transport == core::Transport::nccl) {
    const auto comm = static_cast<ncclComm_t>(nccl());
    const double begin = wall_seconds();
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (const Piece& p : receives)
      if (p.peer != MPI_PROC_NULL && p.count > 0)
        check_nccl(ncclRecv(receive + p.offset, p.count, nccl_type<T>(), p.peer, comm, stream_of(space)), "ncclRecv");
    for (const Piece& p : sends)
      if (p.peer != MPI_PROC_NULL && p.count > 0)
        check_nccl(ncclSend(send + p.offset, p.count, nccl_type<T>(), p.peer, comm, stream_of(space)), "ncclSend");
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");  // the first one connects the pairs of ranks
    if (!exchanged_) setup_seconds_ += wall_seconds() - begin;
    exchanged_ = true;
    return;
  }
#endif
  const T* send_from = send;
  T* receive_into = receive;
  const bool staged = transport == core::Transport::host_staging;
  if (staged) {
    auto host_send = host_view<T>(staging_send(send_size * sizeof(T)), send_size);
    Kokkos::deep_copy(space, host_send, device_view(const_cast<T*>(send), send_size));
    send_from = host_send.data();
    receive_into = reinterpret_cast<T*>(staging_receive(receive_size * sizeof(T)));
  }
  space.fence();  // MPI reads the buffers from the host thread
  // MPI counts are int: a longer piece travels as several messages, matched in order.
  constexpr std::size_t kMostPerMessage = std::size_t(1) << 30;
  std::vector<MPI_Request> requests;
  const MPI_Datatype type = mpi::datatype<T>();
  for (const Piece& p : receives)
    for (std::size_t at = 0; at < p.count || at == 0; at += kMostPerMessage) {
      requests.emplace_back();
      MPI_Irecv(receive_into + p.offset + at, static_cast<int>(std::min(kMostPerMessage, p.count - at)), type,
                p.peer, p.tag, comm_, &requests.back());
    }
  for (const Piece& p : sends)
    for (std::size_t at = 0; at < p.count || at == 0; at += kMostPerMessage) {
      requests.emplace_back();
      MPI_Isend(send_from + p.offset + at, static_cast<int>(std::min(kMostPerMessage, p.count - at)), type,
                p.peer, p.tag, comm_, &requests.back());
    }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  if (staged) {  // only what arrived: the rest of `receive` keeps its contents, as with NCCL
    const auto device = device_view(receive, receive_size);
    const auto host = host_view<T>(reinterpret_cast<char*>(receive_into), receive_size);
    for (const Piece& p : receives) {
      if (p.peer == MPI_PROC_NULL || p.count == 0) continue;
      const auto range = std::make_pair(p.offset, p.offset + p.count);
      Kokkos::deep_copy(space, Kokkos::subview(device, range), Kokkos::subview(host, range));
    }
  }
}

void DeviceComm::connect_peer_sums(const core::Switch peer_memory) {
  if (size_ == 1 || choice_.transport != core::Transport::nccl || peer_sum_ != nullptr) return;
  if (peer_memory == core::Switch::off) {
    no_peer_sums_ = "TRIDENT_PEER_MEMORY=off";
    return;
  }
  const double start = wall_seconds();
  peer_sum_ = PeerSum::connect(comm_, no_peer_sums_);
  setup_seconds_ += wall_seconds() - start;
}

void DeviceComm::connect_peer_exchanges(const std::size_t most_bytes, const core::Switch peer_memory) {
  if (size_ == 1 || choice_.transport != core::Transport::nccl || peer_exchange_ != nullptr) return;
  if (peer_memory == core::Switch::off) {
    no_peer_exchanges_ = "TRIDENT_PEER_MEMORY=off";
    return;
  }
  const double start = wall_seconds();
  peer_exchange_ = PeerExchange::connect(comm_, most_bytes, no_peer_exchanges_);
  setup_seconds_ += wall_seconds() - start;
}

void DeviceComm::expect_sums(const std::size_t frequent, const std::size_t largest) {
  if (choice_.transport != core::Transport::nccl || size_ == 1 || peer_sum_ != nullptr) return;
  const double begin = wall_seconds();
  nccl_.start(comm_, std::max(frequent, largest));
  setup_seconds_ += wall_seconds() - begin;
}

void DeviceComm::wait_until_ready() {
  if (nccl_.started()) nccl();
}

std::string DeviceComm::exchanges_route() const {
  if (choice_.transport != core::Transport::nccl) return core::transport_name(choice_.transport);
  if (peer_exchange_ != nullptr)
    return std::string("peer memory between pairs, ") + core::transport_name(core::mpi_transport().transport) + " for the rest";
  if (!no_peer_exchanges_.empty()) return "NCCL (no peer memory: " + no_peer_exchanges_ + ")";
  return "NCCL";
}

bool DeviceComm::sum_recordable() const { return size_ == 1 || peer_sum_ != nullptr; }

std::string DeviceComm::sums_route() const {
  if (choice_.transport != core::Transport::nccl) return core::transport_name(choice_.transport);
  if (peer_sum_ != nullptr) return "peer memory";
  if (!no_peer_sums_.empty()) return "NCCL (no peer memory: " + no_peer_sums_ + ")";
  return "NCCL";
}

template <class T>
void DeviceComm::all_reduce_sum(const ExecutionSpace& space, T* data, std::size_t count) {
  if (size_ == 1) return;
  if constexpr (std::is_floating_point_v<T>) {
    if (peer_sum_ != nullptr) {
      // in calls of at most kMostSpreadBytes, each a rank-ordered sum
      constexpr std::size_t kMostCount = PeerSum::kMostSpreadBytes / sizeof(T);
      for (std::size_t at = 0; at < count; at += kMostCount)
        peer_sum_->sum(space, data + at, std::min(kMostCount, count - at));
      return;
    }
  }
#if defined(TRIDENT_HAVE_NCCL)
  if (choice_.transport == core::Transport::nccl) {
    const auto comm = static_cast<ncclComm_t>(nccl());
    const double begin = wall_seconds();
    check_nccl(ncclAllReduce(data, data, count, nccl_type<T>(), ncclSum, comm, stream_of(space)), "ncclAllReduce");
    if (!summed_) setup_seconds_ += wall_seconds() - begin;  // the first one connects the ranks
    summed_ = true;
    return;
  }
#endif
  T* reduce_in = data;
  const bool staged = choice_.transport == core::Transport::host_staging;
  if (staged) {
    auto host = host_view<T>(staging_send(count * sizeof(T)), count);
    Kokkos::deep_copy(space, host, device_view(data, count));
    reduce_in = host.data();
  }
  space.fence();
  MPI_Allreduce(MPI_IN_PLACE, reduce_in, static_cast<int>(count), mpi::datatype<T>(), MPI_SUM, comm_);
  if (staged)
    Kokkos::deep_copy(space, device_view(data, count), host_view<T>(reinterpret_cast<char*>(reduce_in), count));
}

template void DeviceComm::exchange<float>(const ExecutionSpace&, const float*, std::size_t, const std::vector<Piece>&,
                                          float*, std::size_t, const std::vector<Piece>&);
template void DeviceComm::exchange<double>(const ExecutionSpace&, const double*, std::size_t,
                                           const std::vector<Piece>&, double*, std::size_t,
                                           const std::vector<Piece>&);
template void DeviceComm::all_reduce_sum<float>(const ExecutionSpace&, float*, std::size_t);
template void DeviceComm::all_reduce_sum<double>(const ExecutionSpace&, double*, std::size_t);
template void DeviceComm::all_reduce_sum<std::int64_t>(const ExecutionSpace&, std::int64_t*, std::size_t);

}  // namespace trident::transport
