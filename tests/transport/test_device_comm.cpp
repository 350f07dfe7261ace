// The device communication layer on whatever transport this build chooses (MPI on the CPU
// build; NCCL or host staging on a GPU build): pieces arrive where they were addressed, sums
// over ranks are exact on integers and repeatable, and bad TRIDENT_DEVICE_COMM values are
// refused by name.
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "support/test_support.hpp"
#include "transport/device_comm.hpp"
#include "transport/peer_sum.hpp"
#include "transport/queue_recording.hpp"

namespace trident {
namespace {

template <class T>
Kokkos::View<T*> device_copy(const std::vector<T>& values) {
  Kokkos::View<T*> view("device_copy", values.size());
  auto host = Kokkos::create_mirror_view(view);
  for (std::size_t i = 0; i < values.size(); ++i) host(i) = values[i];
  Kokkos::deep_copy(view, host);
  return view;
}

template <class T>
std::vector<T> host_copy(const Kokkos::View<T*>& view) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  return std::vector<T>(host.data(), host.data() + host.extent(0));
}

// A ring: each rank sends 3 numbers to the next rank and 2 to the previous one, from two
// places of one buffer, and receives into the matching places of another; with one rank
// the peers are MPI_PROC_NULL and the receive buffer keeps its fill.
TEST(MpiDeviceComm, RingExchangeDeliversEveryPieceToItsPlace) {
  const int rank = mpi::rank(MPI_COMM_WORLD), size = mpi::size(MPI_COMM_WORLD);
  transport::DeviceComm comm(MPI_COMM_WORLD, core::choose_transport(MPI_COMM_WORLD, test::this_rank_binding()));
  const int next = size > 1 ? (rank + 1) % size : MPI_PROC_NULL;
  const int previous = size > 1 ? (rank + size - 1) % size : MPI_PROC_NULL;
  std::vector<double> send(5);
  for (int i = 0; i < 5; ++i) send[i] = 100.0 * rank + i;
  auto send_view = device_copy(send);
  auto receive_view = device_copy(std::vector<double>(6, -1.0));
  // To next: send[0..3) into its receive[3..6); to previous: send[3..5) into its receive[0..2).
  const std::vector<transport::DeviceComm::Piece> sends = {{next, 0, 3, 1}, {previous, 3, 2, 0}};
  const std::vector<transport::DeviceComm::Piece> receives = {{previous, 3, 3, 1}, {next, 0, 2, 0}};
  comm.exchange(Kokkos::DefaultExecutionSpace(), send_view.data(), 5, sends, receive_view.data(), 6, receives);
  Kokkos::fence();
  const auto got = host_copy(receive_view);
  if (size == 1) {
    EXPECT_EQ(got, std::vector<double>(6, -1.0));
    return;
  }
  const double from_previous = 100.0 * previous, from_next = 100.0 * next;
  const std::vector<double> expected = {from_next + 3, from_next + 4, -1.0,
                                        from_previous + 0, from_previous + 1, from_previous + 2};
  EXPECT_EQ(got, expected);
}

TEST(MpiDeviceComm, AllReduceSumsOverRanksAndRepeatsBitwise) {
  const int rank = mpi::rank(MPI_COMM_WORLD), size = mpi::size(MPI_COMM_WORLD);
  transport::DeviceComm comm(MPI_COMM_WORLD, core::choose_transport(MPI_COMM_WORLD, test::this_rank_binding()));
  const std::size_t n = 1000;
  std::vector<std::int64_t> integers(n);
  std::vector<double> reals(n);
  for (std::size_t i = 0; i < n; ++i) {
    integers[i] = static_cast<std::int64_t>(i) * (rank + 1);
    reals[i] = 1.0 / (3.0 + i + 7.0 * rank);  // sums that round
  }
  auto integer_view = device_copy(integers);
  comm.all_reduce_sum(Kokkos::DefaultExecutionSpace(), integer_view.data(), n);
  const auto summed = host_copy(integer_view);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(summed[i], static_cast<std::int64_t>(i) * size * (size + 1) / 2) << "element " << i;

  auto first = device_copy(reals), second = device_copy(reals);
  comm.all_reduce_sum(Kokkos::DefaultExecutionSpace(), first.data(), n);
  comm.all_reduce_sum(Kokkos::DefaultExecutionSpace(), second.data(), n);
  const auto a = host_copy(first), b = host_copy(second);
  for (std::size_t i = 0; i < n; ++i) {
    double reference = 0.0;  // float64 sum in rank order
    for (int r = 0; r < size; ++r) reference += 1.0 / (3.0 + i + 7.0 * r);
    ASSERT_EQ(a[i], b[i]) << "element " << i << " differs between two identical reductions";
    ASSERT_NEAR(a[i], reference, 4e-16 * size * reference) << "element " << i;
  }
}

// With NCCL between the GPUs of one host, connect_peer_sums() routes sums through peer
// memory: every rank gets the float64 (float32) sum of the ranks' numbers added in rank
// order, bit for bit, call after call (the slots alternate by the call's parity, so many
// calls in a row with new numbers each time test that no call reads a slot the next one has
// overwritten), gathered up to PeerSum::kMostBytes and spread past it (shares of uneven
// length included), larger sums in several calls. Other transports keep their route (the
// CPU build: MPI), and their sums stay right.
template <class T>
void expect_rank_ordered_sums(transport::DeviceComm& comm, std::size_t n, int calls, bool exact) {
  const int rank = mpi::rank(MPI_COMM_WORLD), size = mpi::size(MPI_COMM_WORLD);
  const auto value = [](int r, std::size_t i, int call) {
    return static_cast<T>(1.0 / (3.0 + static_cast<double>(i) + 7.0 * r + 0.37 * call));
  };
  for (int call = 0; call < calls; ++call) {
    std::vector<T> mine(n);
    for (std::size_t i = 0; i < n; ++i) mine[i] = value(rank, i, call);
    auto view = device_copy(mine);
    comm.all_reduce_sum(Kokkos::DefaultExecutionSpace(), view.data(), n);
    const auto got = host_copy(view);
    for (std::size_t i = 0; i < n; ++i) {
      T reference = value(0, i, call);
      for (int r = 1; r < size; ++r) reference += value(r, i, call);
      if (exact) ASSERT_EQ(got[i], reference) << "element " << i << " of " << n << ", call " << call;
      else ASSERT_NEAR(got[i], reference, 4 * std::numeric_limits<T>::epsilon() * size * reference)
          << "element " << i << " of " << n << ", call " << call;
    }
  }
}

TEST(MpiDeviceComm, SumsThroughPeerMemoryAreTheRankOrderedSums) {
  // NCCL unstarted, as the ridge's row ranks make it: every sum through peer memory
  transport::DeviceComm comm(MPI_COMM_WORLD, core::choose_transport(MPI_COMM_WORLD, test::this_rank_binding()),
                        transport::DeviceComm::NcclStart::when_needed);
  comm.connect_peer_sums();
  const std::string route = comm.sums_route();
  const auto routes = mpi::gather_strings(MPI_COMM_WORLD, route);
  for (const auto& r : routes) EXPECT_EQ(r, routes.front());
  const bool peers = route == "peer memory";
  // GPUs of one host on a CUDA build with NCCL map each other's memory (the lent machines
  // do): not getting the peer route there is a failure, not a skip.
  const int size = mpi::size(MPI_COMM_WORLD);
  if (comm.transport() == core::Transport::nccl && size > 1) EXPECT_TRUE(peers) << route;
  else if (comm.transport() == core::Transport::nccl) EXPECT_EQ(route, "NCCL");
  else EXPECT_EQ(route, core::transport_name(comm.transport()));
  // Two numbers add the same either way round: any route gives the rank-ordered sum there.
  const bool exact = peers || size <= 2;
  const std::size_t most = transport::PeerSum::kMostBytes / sizeof(double);
  for (const std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(15011), most}) {
    expect_rank_ordered_sums<double>(comm, n, 20, exact);
    expect_rank_ordered_sums<float>(comm, n, 3, exact);
  }
  // Spread sums, gathered and spread calls in turn, and sums past one call's bytes.
  const std::size_t spread = transport::PeerSum::kMostSpreadBytes / sizeof(double);
  for (const std::size_t n : {most + 1, most + 3, spread - 1, spread}) {
    expect_rank_ordered_sums<double>(comm, n, 3, exact);
    expect_rank_ordered_sums<double>(comm, 700, 1, exact);
  }
  expect_rank_ordered_sums<float>(comm, 3 * most + 5, 3, exact);
  expect_rank_ordered_sums<double>(comm, spread + most + 9, 2, exact);
  expect_rank_ordered_sums<float>(comm, 5 * spread + 7, 2, exact);
}

