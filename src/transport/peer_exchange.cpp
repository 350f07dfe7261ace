#include "transport/peer_exchange.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "transport/peer_areas.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace trident::transport {

#if defined(KOKKOS_ENABLE_CUDA)
namespace {

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// The pieces of `pieces` to or from `peer` that move something.
std::vector<const ExchangePiece*> pieces_with(const std::vector<ExchangePiece>& pieces, int peer) {
  std::vector<const ExchangePiece*> with;
  for (const ExchangePiece& p : pieces)
    if (p.peer == peer && p.count > 0) with.push_back(&p);
  return with;
}

// Bytes one way's pieces take in a slot, each starting on a chunk.
std::size_t packed_bytes(const std::vector<const ExchangePiece*>& pieces, std::size_t value_bytes) {
  std::size_t bytes = 0;
  for (const ExchangePiece* p : pieces) bytes += round_up(p->count * value_bytes, PeerExchange::kChunkBytes);
  return bytes;
}

void remove_peer(std::vector<ExchangePiece>& pieces, int peer) {
  pieces.erase(std::remove_if(pieces.begin(), pieces.end(), [peer](const ExchangePiece& p) { return p.peer == peer; }),
               pieces.end());
}

constexpr int kThreads = 256;
constexpr int kMostPieces = 16;  // in one launch
// Blocks of a launch, each taking chunks kMostBlocks apart: a few, so that a receive
// waiting beside the block's inside takes little of the GPU (a halo is a few MB at most).
constexpr int kMostBlocks = 32;
constexpr std::size_t kChunkWords = PeerExchange::kChunkBytes / 4;

// One piece, as 4-byte words (every number is 4 or 8 bytes): its chunks are the launch's
// chunks [first_chunk, first_chunk + chunks); flags[c] guards the piece's chunk c.
struct ChunkCopy {
  const unsigned* from;
  unsigned* to;
  std::size_t words;
  unsigned* flags;
  unsigned call;
  int first_chunk;
};
struct CopyPlan {
  int pieces = 0;
  int chunks = 0;  // in all
  ChunkCopy piece[kMostPieces];
  int* timed_out = nullptr;  // where a receive that gave up says so (the test exchange)
  std::uint64_t timeout_ns = 0;
};

// The piece that holds chunk `chunk` of the launch, and the chunk's place in it.
__device__ inline ChunkCopy piece_of_chunk(const CopyPlan& plan, int chunk, std::size_t& begin, std::size_t& n,
                                           int& within) {
  int p = 0;
  while (p + 1 < plan.pieces && chunk >= plan.piece[p + 1].first_chunk) ++p;
  const ChunkCopy c = plan.piece[p];
  within = chunk - c.first_chunk;
  begin = std::size_t(within) * kChunkWords;
  n = c.words - begin < kChunkWords ? c.words - begin : kChunkWords;
  return c;
}

// Each block copies chunks blockIdx.x, + gridDim.x, ... into the peers' slots, setting each
// chunk's flag after it (a release at system scope: whoever sees the flag sees the chunk).
__global__ void __launch_bounds__(kThreads) send_chunks(const CopyPlan plan) {
  for (int chunk = blockIdx.x; chunk < plan.chunks; chunk += gridDim.x) {
    std::size_t begin, n;
    int within;
    const ChunkCopy c = piece_of_chunk(plan, chunk, begin, n, within);
    for (std::size_t i = threadIdx.x; i < n; i += kThreads) c.to[begin + i] = c.from[begin + i];
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence_system();
      asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(c.flags + within), "r"(c.call) : "memory");
    }
  }
}

// Each block waits for its chunks' flags (an acquire) and copies them out of this rank's
// slots (loads that bypass the L1, which may hold a slot's previous call).
__global__ void __launch_bounds__(kThreads) receive_chunks(const CopyPlan plan) {
  __shared__ int arrived;
  for (int chunk = blockIdx.x; chunk < plan.chunks; chunk += gridDim.x) {
    std::size_t begin, n;
    int within;
    const ChunkCopy c = piece_of_chunk(plan, chunk, begin, n, within);
    if (threadIdx.x == 0) {
      std::uint64_t start = 0, now = 0;
      if (plan.timeout_ns > 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
      unsigned flag = 0;
      bool gave_up = false;
      for (;;) {
        asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(flag) : "l"(c.flags + within) : "memory");
        if (flag == c.call || gave_up) break;
        if (plan.timeout_ns > 0) {
          asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
          gave_up = now - start > plan.timeout_ns;
        }
      }
      arrived = flag == c.call;
      if (!arrived) *plan.timed_out = 1;
    }
    __syncthreads();
    if (!arrived) return;
    for (std::size_t i = threadIdx.x; i < n; i += kThreads) c.to[begin + i] = __ldcv(c.from + begin + i);
    __syncthreads();  // `arrived` is rewritten for the next chunk
  }
}

