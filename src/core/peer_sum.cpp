#include "core/peer_sum.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/peer_areas.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace trident::core {

#if defined(KOKKOS_ENABLE_CUDA)
namespace {

constexpr int kMostRanks = PeerAreas::kMostRanks;
// Threads of a sum: at most a launch that any GPU holds at once (no thread may wait behind
// one that spins), each taking its numbers kThreads * blocks apart.
constexpr int kThreads = 256;
constexpr int kMostBlocks = 128;

// A 4-byte piece of a number and the call that sent it, in one 8-byte word: one store
// delivers both, so a word whose call is the current one holds the current piece. No
// fence and no separate flag (NCCL's LL protocol does the same). A number of T is
// sizeof(T) / 4 words.
using Word = unsigned long long;
constexpr std::size_t kWordBytesPerByte = sizeof(Word) / 4;  // slot bytes per byte of numbers

// Each rank's area: slots[parity][sender], each of kMostBytes of numbers as words.
struct Areas {
  char* base[kMostRanks];
};
constexpr std::size_t kSlotBytes = PeerSum::kMostBytes * kWordBytesPerByte;
std::size_t area_bytes(int ranks) { return 2 * std::size_t(ranks) * kSlotBytes; }
__device__ inline volatile Word* slot_of(char* base, int ranks, int parity, int sender) {
  return reinterpret_cast<volatile Word*>(base + (std::size_t(parity) * ranks + sender) * kSlotBytes);
}

template <class T>
struct Pieces {
  static constexpr int kCount = sizeof(T) / 4;
  unsigned piece[kCount];
};
template <class T>
__device__ inline Pieces<T> pieces_of(const T value) {
  Pieces<T> p;
  memcpy(p.piece, &value, sizeof(T));
  return p;
}
template <class T>
__device__ inline T value_of(const Pieces<T>& p) {
  T value;
  memcpy(&value, p.piece, sizeof(T));
  return value;
}

// The calls' numbers and the test sum's verdict, in device memory: a launch reads its
// call's number from next_call, and its last block to end sets the next one, so that a
// recorded launch (a CUDA graph) numbers its calls by itself. Every rank makes the same
// calls, so every rank's numbers agree.
struct Counters {
  unsigned next_call;    // 0 is the slots' first fill, never a call
  unsigned blocks_done;  // blocks of the current launch that have ended
  int timed_out;         // set by a test sum that gave up waiting
};

// One call's sum (see peer_sum.hpp): each thread sends its numbers to every other rank,
// then collects theirs as they arrive and adds all in rank order. `timeout_ns` > 0 bounds
// the wait for the other ranks (the set-up's test sum): past it the thread gives up and
// sets counters->timed_out.
template <class T>
__global__ void __launch_bounds__(kThreads) sum_over_peers(T* data, std::size_t count, int rank, int ranks,
                                                           Areas areas, Counters* counters,
                                                           std::uint64_t timeout_ns) {
  constexpr int kPieces = Pieces<T>::kCount;
  __shared__ unsigned call_of_block;
  if (threadIdx.x == 0) call_of_block = *reinterpret_cast<volatile unsigned*>(&counters->next_call);
  __syncthreads();
  const unsigned call = call_of_block;
  const int parity = static_cast<int>(call & 1);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  const std::size_t first = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const Word flag = Word(call) << 32;
  for (std::size_t i = first; i < count; i += stride) {
    const Pieces<T> p = pieces_of(data[i]);
    for (int q = 0; q < ranks; ++q) {
      if (q == rank) continue;
      volatile Word* out = slot_of(areas.base[q], ranks, parity, rank) + i * kPieces;
      for (int k = 0; k < kPieces; ++k) out[k] = flag | p.piece[k];
    }
  }
  std::uint64_t start = 0;
  if (timeout_ns > 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  bool gave_up = false;
  for (std::size_t i = first; i < count && !gave_up; i += stride) {
    const T mine = data[i];
    T s = mine;
    for (int q = 0; q < ranks && !gave_up; ++q) {
      T theirs = mine;
      if (q != rank) {
        const volatile Word* in = slot_of(areas.base[rank], ranks, parity, q) + i * kPieces;
        Pieces<T> p;
        for (int k = 0; k < kPieces && !gave_up; ++k) {
          Word w = in[k];
          while ((w >> 32) != call && !gave_up) {
            if (timeout_ns > 0) {
              std::uint64_t now;
              asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
              gave_up = now - start > timeout_ns;
            }
            w = in[k];
          }
          p.piece[k] = static_cast<unsigned>(w);
        }
        theirs = value_of(p);
      }
      s = q == 0 ? theirs : s + theirs;
    }
    if (!gave_up) data[i] = s;
  }
  if (gave_up) counters->timed_out = 1;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&counters->blocks_done, 1u) == gridDim.x - 1) {
      counters->blocks_done = 0;
      counters->next_call = call + 1 == 0 ? 2 : call + 1;  // the parity still alternates
    }
  }
}

}  // namespace

struct PeerSum::Mapping {
  int rank = 0, ranks = 1;
  std::unique_ptr<PeerAreas> shared;
  Areas areas{};
  Counters* counters = nullptr;