// expect_sums: where the peer sums carry the sums, frequent sums of any size leave NCCL
// unstarted, and every sum stays recordable and rank-ordered.
TEST(MpiDeviceComm, FrequentLargeSumsStayInPeerMemory) {
  const int size = mpi::size(MPI_COMM_WORLD);
  const std::size_t most = transport::PeerSum::kMostBytes;
  transport::DeviceComm comm(MPI_COMM_WORLD, core::choose_transport(MPI_COMM_WORLD, test::this_rank_binding()),
                        transport::DeviceComm::NcclStart::when_needed);
  comm.connect_peer_sums();
  comm.expect_sums(4 * most + 8, 10 * most);
  const bool peers = comm.sums_route() == "peer memory";
  if (comm.transport() == core::Transport::nccl && size > 1) {
    EXPECT_TRUE(peers) << comm.sums_route();
    EXPECT_TRUE(comm.sum_recordable());
  }
  expect_rank_ordered_sums<double>(comm, (4 * most + 8) / sizeof(double), 4, peers || size <= 2);
}

// A sum through peer memory is one kernel that numbers its calls in device memory, so a
// recording (CUDA graph) of three sums (two gathered, one spread) replayed again and again, with direct calls after it,
// keeps giving every rank the rank-ordered sums of the numbers of that replay.
TEST(MpiDeviceComm, PeerSumsRecordedOnceAndReplayedStayTheRankOrderedSums) {
  const int rank = mpi::rank(MPI_COMM_WORLD), size = mpi::size(MPI_COMM_WORLD);
  transport::DeviceComm comm(MPI_COMM_WORLD, core::choose_transport(MPI_COMM_WORLD, test::this_rank_binding()),
                        transport::DeviceComm::NcclStart::when_needed);
  comm.connect_peer_sums();
  const std::string route = comm.sums_route();
  const bool peers = route == "peer memory";
  EXPECT_EQ(comm.sum_recordable(), peers || size == 1);
  if (!peers) GTEST_SKIP() << "no sums through peer memory here: " << route;
  const std::size_t n[3] = {15011, 700, transport::PeerSum::kMostBytes / sizeof(double) + 6001};  // the last spread
  const auto value = [](int r, std::size_t i, int round, int which) {
    return 1.0 / (3.0 + static_cast<double>(i) + 7.0 * r + 0.53 * round + 0.11 * which);
  };
  Kokkos::View<double*> views[3] = {Kokkos::View<double*>("a", n[0]), Kokkos::View<double*>("b", n[1]),
                                    Kokkos::View<double*>("c", n[2])};
  const auto fill = [&](int round) {
    for (int which = 0; which < 3; ++which) {
      auto host = Kokkos::create_mirror_view(views[which]);
      for (std::size_t i = 0; i < n[which]; ++i) host(i) = value(rank, i, round, which);
      Kokkos::deep_copy(views[which], host);
    }
  };
  const auto expect_sums = [&](int round) {
    for (int which = 0; which < 3; ++which) {
      const auto got = host_copy(views[which]);
      for (std::size_t i = 0; i < n[which]; ++i) {
        double reference = value(0, i, round, which);
        for (int r = 1; r < size; ++r) reference += value(r, i, round, which);
        ASSERT_EQ(got[i], reference) << "sum " << which << ", element " << i << ", round " << round;
      }
    }
  };
  const Kokkos::DefaultExecutionSpace space;
  transport::QueueRecording recording;
  std::string why_not;
  ASSERT_TRUE(recording.record(
      [&] {
        for (int which = 0; which < 3; ++which) comm.all_reduce_sum(space, views[which].data(), n[which]);
      },
      why_not))
      << why_not;
  for (int round = 0; round < 7; ++round) {
    fill(round);
    if (round < 5) {
      recording.replay();
    } else {  // direct calls after the replays
      for (int which = 0; which < 3; ++which) comm.all_reduce_sum(space, views[which].data(), n[which]);
    }
    Kokkos::fence();
    expect_sums(round);
  }
}