void add_piece(std::vector<CopyPlan>& plans, ChunkCopy c) {
  if (plans.empty() || plans.back().pieces == kMostPieces) plans.emplace_back();
  CopyPlan& plan = plans.back();
  c.first_chunk = plan.chunks;
  plan.piece[plan.pieces++] = c;
  plan.chunks += static_cast<int>((c.words + kChunkWords - 1) / kChunkWords);
}

template <class Kernel>
void launch(Kernel kernel, const std::vector<CopyPlan>& plans, cudaStream_t stream, int* timed_out,
            std::uint64_t timeout_ns) {
  for (CopyPlan plan : plans) {
    if (plan.chunks == 0) continue;
    plan.timed_out = timed_out;
    plan.timeout_ns = timeout_ns;
    kernel<<<std::min(plan.chunks, kMostBlocks), kThreads, 0, stream>>>(plan);
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess)
      throw RunError(std::string("exchange through peer memory: launch failed: ") + cudaGetErrorString(status));
  }
}

}  // namespace

void PeerExchange::queue(const Kokkos::DefaultExecutionSpace& space, const char* send, const std::size_t value_bytes,
                         std::vector<ExchangePiece>& sends, char* receive, std::vector<ExchangePiece>& receives,
                         const std::uint64_t timeout_ns) {
  const int me = areas_->rank(), ranks = areas_->ranks();
  const auto slot = [&](int owner, unsigned call, int sender) {
    return areas_->area(owner) + (std::size_t(call & 1) * ranks + sender) * slot_bytes_;
  };
  std::vector<CopyPlan> send_plans, receive_plans;
  std::vector<int> peers;
  for (const ExchangePiece& p : sends)
    if (p.peer >= 0 && p.peer < ranks && std::find(peers.begin(), peers.end(), p.peer) == peers.end())
      peers.push_back(p.peer);
  for (const int q : peers) {
    const auto to = pieces_with(sends, q), from = pieces_with(receives, q);
    if (to.empty() || from.empty() || to.size() > kMostPiecesPerPeer || from.size() > kMostPiecesPerPeer ||
        packed_bytes(to, value_bytes) > slot_data_bytes_ || packed_bytes(from, value_bytes) > slot_data_bytes_)
      continue;
    const unsigned call = ++calls_[static_cast<std::size_t>(q)];
    char* theirs = slot(q, call, me);
    char* mine = slot(me, call, q);
    std::size_t at = 0;
    for (const ExchangePiece* p : to) {
      add_piece(send_plans, {reinterpret_cast<const unsigned*>(send + p->offset * value_bytes),
                             reinterpret_cast<unsigned*>(theirs + at), p->count * value_bytes / 4,
                             reinterpret_cast<unsigned*>(theirs + slot_data_bytes_) + at / kChunkBytes, call, 0});
      at += round_up(p->count * value_bytes, kChunkBytes);
    }
    at = 0;
    for (const ExchangePiece* p : from) {
      add_piece(receive_plans, {reinterpret_cast<const unsigned*>(mine + at),
                                reinterpret_cast<unsigned*>(receive + p->offset * value_bytes),
                                p->count * value_bytes / 4,
                                reinterpret_cast<unsigned*>(mine + slot_data_bytes_) + at / kChunkBytes, call, 0});
      at += round_up(p->count * value_bytes, kChunkBytes);
    }
    remove_peer(sends, q);
    remove_peer(receives, q);
  }
  // Every send before any receive: a receive waits only for other ranks' sends, which wait
  // for nothing of this exchange, so the kernels cannot wait on each other in a circle.
  launch(send_chunks, send_plans, space.cuda_stream(), timed_out_, 0);
  launch(receive_chunks, receive_plans, space.cuda_stream(), timed_out_, timeout_ns);
}

