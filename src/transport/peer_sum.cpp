#include "transport/peer_sum.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "transport/peer_areas.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace trident::transport {

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

// Each rank's area, a half for each parity. A gathered sum (sum_over_peers) uses the
// half's slots[sender], each of kMostBytes of numbers as words; a spread sum
// (spread_sum_over_peers) its shares[sender] (the sender's numbers of this rank's share)
// and then sums[owner] (the owner's share summed), each of one share's words.
struct Areas {
  char* base[kMostRanks];
  std::size_t half_bytes;   // one parity's
  std::size_t share_bytes;  // a spread sum's slot
};
constexpr std::size_t kSlotBytes = PeerSum::kMostBytes * kWordBytesPerByte;
std::size_t share_slot_bytes(int ranks) {  // a share of kMostSpreadBytes, rounded up a number, as words
  const std::size_t bytes = (PeerSum::kMostSpreadBytes + std::size_t(ranks) - 1) / std::size_t(ranks) + 8;
  return (bytes * kWordBytesPerByte + 255) / 256 * 256;
}
Areas area_layout(int ranks) {
  Areas a{};
  a.share_bytes = share_slot_bytes(ranks);
  a.half_bytes = std::max(std::size_t(ranks) * kSlotBytes, 2 * std::size_t(ranks) * a.share_bytes);
  return a;
}
__device__ inline volatile Word* slot_of(char* base, const Areas& a, int parity, int sender) {
  return reinterpret_cast<volatile Word*>(base + std::size_t(parity) * a.half_bytes + std::size_t(sender) * kSlotBytes);
}
// Spread sums: slot k < ranks is sender k's numbers of the share, ranks + k owner k's sums.
__device__ inline volatile Word* share_of(char* base, const Areas& a, int parity, int k) {
  return reinterpret_cast<volatile Word*>(base + std::size_t(parity) * a.half_bytes + std::size_t(k) * a.share_bytes);
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

// The GPU's clock, in nanoseconds.
__device__ inline std::uint64_t now_ns() {
  std::uint64_t now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

// The number in `in`'s words once they carry `call` (the sender's store of it). With
// `timeout_ns` > 0, gives up (gave_up) past that long after `start`.
template <class T>
__device__ inline T received(const volatile Word* in, const unsigned call, const std::uint64_t start,
                             const std::uint64_t timeout_ns, bool& gave_up) {
  Pieces<T> p;
  for (int k = 0; k < Pieces<T>::kCount && !gave_up; ++k) {
    Word w = in[k];
    while ((w >> 32) != call && !gave_up) {
      if (timeout_ns > 0) gave_up = now_ns() - start > timeout_ns;
      w = in[k];
    }
    p.piece[k] = static_cast<unsigned>(w);
  }
  return value_of(p);
}

template <class T>
__device__ inline void send(volatile Word* out, const Word flag, const T value) {
  const Pieces<T> p = pieces_of(value);
  for (int k = 0; k < Pieces<T>::kCount; ++k) out[k] = flag | p.piece[k];
}

// The call's number, read by each block's first thread (a recorded launch's is in device memory).
__device__ inline unsigned call_of(Counters* counters) {
  __shared__ unsigned call_of_block;
  if (threadIdx.x == 0) call_of_block = *reinterpret_cast<volatile unsigned*>(&counters->next_call);
  __syncthreads();
  return call_of_block;
}

// A launch's call (its number, the parity of the slots it uses, the flag its stores carry)
// and this thread's first number and stride over the numbers.
struct CallPlace {
  unsigned call;
  int parity;
  Word flag;
  std::size_t first, stride;
};
__device__ inline CallPlace place_in_call(Counters* counters) {
  const unsigned call = call_of(counters);
  return {call, static_cast<int>(call & 1), Word(call) << 32,
          std::size_t(blockIdx.x) * blockDim.x + threadIdx.x, std::size_t(gridDim.x) * blockDim.x};
}

// The rank-ordered sum of one number: this rank's `own` in its place and each other rank q's
// from `from(q)` once it arrives, added from rank 0 up, as every rank and both kernels add
// them (hence the same bits everywhere).
template <class T, class From>
__device__ inline T rank_ordered_sum(const T own, const int rank, const int ranks, const From& from,
                                     const unsigned call, const std::uint64_t start, const std::uint64_t timeout_ns,
                                     bool& gave_up) {
  T s = own;
  for (int q = 0; q < ranks && !gave_up; ++q) {
    const T theirs = q == rank ? own : received<T>(from(q), call, start, timeout_ns, gave_up);
    s = q == 0 ? theirs : s + theirs;
  }
  return s;
}

// The launch's last block to end numbers the next call; a test sum that gave up says so.
__device__ inline void end_call(Counters* counters, const unsigned call, const bool gave_up) {
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

// One call's sum (see peer_sum.hpp): each thread sends its numbers to every other rank,
// then collects theirs as they arrive and adds all in rank order. `timeout_ns` > 0 bounds
// the wait for the other ranks (the set-up's test sum): past it the thread gives up and
// sets counters->timed_out.
template <class T>
__global__ void __launch_bounds__(kThreads) sum_over_peers(T* data, std::size_t count, int rank, int ranks,
                                                           Areas areas, Counters* counters,
                                                           std::uint64_t timeout_ns) {
  constexpr int kPieces = Pieces<T>::kCount;
  const CallPlace at = place_in_call(counters);
  for (std::size_t i = at.first; i < count; i += at.stride) {
    const T value = data[i];
    for (int q = 0; q < ranks; ++q)
      if (q != rank) send(slot_of(areas.base[q], areas, at.parity, rank) + i * kPieces, at.flag, value);
  }
  const std::uint64_t start = timeout_ns > 0 ? now_ns() : 0;
  bool gave_up = false;
  for (std::size_t i = at.first; i < count && !gave_up; i += at.stride) {
    const auto from = [&](int q) { return slot_of(areas.base[rank], areas, at.parity, q) + i * kPieces; };
    const T s = rank_ordered_sum(data[i], rank, ranks, from, at.call, start, timeout_ns, gave_up);
    if (!gave_up) data[i] = s;
  }
  end_call(counters, at.call, gave_up);
}

// One call's spread sum (see peer_sum.hpp): rank q owns share q of the numbers (`chunk` a
// share, the last one shorter). Each thread sends its numbers of other ranks' shares to
// their owners; adds up its numbers of this rank's share in rank order as they arrive, and
// sends each sum to every other rank; then takes the other shares' sums from their owners.
// No wait closes a cycle: the shares' numbers are sent before any wait, and the sums
// after waits for those alone.
template <class T>
__global__ void __launch_bounds__(kThreads) spread_sum_over_peers(T* data, std::size_t count, int rank, int ranks,
                                                                  Areas areas, Counters* counters,
                                                                  std::uint64_t timeout_ns) {
  constexpr int kPieces = Pieces<T>::kCount;
  const CallPlace at = place_in_call(counters);
  const std::size_t chunk = (count + ranks - 1) / ranks;
  const std::size_t mine = std::size_t(rank) * chunk, mine_end = count < mine + chunk ? count : mine + chunk;
  for (std::size_t i = at.first; i < count; i += at.stride) {
    const int owner = static_cast<int>(i / chunk);
    if (owner != rank)
      send(share_of(areas.base[owner], areas, at.parity, rank) + (i - owner * chunk) * kPieces, at.flag, data[i]);
  }
  const std::uint64_t start = timeout_ns > 0 ? now_ns() : 0;
  bool gave_up = false;
  for (std::size_t i = mine + at.first; i < mine_end && !gave_up; i += at.stride) {
    const auto from = [&](int q) { return share_of(areas.base[rank], areas, at.parity, q) + (i - mine) * kPieces; };
    const T s = rank_ordered_sum(data[i], rank, ranks, from, at.call, start, timeout_ns, gave_up);
    if (gave_up) break;
    data[i] = s;
    for (int q = 0; q < ranks; ++q)
      if (q != rank) send(share_of(areas.base[q], areas, at.parity, ranks + rank) + (i - mine) * kPieces, at.flag, s);
  }
  for (std::size_t i = at.first; i < count && !gave_up; i += at.stride) {
    const int owner = static_cast<int>(i / chunk);
    if (owner == rank) continue;
    const volatile Word* in =
        share_of(areas.base[rank], areas, at.parity, ranks + owner) + (i - owner * chunk) * kPieces;
    const T sum = received<T>(in, at.call, start, timeout_ns, gave_up);
    if (!gave_up) data[i] = sum;
  }
  end_call(counters, at.call, gave_up);
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
    if (count * sizeof(T) <= kMostBytes)
      sum_over_peers<T><<<blocks, kThreads, 0, stream>>>(data, count, rank, ranks, areas, counters, timeout_ns);
    else
      spread_sum_over_peers<T><<<blocks, kThreads, 0, stream>>>(data, count, rank, ranks, areas, counters, timeout_ns);
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) throw RunError(std::string("sum over peer GPUs: launch failed: ") + cudaGetErrorString(status));
  }
};

std::unique_ptr<PeerSum> PeerSum::connect(MPI_Comm comm, std::string& why_not) {
  std::unique_ptr<PeerSum> peers(new PeerSum());
  peers->mapping_ = std::make_unique<Mapping>();
  Mapping& m = *peers->mapping_;
  m.areas = area_layout(mpi::size(comm));
  m.shared = PeerAreas::map(comm, 2 * m.areas.half_bytes, why_not);
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

  // Test sums of both parities, gathered and spread, each rank's numbers distinct, against
  // the rank-ordered sum on the host; a wait of more than 10 s for another rank counts as a
  // failure.
  const std::size_t sizes[4] = {3000, 3000, kMostBytes / sizeof(double) + 1001, kMostBytes / sizeof(double) + 7};
  const auto value = [](int r, std::size_t i) { return (r + 1) * 0.1 + static_cast<double>(i) * 1e-3 / (r + 3); };
  double* test = nullptr;
  std::vector<double> got(sizes[2]), want(sizes[2]);
  status = cudaMalloc(&test, sizes[2] * sizeof(double));
  for (int round = 0; round < 4 && status == cudaSuccess && mine.empty(); ++round) {
    const std::size_t n = sizes[round];
    for (std::size_t i = 0; i < n; ++i) got[i] = value(rank, i) * (round + 1);
    status = cudaMemcpy(test, got.data(), n * sizeof(double), cudaMemcpyHostToDevice);
    MPI_Barrier(comm);
    if (status == cudaSuccess) {
      m.launch<double>(nullptr, test, n, std::uint64_t(10) * 1000000000);
      status = cudaDeviceSynchronize();
    }
    if (status == cudaSuccess) status = cudaMemcpy(got.data(), test, n * sizeof(double), cudaMemcpyDeviceToHost);
    int timed_out = 0;
    if (status == cudaSuccess)
      status = cudaMemcpy(&timed_out, &m.counters->timed_out, sizeof(int), cudaMemcpyDeviceToHost);
    if (status != cudaSuccess) break;
    if (timed_out) {
      mine = "a test sum waited more than 10 s for another rank";
      break;
    }
    for (std::size_t i = 0; i < n; ++i) {
      want[i] = value(0, i) * (round + 1);
      for (int q = 1; q < ranks; ++q) want[i] += value(q, i) * (round + 1);
    }
    if (std::memcmp(got.data(), want.data(), n * sizeof(double)) != 0) mine = "a test sum came out wrong";
  }
  if (status != cudaSuccess) mine = std::string("a test sum failed: ") + cudaGetErrorString(status);
  if (test != nullptr) cudaFree(test);
  if (failed_on_any_rank(comm, mine, "a test sum", why_not)) return nullptr;
  return peers;
}

template <class T>
void PeerSum::sum(const Kokkos::DefaultExecutionSpace& space, T* data, std::size_t count) {
  static_assert(std::is_floating_point_v<T>);
  if (count * sizeof(T) > kMostSpreadBytes) throw std::logic_error("PeerSum::sum: more than kMostSpreadBytes");
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

}  // namespace trident::transport