TEST(MpiDeviceComm, PeerSumsOffKeepsTheTransport) {
  transport::DeviceComm comm(MPI_COMM_WORLD, core::choose_transport(MPI_COMM_WORLD, test::this_rank_binding()));
  comm.connect_peer_sums(core::Switch::off);
  if (comm.transport() != core::Transport::nccl)
    EXPECT_EQ(comm.sums_route(), core::transport_name(comm.transport()));
  else if (mpi::size(MPI_COMM_WORLD) > 1)
    EXPECT_EQ(comm.sums_route(), "NCCL (no peer memory: TRIDENT_PEER_MEMORY=off)");
  else
    EXPECT_EQ(comm.sums_route(), "NCCL");  // one rank sums nothing
}

// After connect_peer_exchanges(), a halo-like exchange with each ring neighbour (pieces both
// ways, two to the next rank, pieces of several chunks and of a few numbers) delivers every
// number to its place call after call, the pairs' slots alternating; a gather to rank 0 in
// the same calls (pieces one way: on 4 ranks rank 2 sends to rank 0 alone) goes through MPI,
// where ranks 1 and 3 make no call (NCCL there would wait for them forever). With NCCL
// between the GPUs of one host the pairs go through peer memory; elsewhere the transport
// carries all.
template <class T>
void expect_ring_exchanges(transport::DeviceComm& comm, int calls) {
  const int rank = mpi::rank(MPI_COMM_WORLD), size = mpi::size(MPI_COMM_WORLD);
  const int next = (rank + 1) % size, previous = (rank + size - 1) % size;
  const std::size_t a = 7001, b = 4099, c = 33, g = 1500;  // A and C to next, B to previous
  const auto value = [](int from, int piece, std::size_t i, int call) {
    return static_cast<T>(from * 100000 + piece * 10000 + static_cast<double>(i) + call * 0.25);
  };
  const bool gathers = rank != 0;
  std::vector<transport::DeviceComm::Piece> sends = {{next, 0, a, 1}, {previous, a, b, 2}, {next, a + b, c, 3}};
  std::vector<transport::DeviceComm::Piece> receives = {{previous, 0, a, 1}, {next, a, b, 2}, {previous, a + b, c, 3}};
  if (gathers) sends.push_back({0, a + b + c, g, 4});
  if (rank == 0)
    for (int q = 1; q < size; ++q) receives.push_back({q, a + b + c + (q - 1) * g, g, 4});
  const std::size_t send_size = a + b + c + g, receive_size = a + b + c + std::size_t(size) * g;
  for (int call = 0; call < calls; ++call) {
    std::vector<T> send(send_size);
    for (std::size_t i = 0; i < a; ++i) send[i] = value(rank, 0, i, call);
    for (std::size_t i = 0; i < b; ++i) send[a + i] = value(rank, 1, i, call);
    for (std::size_t i = 0; i < c; ++i) send[a + b + i] = value(rank, 2, i, call);
    for (std::size_t i = 0; i < g; ++i) send[a + b + c + i] = value(rank, 3, i, call);
    auto send_view = device_copy(send);
    auto receive_view = device_copy(std::vector<T>(receive_size, T(-1)));
    comm.exchange<T>(Kokkos::DefaultExecutionSpace(), send_view.data(), send_size, sends, receive_view.data(),
                     receive_size, receives);
    Kokkos::fence();
    const auto got = host_copy(receive_view);
    for (std::size_t i = 0; i < a; ++i) ASSERT_EQ(got[i], value(previous, 0, i, call)) << "A " << i << ", call " << call;
    for (std::size_t i = 0; i < b; ++i) ASSERT_EQ(got[a + i], value(next, 1, i, call)) << "B " << i << ", call " << call;
    for (std::size_t i = 0; i < c; ++i)
      ASSERT_EQ(got[a + b + i], value(previous, 2, i, call)) << "C " << i << ", call " << call;
    for (int q = 1; q < size && rank == 0; ++q)
      for (std::size_t i = 0; i < g; ++i)
        ASSERT_EQ(got[a + b + c + (q - 1) * g + i], value(q, 3, i, call)) << "from rank " << q << ", " << i;
  }
}