std::unique_ptr<PeerExchange> PeerExchange::connect(MPI_Comm comm, const std::size_t most_bytes, std::string& why_not) {
  std::uint64_t most = most_bytes;
  mpi::max_over_ranks(comm, &most, 1);
  std::unique_ptr<PeerExchange> x(new PeerExchange());
  // Room for the most bytes cut into kMostPiecesPerPeer pieces, each starting on a chunk.
  x->slot_data_bytes_ = round_up(std::max<std::uint64_t>(most, 1), kChunkBytes) + (kMostPiecesPerPeer - 1) * kChunkBytes;
  x->slot_bytes_ = round_up(x->slot_data_bytes_ + x->slot_data_bytes_ / kChunkBytes * sizeof(unsigned), 256);
  const int ranks = mpi::size(comm), rank = mpi::rank(comm);
  x->areas_ = PeerAreas::map(comm, 2 * std::size_t(ranks) * x->slot_bytes_, why_not);
  if (x->areas_ == nullptr) return nullptr;
  x->calls_.assign(static_cast<std::size_t>(ranks), 0);

  // A test exchange between every pair, of both parities, each number naming its sender,
  // receiver and round; a wait of more than 10 s counts as a failure.
  constexpr std::size_t kTest = 5000;  // three chunks of float64
  const auto value = [](int from, int to, std::size_t i, int round) {
    return from * 1000.0 + to + static_cast<double>(i) * 1e-4 + round * 0.5;
  };
  const std::size_t n = kTest * static_cast<std::size_t>(ranks);
  std::string mine;
  double *send = nullptr, *receive = nullptr;
  cudaError_t status = cudaMalloc(&send, n * sizeof(double));
  if (status == cudaSuccess) status = cudaMalloc(&receive, n * sizeof(double));
  if (status == cudaSuccess) status = cudaMalloc(&x->timed_out_, sizeof(int));
  if (status == cudaSuccess) status = cudaMemset(x->timed_out_, 0, sizeof(int));
  std::vector<double> host(n);
  for (int round = 0; round < 2 && status == cudaSuccess && mine.empty(); ++round) {
    std::vector<ExchangePiece> sends, receives;
    for (int q = 0; q < ranks; ++q) {
      if (q == rank) continue;
      for (std::size_t i = 0; i < kTest; ++i) host[q * kTest + i] = value(rank, q, i, round);
      sends.push_back({q, q * kTest, kTest, 0});
      receives.push_back({q, q * kTest, kTest, 0});
    }
    status = cudaMemcpy(send, host.data(), n * sizeof(double), cudaMemcpyHostToDevice);
    if (status == cudaSuccess) status = cudaMemset(receive, 0, n * sizeof(double));
    if (status != cudaSuccess) break;
    x->queue(Kokkos::DefaultExecutionSpace(), reinterpret_cast<const char*>(send), sizeof(double), sends,
             reinterpret_cast<char*>(receive), receives, std::uint64_t(10) * 1000000000);
    status = cudaDeviceSynchronize();
    int timed_out = 0;
    if (status == cudaSuccess) status = cudaMemcpy(&timed_out, x->timed_out_, sizeof(int), cudaMemcpyDeviceToHost);
    if (status == cudaSuccess) status = cudaMemcpy(host.data(), receive, n * sizeof(double), cudaMemcpyDeviceToHost);
    if (status != cudaSuccess) break;
    if (timed_out) mine = "a test exchange waited more than 10 s for another rank";
    if (!sends.empty() || !receives.empty()) mine = "a test exchange was not carried";
    for (int q = 0; q < ranks && mine.empty(); ++q)
      for (std::size_t i = 0; i < kTest && q != rank; ++i)
        if (host[q * kTest + i] != value(q, rank, i, round)) {
          mine = "a test exchange came out wrong";
          break;
        }
  }
  if (status != cudaSuccess) mine = std::string("a test exchange failed: ") + cudaGetErrorString(status);
  cudaFree(send);
  cudaFree(receive);
  if (failed_on_any_rank(comm, mine, "a test exchange", why_not)) return nullptr;
  return x;
}

PeerExchange::~PeerExchange() {
  if (timed_out_ != nullptr) cudaFree(timed_out_);
}

#else  // not a CUDA build

void PeerExchange::queue(const Kokkos::DefaultExecutionSpace&, const char*, std::size_t, std::vector<ExchangePiece>&,
                         char*, std::vector<ExchangePiece>&, std::uint64_t) {}

std::unique_ptr<PeerExchange> PeerExchange::connect(MPI_Comm, std::size_t, std::string& why_not) {
  why_not = "not a CUDA build";
  return nullptr;
}

PeerExchange::~PeerExchange() = default;

#endif

template <class T>
void PeerExchange::exchange(const Kokkos::DefaultExecutionSpace& space, const T* send, std::vector<ExchangePiece>& sends,
                            T* receive, std::vector<ExchangePiece>& receives) {
  static_assert(sizeof(T) % 4 == 0, "moved as 4-byte words");
  queue(space, reinterpret_cast<const char*>(send), sizeof(T), sends, reinterpret_cast<char*>(receive), receives, 0);
}

template void PeerExchange::exchange<float>(const Kokkos::DefaultExecutionSpace&, const float*,
                                            std::vector<ExchangePiece>&, float*, std::vector<ExchangePiece>&);
template void PeerExchange::exchange<double>(const Kokkos::DefaultExecutionSpace&, const double*,
                                             std::vector<ExchangePiece>&, double*, std::vector<ExchangePiece>&);

}  // namespace trident::transport
