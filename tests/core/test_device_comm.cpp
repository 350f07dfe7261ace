// The device communication layer on whatever transport this build chooses (MPI on the CPU
// build; NCCL or host staging on a GPU build): pieces arrive where they were addressed, sums
// over ranks are exact on integers and repeatable, and bad TRIDENT_DEVICE_COMM values are
// refused by name.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "core/comm.hpp"
#include "core/device_comm.hpp"
#include "core/error.hpp"
#include "support/test_support.hpp"

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
  core::DeviceComm comm(MPI_COMM_WORLD, core::choose_transport(MPI_COMM_WORLD, test::this_rank_binding()));
  const int next = size > 1 ? (rank + 1) % size : MPI_PROC_NULL;
  const int previous = size > 1 ? (rank + size - 1) % size : MPI_PROC_NULL;
  std::vector<double> send(5);
  for (int i = 0; i < 5; ++i) send[i] = 100.0 * rank + i;
  auto send_view = device_copy(send);
  auto receive_view = device_copy(std::vector<double>(6, -1.0));
  // To next: send[0..3) into its receive[3..6); to previous: send[3..5) into its receive[0..2).
  const std::vector<core::DeviceComm::Piece> sends = {{next, 0, 3, 1}, {previous, 3, 2, 0}};
  const std::vector<core::DeviceComm::Piece> receives = {{previous, 3, 3, 1}, {next, 0, 2, 0}};
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
  core::DeviceComm comm(MPI_COMM_WORLD, core::choose_transport(MPI_COMM_WORLD, test::this_rank_binding()));
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

TEST(MpiDeviceComm, ATransportNameNotKnownIsRefusedByName) {
  setenv("TRIDENT_DEVICE_COMM", "infiniband", 1);
  const std::string message = test::input_error_message(
      [] { core::choose_transport(MPI_COMM_WORLD, test::this_rank_binding()); });
  unsetenv("TRIDENT_DEVICE_COMM");
  EXPECT_EQ(message, "TRIDENT_DEVICE_COMM: expected auto, nccl, mpi or host-staging, got 'infiniband'");
}

TEST(MpiDeviceComm, TheChoiceIsTheSameOnEveryRankAndSaysWhy) {
  const auto choice = core::choose_transport(MPI_COMM_WORLD, test::this_rank_binding());
  EXPECT_FALSE(choice.reason.empty());
  const auto names = mpi::gather_strings(MPI_COMM_WORLD, choice.describe());
  for (const auto& name : names) EXPECT_EQ(name, names.front());
}

}  // namespace
}  // namespace trident