TEST(MpiDeviceComm, PeerExchangesDeliverEveryPieceCallAfterCall) {
  const int size = mpi::size(MPI_COMM_WORLD);
  if (size == 1) GTEST_SKIP() << "one rank exchanges nothing";
  transport::DeviceComm comm(MPI_COMM_WORLD, core::choose_transport(MPI_COMM_WORLD, test::this_rank_binding()));
  comm.connect_peer_exchanges((7001 + 4099 + 33) * sizeof(double));
  const std::string route = comm.exchanges_route();
  const auto routes = mpi::gather_strings(MPI_COMM_WORLD, route);
  for (const auto& r : routes) EXPECT_EQ(r, routes.front());
  if (comm.transport() == core::Transport::nccl)
    EXPECT_EQ(route, std::string("peer memory between pairs, ") + core::transport_name(core::mpi_transport().transport) +
                         " for the rest");
  else EXPECT_EQ(route, core::transport_name(comm.transport()));
  expect_ring_exchanges<double>(comm, 9);
  expect_ring_exchanges<float>(comm, 4);
}

TEST(MpiDeviceComm, PeerMemoryOffKeepsTheTransportForExchanges) {
  if (mpi::size(MPI_COMM_WORLD) == 1) GTEST_SKIP() << "one rank exchanges nothing";
  transport::DeviceComm comm(MPI_COMM_WORLD, core::choose_transport(MPI_COMM_WORLD, test::this_rank_binding()));
  comm.connect_peer_exchanges(1 << 20, core::Switch::off);
  if (comm.transport() == core::Transport::nccl)
    EXPECT_EQ(comm.exchanges_route(), "NCCL (no peer memory: TRIDENT_PEER_MEMORY=off)");
  else
    EXPECT_EQ(comm.exchanges_route(), core::transport_name(comm.transport()));
  expect_ring_exchanges<double>(comm, 2);
}

TEST(MpiDeviceComm, AForcedTransportIsSaidToBeSet) {
  core::Overrides overrides;
  overrides.device_comm = "host-staging";
  const auto choice = core::choose_transport(MPI_COMM_WORLD, test::this_rank_binding(), overrides);
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Kokkos::DefaultExecutionSpace::memory_space>::accessible) {
    EXPECT_EQ(choice.transport, core::Transport::mpi);  // nothing to stage on host back ends
  } else {
    EXPECT_EQ(choice.transport, core::Transport::host_staging);
    EXPECT_EQ(choice.reason, "set by TRIDENT_DEVICE_COMM");
  }
}

TEST(MpiDeviceComm, TheChoiceIsTheSameOnEveryRankAndSaysWhy) {
  const auto choice = core::choose_transport(MPI_COMM_WORLD, test::this_rank_binding());
  EXPECT_FALSE(choice.reason.empty());
  const auto names = mpi::gather_strings(MPI_COMM_WORLD, choice.describe());
  for (const auto& name : names) EXPECT_EQ(name, names.front());
}

}  // namespace
}  // namespace trident