  ~Mapping() {
    if (counters != nullptr) cudaFree(counters);
  }

  template <class T>
  void launch(cudaStream_t stream, T* data, std::size_t count, std::uint64_t timeout_ns) {
    const int blocks = static_cast<int>(std::min<std::size_t>(kMostBlocks, (count + kThreads - 1) / kThreads));
    sum_over_peers<T><<<blocks, kThreads, 0, stream>>>(data, count, rank, ranks, areas, counters, timeout_ns);
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) throw RunError(std::string("sum over peer GPUs: launch failed: ") + cudaGetErrorString(status));
  }
};

std::unique_ptr<PeerSum> PeerSum::connect(MPI_Comm comm, std::string& why_not) {
  std::unique_ptr<PeerSum> peers(new PeerSum());
  peers->mapping_ = std::make_unique<Mapping>();
  Mapping& m = *peers->mapping_;
  m.shared = PeerAreas::map(comm, area_bytes(mpi::size(comm)), why_not);
  if (m.shared == nullptr) return nullptr;
  m.rank = m.shared->rank();
  m.ranks = m.shared->ranks();
  for (int q = 0; q < m.ranks; ++q) m.areas.base[q] = m.shared->area(q);
  std::string mine;  // this rank's failure
  cudaError_t status = cudaMalloc(&m.counters, sizeof(Counters));
  const Counters first_counts{1, 0, 0};
  if (status == cudaSuccess) status = cudaMemcpy(m.counters, &first_counts, sizeof(Counters), cudaMemcpyHostToDevice);
  if (status != cudaSuccess) mine = std::string("device memory for peers: ") + cudaGetErrorString(status);
  if (failed_on_any_rank(comm, mine, "allocating device memory for peers", why_not)) return nullptr;
  const int rank = m.rank, ranks = m.ranks;

  // A test sum of both parities, each rank's numbers distinct, against the rank-ordered
  // sum on the host; a wait of more than 10 s for another rank counts as a failure.
  constexpr std::size_t kTest = 3000;
  const auto value = [](int r, std::size_t i) { return (r + 1) * 0.1 + static_cast<double>(i) * 1e-3 / (r + 3); };
  double* test = nullptr;
  std::vector<double> got(kTest), want(kTest);
  status = cudaMalloc(&test, kTest * sizeof(double));
  for (int round = 0; round < 2 && status == cudaSuccess && mine.empty(); ++round) {
    for (std::size_t i = 0; i < kTest; ++i) got[i] = value(rank, i) * (round + 1);
    status = cudaMemcpy(test, got.data(), kTest * sizeof(double), cudaMemcpyHostToDevice);
    MPI_Barrier(comm);
    if (status == cudaSuccess) {
      m.launch<double>(nullptr, test, kTest, std::uint64_t(10) * 1000000000);
      status = cudaDeviceSynchronize();
    }
    if (status == cudaSuccess) status = cudaMemcpy(got.data(), test, kTest * sizeof(double), cudaMemcpyDeviceToHost);
    int timed_out = 0;
    if (status == cudaSuccess)
      status = cudaMemcpy(&timed_out, &m.counters->timed_out, sizeof(int), cudaMemcpyDeviceToHost);
    if (status != cudaSuccess) break;
    if (timed_out) {
      mine = "a test sum waited more than 10 s for another rank";
      break;
    }
    for (std::size_t i = 0; i < kTest; ++i) {
      want[i] = value(0, i) * (round + 1);
      for (int q = 1; q < ranks; ++q) want[i] += value(q, i) * (round + 1);
    }
    if (std::memcmp(got.data(), want.data(), kTest * sizeof(double)) != 0) mine = "a test sum came out wrong";
  }
  if (status != cudaSuccess) mine = std::string("a test sum failed: ") + cudaGetErrorString(status);
  if (test != nullptr) cudaFree(test);
  if (failed_on_any_rank(comm, mine, "a test sum", why_not)) return nullptr;
  return peers;
}

template <class T>
void PeerSum::sum(const Kokkos::DefaultExecutionSpace& space, T* data, std::size_t count) {
  static_assert(std::is_floating_point_v<T>);
  if (count * sizeof(T) > kMostBytes) throw std::logic_error("PeerSum::sum: more than kMostBytes");
  if (count == 0) return;
  mapping_->launch<T>(space.cuda_stream(), data, count, 0);
}

#else  // not a CUDA build

struct PeerSum::Mapping {};

std::unique_ptr<PeerSum> PeerSum::connect(MPI_Comm, std::string& why_not) {
  why_not = "not a CUDA build";
  return nullptr;
}

template <class T>
void PeerSum::sum(const Kokkos::DefaultExecutionSpace&, T*, std::size_t) {
  throw std::logic_error("PeerSum::sum without peers");
}

#endif

PeerSum::~PeerSum() = default;

template void PeerSum::sum<float>(const Kokkos::DefaultExecutionSpace&, float*, std::size_t);
template void PeerSum::sum<double>(const Kokkos::DefaultExecutionSpace&, double*, std::size_t);

}  // namespace trident::core
