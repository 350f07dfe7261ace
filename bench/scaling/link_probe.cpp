// The link between ranks as NCCL carries device data over it, measured the way trident uses
// it: messages between ranks 0 and 1 one way at a time, the same both ways at once between
// every pair of ranks (2r, 2r + 1: a halo exchange's traffic), and the all-reduce over every
// rank (ridge's sums), each timed over many calls queued on one stream. bench/scaling/bench.sh
// runs it under SCALING_NETWORK=1 with the forced network's settings, and
// bench/scaling/model.py --check puts the fitted link into the model's forced-network terms,
// so that the check tests the model's messages (how many, how large, what hides them) rather
// than the speed of a network it assumed.
//
//   mpirun -n P trident_link_probe      (P >= 2; one GPU a rank: the launcher's local rank)
// Prints, from rank 0:
//   probe p2p BYTES SECONDS              one-way time of a message (half a round trip)
//   probe exchange BYTES SECONDS         BYTES each way between the ranks of each pair, at once
//   probe allreduce_back_to_back RANKS BYTES SECONDS  an all-reduce of BYTES of doubles, the
//                                        next queued right behind it
//   probe allreduce RANKS BYTES SECONDS  the same after a kernel each, less the kernel's time
//   link LATENCY_S BANDWIDTH_BPS         the fit t = latency + bytes / bandwidth of the exchange
#include <Kokkos_Core.hpp>
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <cstdio>
#include <vector>

namespace {

void check(ncclResult_t r, const char* what) {
  if (r == ncclSuccess) return;
  std::fprintf(stderr, "trident_link_probe: %s: %s\n", what, ncclGetErrorString(r));
  MPI_Abort(MPI_COMM_WORLD, 1);
}

// Seconds a call of `queue` takes, over `calls` calls queued back to back on the stream
// after a few untimed ones (the first connect the ranks), slowest rank's.
template <class Queue>
double seconds_per_call(cudaStream_t stream, int calls, Queue queue) {
  for (int i = 0; i < 3; ++i) queue();
  cudaStreamSynchronize(stream);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < calls; ++i) queue();
  cudaStreamSynchronize(stream);
  double seconds = (MPI_Wtime() - start) / calls;
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return seconds;
}

int calls_for(std::size_t bytes) { return bytes <= (1u << 16) ? 200 : bytes <= (1u << 20) ? 50 : 20; }

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1, local = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  if (ranks < 2) {
    if (rank == 0) std::fprintf(stderr, "trident_link_probe: needs 2 ranks or more\n");
    MPI_Finalize();
    return 2;
  }
  int devices = 1;
  cudaGetDeviceCount(&devices);
  Kokkos::initialize(Kokkos::InitializationSettings().set_device_id(local % devices));
  {
    ncclUniqueId id;
    if (rank == 0) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
    ncclComm_t comm;
    check(ncclCommInitRank(&comm, ranks, id, rank), "ncclCommInitRank");
    const cudaStream_t stream = Kokkos::DefaultExecutionSpace().cuda_stream();
    const std::vector<std::size_t> sizes = {8, 1024, 1u << 16, 1u << 20, 1u << 22};
    Kokkos::View<double*> send("send", sizes.back() / 8), recv("recv", sizes.back() / 8);
    Kokkos::fence();
    for (const std::size_t bytes : sizes) {
      // a round trip between ranks 0 and 1; the others queue nothing
      const double round_trip = seconds_per_call(stream, calls_for(bytes), [&]() {
        if (rank > 1) return;
        const int peer = 1 - rank;
        if (rank == 0) check(ncclSend(send.data(), bytes, ncclChar, peer, comm, stream), "ncclSend");
        check(ncclRecv(recv.data(), bytes, ncclChar, peer, comm, stream), "ncclRecv");
        if (rank == 1) check(ncclSend(send.data(), bytes, ncclChar, peer, comm, stream), "ncclSend");
      });
      if (rank == 0) std::printf("probe p2p %zu %.9f\n", bytes, round_trip / 2);
    }
    std::vector<double> exchange;
    const int partner = rank ^ 1;  // a rank without one (the last of an odd count) waits
    for (const std::size_t bytes : sizes) {
      exchange.push_back(seconds_per_call(stream, calls_for(bytes), [&]() {
        if (partner >= ranks) return;
        check(ncclGroupStart(), "ncclGroupStart");
        check(ncclSend(send.data(), bytes, ncclChar, partner, comm, stream), "ncclSend");
        check(ncclRecv(recv.data(), bytes, ncclChar, partner, comm, stream), "ncclRecv");
        check(ncclGroupEnd(), "ncclGroupEnd");
      }));
      if (rank == 0) std::printf("probe exchange %zu %.9f\n", bytes, exchange.back());
    }
    // All-reduces back to back, and each after a kernel of about 50 us (what a ridge
    // iteration's products take): there the ranks come to each sum as the kernel ends, a little
    // apart, and each sum starts its messages afresh. The second, less the kernel alone, is
    // what a sum costs a sweep.
    Kokkos::View<float*> from("from", 1 << 24), into("into", 1 << 24);
    const auto kernel = [&]() {
      Kokkos::parallel_for("trident::bench::link_probe_kernel", from.extent(0),
                           KOKKOS_LAMBDA(const int i) { into(i) = 1.5f * from(i); });
    };
    const double kernel_alone = seconds_per_call(stream, 50, kernel);
    for (const std::size_t bytes : sizes) {
      const auto sum = [&]() {
        check(ncclAllReduce(send.data(), recv.data(), bytes / 8, ncclDouble, ncclSum, comm, stream), "ncclAllReduce");
      };
      const double back_to_back = seconds_per_call(stream, calls_for(bytes), sum);
      const double after_kernel = seconds_per_call(stream, calls_for(bytes), [&]() {
        kernel();
        sum();
      });
      if (rank == 0) {
        std::printf("probe allreduce_back_to_back %d %zu %.9f\n", ranks, bytes, back_to_back);
        std::printf("probe allreduce %d %zu %.9f\n", ranks, bytes, after_kernel - kernel_alone);
      }
    }
    const double latency = exchange.front();
    const double bandwidth = double(sizes.back() - sizes.front()) / (exchange.back() - exchange.front());
    if (rank == 0) std::printf("link %.9f %.6e\n", latency, bandwidth);
    check(ncclCommDestroy(comm), "ncclCommDestroy");
  }
  Kokkos::finalize();
  MPI_Finalize();
  return 0;
}
