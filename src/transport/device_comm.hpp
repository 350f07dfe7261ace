#pragma once
// The one way device data travels between ranks: halos (point-to-point exchanges) and
// sums over ranks (all-reduces), on the transport chosen once per run
// (core/transport_choice.hpp): NCCL, queued on the caller's stream (its id travels by
// MPI_Bcast, so a plain MPI launcher, mpirun or srun, is all it needs), MPI with device
// pointers or host memory, or MPI on page-locked host copies (host-staging). With NCCL,
// between the GPUs of one host, sums (connect_peer_sums, transport/peer_sum.hpp) and exchanges
// both ways between pairs of ranks (connect_peer_exchanges, transport/peer_exchange.hpp) may go
// through peer memory instead; a job whose data all travels that way never starts NCCL.
// Results do not depend on the transport for exchanges (they move bits). Sums over ranks
// are repeatable run to run for a given rank count and transport (fixed reduction order);
// across rank counts or transports they agree to rounding.
#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/overrides.hpp"
#include "core/transport_choice.hpp"
#include "transport/nccl_comm.hpp"
#include "transport/peer_exchange.hpp"

namespace trident::transport {

class PeerSum;  // transport/peer_sum.hpp

class DeviceComm {
 public:
  using ExecutionSpace = Kokkos::DefaultExecutionSpace;

  // When NCCL's communicator is started: at once (made while the caller goes on setting up),
  // or when first needed (expect_sums() or the first call that uses it).
  enum class NcclStart { at_once, when_needed };

  // Collective over `comm` (which it duplicates); with NCCL chosen, starts its communicator
  // as `start` says (transport/nccl_comm.hpp): the first call that needs it waits for it.
  DeviceComm(MPI_Comm comm, const core::TransportChoice& choice, NcclStart start = NcclStart::at_once);
  ~DeviceComm();
  DeviceComm(const DeviceComm&) = delete;
  DeviceComm& operator=(const DeviceComm&) = delete;

  core::Transport transport() const { return choice_.transport; }
  const core::TransportChoice& choice() const { return choice_; }
  MPI_Comm mpi_comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  // Whether device buffers travel between devices without a copy through host memory
  // (NCCL, or an MPI that takes device pointers on a GPU build).
  bool device_to_device() const;

  // One piece of an exchange: `count` numbers at `offset` of the send or receive buffer,
  // to or from `peer` (a rank of this communicator; MPI_PROC_NULL pieces are skipped).
  // NCCL has no tags: two pieces between the same pair of ranks in one exchange are matched
  // in the order they are listed, so list them in the same order on both sides.
  using Piece = ExchangePiece;

  // Sends and receives all pieces together. `send` and `receive` are device buffers of
  // send_size and receive_size numbers. Work queued on `space` before the call is done
  // before anything is sent; the received numbers are in `receive` for work queued on
  // `space` after the call. With NCCL the call returns once queued; with MPI it returns
  // when the transfer is complete (other streams keep running meanwhile).
  template <class T>
  void exchange(const ExecutionSpace& space, const T* send, std::size_t send_size,
                const std::vector<Piece>& sends, T* receive, std::size_t receive_size,
                const std::vector<Piece>& receives);

  // data[0..count) <- its sum over ranks, in place, on the device; ordered on `space`
  // as exchange() is. After connect_peer_sums(), sums of float or double go through peer
  // memory (transport/peer_sum.hpp, in calls of up to PeerSum::kMostSpreadBytes) instead of NCCL.
  template <class T>
  void all_reduce_sum(const ExecutionSpace& space, T* data, std::size_t count);

  // Collective: with NCCL between the GPUs of one host that map each other's memory, sums
  // through peer memory from now on (one kernel, no NCCL launch: on two H100s the ridge's
  // small per-iteration all-reduce is latency-bound through NCCL). Switch::off
  // (TRIDENT_PEER_MEMORY=off) keeps NCCL; automatic connects where possible.
  void connect_peer_sums(core::Switch peer_memory = core::Switch::automatic);
  // Collective, the same where it applies: exchanges of up to `most_bytes` each way between a
  // pair of ranks that send to each other in a call go through peer memory from now on
  // (halos); other pieces go through MPI (NCCL's set-up is collective, and a rank whose
  // pieces all went through peer memory makes no call to it). Calls to exchange() after it
  // are queued on one stream, or in order.
  void connect_peer_exchanges(std::size_t most_bytes, core::Switch peer_memory = core::Switch::automatic);
  // Collective: sums of `frequent` bytes will be asked for again and again, and none of
  // more than `largest`. Starts NCCL's communicator now (connected for `largest`) unless the
  // peer sums carry them, so that its set-up runs beside the caller's.
  void expect_sums(std::size_t frequent, std::size_t largest);
  // Collective: waits for NCCL's communicator if it was started (before recording streams:
  // its set-up must not run beside a capture).
  void wait_until_ready();
  // Whether all_reduce_sum queues device work alone, which a recording of the stream
  // (transport::QueueRecording) may hold: the sums through peer memory.
  bool sum_recordable() const;
  // How all_reduce_sum travels, for the run log: "NCCL", "peer memory", "NCCL (no peer
  // memory: <why>)", or the MPI transport's name.
  std::string sums_route() const;
  // How exchanges travel, for the run log: "peer memory between pairs, host-staging for the
  // rest" (or mpi), "NCCL (no peer memory: <why>)", or the MPI transport's name.
  std::string exchanges_route() const;
  // Whether connect_peer_exchanges() connected.
  bool peer_exchanges() const { return peer_exchange_ != nullptr; }
  // Seconds of set-up this rank has spent so far on its thread: starting NCCL's
  // communicator, waiting for it, the host side of the first exchange and the first sum
  // (where NCCL connects the ranks), the peer sums' mappings (the timer table's
  // "<study>.device_comm").
  double setup_seconds() const { return setup_seconds_; }

 private:
  // exchange() by `transport` (NCCL, or MPI with or without host staging).
  template <class T>
  void send_by_transport(const ExecutionSpace& space, core::Transport transport, const T* send, std::size_t send_size,
                         const std::vector<Piece>& sends, T* receive, std::size_t receive_size,
                         const std::vector<Piece>& receives);
  // Page-locked host buffers of at least `bytes`, grown when needed and then reused.
  char* staging_send(std::size_t bytes);
  char* staging_receive(std::size_t bytes);

  core::TransportChoice choice_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  void* nccl();  // the communicator, waited for (timed as set-up)
  NcclComm nccl_;
  bool exchanged_ = false, summed_ = false;  // first calls timed as set-up
  struct Staging;
  std::unique_ptr<Staging> staging_;
  std::unique_ptr<PeerSum> peer_sum_;
  std::string no_peer_sums_;  // why connect_peer_sums() found none
  std::unique_ptr<PeerExchange> peer_exchange_;
  std::string no_peer_exchanges_;  // why connect_peer_exchanges() found none
  double setup_seconds_ = 0;
};

}  // namespace trident::transport
