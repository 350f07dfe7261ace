#include "knn/search.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "core/error.hpp"
#include "core/device_buffers.hpp"
#include "core/host_threads.hpp"
#include "core/page_lock.hpp"
#include "core/timers.hpp"
#include "io/huge_pages.hpp"
#include "io/plain_numbers.hpp"
#include "knn/buffer_kernels.hpp"
#include "knn/list_bound.hpp"
#include "knn/screen_kernels.hpp"
#include "knn/select_kernels.hpp"
#include "knn/settle_kernels.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace trident::knn {

namespace {

using HostUnmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;

// Register-list lengths K (see screen() for the observations per thread; which of them
// the automatic choice uses: longest_register_list).
constexpr int kBuckets[] = {2, 4, 8, 12, 20, 32, 40, 48, 64, 80};

// The longest register list of screening precision T: on GPUs 48 in float32 and 20 in
// float64, longer lists going to the buffer screen, whose buffers in global memory beat
// the register lists beyond (an H200, lists starting at the places' bound, search s:
// float32 k = 32 (K = 40) 0.0469 in registers against 0.0499, k = 36 (K = 48) 0.0522
// against 0.0531, k = 48 (K = 64) 0.0500 against 0.0357; float64 k = 16 (K = 20) 0.0720
// against 0.0788, k = 24 (K = 32) 0.0950 against 0.0884, k = 48 0.0672 against 0.0399;
// float64 lists of 40 and more also spill, ptxas for sm_90). On host back ends 32:
// there the any-k screen is faster beyond (CPU build, 2^16 x 2^12: k = 32 1.19 s against
// 1.41 s through lists of 40, k = 64 1.86 s against 2.51 s through lists of 80).
// `long_lists` (a test hook) lifts it to 80 in float32 and 64 in float64 everywhere.
template <class T>
constexpr int longest_register_list(bool long_lists) {
  constexpr bool f64 = std::is_same<T, double>::value;
  return long_lists ? (f64 ? 64 : 80) : kSelectLanes == 1 ? 32 : f64 ? 20 : 48;
}

// The longest list that the automatic choice keeps in buffers (buffer_kernels.hpp) where
// no register bucket holds it. On GPUs 80 (k up to 64): on an H200, 2^20 x 2^14, k = 64
// took 0.0679 s in float32 (lists of 80 in registers 0.0726-0.0761 s over four calls) and
// 0.0894-0.0897 s in float64 (the any-k screen 0.0957-0.0983 s), but k = 256 0.062 s
// against the any-k screen's 0.041-0.046 s. None on host back ends: the any-k screen,
// one thread a list, is the same scheme without staging.
constexpr int longest_buffer_list() {
  return kSelectLanes == 1 ? 0 : 80;
}

// Which screen keeps a pass's lists (see Searcher::screen): sorted lists in registers
// (kBuckets), per-observation candidate buffers in team scratch memory
// (buffer_kernels.hpp) or the any-k screen's lane groups (select_kernels.hpp).
enum class ListKind { registers, buffers, select };

struct ListChoice {
  int kc = 0;  // entries kept per observation
  ListKind kind = ListKind::select;
};

// The screen a search asks for: the tests' hooks (SearchOptions), else TRIDENT_KNN_LISTS
// (auto, registers, buffers or select; for benchmarks), else auto (nullopt). A kind that
// cannot hold a list gives way (see choose_lists): registers beyond the longest bucket to
// the any-k screen, buffers beyond what buffers_fit allows to the automatic choice.
std::optional<ListKind> forced_list_kind(const SearchOptions& options) {
  if (options.select_only) return ListKind::select;
  if (options.buffers_only) return ListKind::buffers;
  const char* text = std::getenv("TRIDENT_KNN_LISTS");
  const std::string value = text == nullptr ? "auto" : text;
  if (value == "auto" || value.empty()) return std::nullopt;
  if (value == "registers") return ListKind::registers;
  if (value == "buffers") return ListKind::buffers;
  if (value == "select") return ListKind::select;
  throw InputError("TRIDENT_KNN_LISTS: expected auto, registers, buffers or select, got '" + value + "'");
}

// The chunks a pipelined batch is cut into: the tests' hook (SearchOptions::chunks), else
// TRIDENT_KNN_CHUNKS (auto, or a count from 1 to 64; for benchmarks), else 0 (by size).
int forced_chunks(const SearchOptions& options) {
  if (options.chunks > 0) return options.chunks;
  const char* text = std::getenv("TRIDENT_KNN_CHUNKS");
  const std::string value = text == nullptr ? "auto" : text;
  if (value == "auto" || value.empty()) return 0;
  long long count = 0;  // the integers the other knobs take (ridge/row_schedule.cpp): digits, no sign or spaces
  if (!io::plain_integer(value.data(), value.data() + value.size(), count) || count < 1 || count > 64)
    throw InputError("TRIDENT_KNN_CHUNKS: expected auto or a count from 1 to 64, got '" + value + "'");
  return static_cast<int>(count);
}

// The shortest register bucket that holds `wanted` entries, if one up to `longest` does.
std::optional<int> register_bucket(int wanted, int longest) {
  for (int b : kBuckets) {
    if (b >= wanted && b <= longest) return b;
  }
  return std::nullopt;
}

// A pass that keeps `wanted` entries: in registers while a bucket up to
// `longest_registers` holds them, else max(wanted, least) but at most n_refs entries, in
// buffers up to `longest_buffers` entries where `buffers_fit`, else in the any-k screen;
// a forced kind first where it can hold them.
template <class BuffersFit>
ListChoice choose_lists(int wanted, int least, std::int64_t n_refs, std::optional<ListKind> forced,
                        int longest_registers, int longest_buffers, BuffersFit buffers_fit) {
  const int whole = static_cast<int>(std::min<std::int64_t>(std::max(wanted, least), n_refs));
  if (forced == ListKind::select) return {whole, ListKind::select};
  if (forced == ListKind::buffers && buffers_fit(whole)) return {whole, ListKind::buffers};
  if (const std::optional<int> bucket = register_bucket(wanted, longest_registers)) {
    return {*bucket, ListKind::registers};
  }
  if (forced != ListKind::registers && whole <= longest_buffers && buffers_fit(whole)) {
    return {whole, ListKind::buffers};
  }
  return {whole, ListKind::select};
}

template <class T>
std::size_t scratch_points() {
  return std::is_same<T, float>::value ? 1024 : 512;  // 16 KiB of staged references
}

// Teams of 128 an SM that the register screen of lists of K is compiled for (0: as many
// as its registers allow). Unbounded, float32 lists of 32 to 64 take 106 to 176 registers
// a thread, 4 to 2 teams an SM; held one team more (96 to 168 registers, 32 to 56 bytes
// spilled), they screened faster on an H200: lists of 32 (k = 24) by 8 %, 40 (k = 32) by
// 6 %, 48 (k = 36) by 13 %, 64 (k = 48) by 21 %. Lists of 20 and less fit 5 or 6 teams
// already. Float64 lists bounded the same way screened slower (k = 16: 7.7e11 against
// 1.06e12 pairs/s): their hot loop waits on float64 arithmetic, and the spills cost.
template <class T, int K>
constexpr int register_screen_blocks() {
  if (!std::is_same<T, float>::value) return 0;
  return K == 32 ? 5 : K == 40 || K == 48 ? 4 : K == 64 ? 3 : 0;
}

// The team scratch memory (level 0, shared memory on GPUs) a team may have.
std::size_t team_scratch_limit() {
  return static_cast<std::size_t>(Kokkos::TeamPolicy<ExecSpace>(1, Kokkos::AUTO).scratch_size_max(0));
}

// Launches a team screen: `obs_per_thread` observations per thread and `segments` teams
// per block of observations (one per reference segment), with `scratch(team_size)` bytes
// of team scratch memory. On GPUs teams of 128 threads, or fewer where their scratch would
// not fit: Kokkos' team_size_max answered 1 for the float64 register screens (100 and
// more registers a thread), which then ran one thread per block, 1/32 of each warp busy
// (float64 k = 16 took 9.7 s instead of about 0.1 s on an H200). Elsewhere the largest
// team the back end allows, capped at 128 (1 on Serial). MinBlocks > 0 compiles the
// kernel for that many teams of 128 an SM (Kokkos::LaunchBounds: a register cap).
template <int MinBlocks = 0, class Functor, class ScratchBytes>
void launch_team(const ExecSpace& space, const std::string& label, Functor f, int n_obs, int obs_per_thread,
                 int segments, ScratchBytes scratch) {
  using Policy = std::conditional_t<MinBlocks == 0, Kokkos::TeamPolicy<ExecSpace>,
                                    Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<128, MinBlocks>>>;
  int team = 1;
  if (kSelectLanes > 1) {
    const std::size_t level0 = team_scratch_limit();
    team = 128;
    while (team > 32 && scratch(team) + 256 > level0) team /= 2;
  } else {
    Policy probe(1, Kokkos::AUTO);  // (the same policy: a probe of another would compile another kernel)
    probe.set_scratch_size(0, Kokkos::PerTeam(scratch(128)));
    team = std::max(1, std::min(128, probe.team_size_max(f, Kokkos::ParallelForTag())));
  }
  const int per_team = team * obs_per_thread;
  const int league = (n_obs + per_team - 1) / per_team * segments;
  Policy policy(space, league, team);
  policy.set_scratch_size(0, Kokkos::PerTeam(scratch(team) + 256));  // 256: alignment of the parts
  Kokkos::parallel_for(label, policy, f);
}

// Copies between host and device for chunked batches. On CUDA with `overlap`, uploads run
// on one stream and downloads on another, ordered against the kernels (on the default
// execution space's stream) by events, so chunk c's results travel while chunk c + 1 is
// screened; elsewhere, and without `overlap`, each copy completes before the call returns.
class Transfers {
 public:
  explicit Transfers(bool overlap) {
#if defined(KOKKOS_ENABLE_CUDA)
    if (overlap && std::is_same<ExecSpace, Kokkos::Cuda>::value) {
      overlap_ = cudaStreamCreateWithFlags(&up_, cudaStreamNonBlocking) == cudaSuccess &&
                 cudaStreamCreateWithFlags(&down_, cudaStreamNonBlocking) == cudaSuccess;
      if (!overlap_) (void)cudaGetLastError();
    }
#else
    (void)overlap;
#endif
  }
  ~Transfers() {
#if defined(KOKKOS_ENABLE_CUDA)
    if (up_ != nullptr) cudaStreamDestroy(up_);
    if (down_ != nullptr) cudaStreamDestroy(down_);
#endif
  }
  Transfers(const Transfers&) = delete;
  Transfers& operator=(const Transfers&) = delete;

  // Host to device; kernels launched on `space` after this call see the data.
  void upload(const ExecSpace& space, void* device, const void* host, std::size_t bytes) {
#if defined(KOKKOS_ENABLE_CUDA)
    if (overlap_) {
      if (start_ == nullptr) check(cudaEventRecord(start_ = timed_event(), up_));
      check(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, up_));
      cudaEvent_t done = event();
      check(cudaEventRecord(done, up_));
      check(cudaStreamWaitEvent(space.cuda_stream(), done, 0));
      return;
    }
#endif
    (void)space;
    Kokkos::View<char*, DeviceMemory, HostUnmanaged> to(static_cast<char*>(device), bytes);
    Kokkos::View<const char*, Kokkos::HostSpace, HostUnmanaged> from(static_cast<const char*>(host), bytes);
    Kokkos::deep_copy(to, from);
  }

  // Device to host once the kernels launched on `space` so far are done; complete after
  // finish().
  void download(const ExecSpace& space, void* host, const void* device, std::size_t bytes) {
#if defined(KOKKOS_ENABLE_CUDA)
    if (overlap_) {
      cudaEvent_t ready = timed_event();
      check(cudaEventRecord(ready, space.cuda_stream()));
      check(cudaStreamWaitEvent(down_, ready, 0));
      check(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, down_));
      cudaEvent_t done = timed_event();
      check(cudaEventRecord(done, down_));
      marks_.push_back({ready, done});
      return;
    }
#endif
    (void)space;
    Kokkos::View<char*, Kokkos::HostSpace, HostUnmanaged> to(static_cast<char*>(host), bytes);
    Kokkos::View<const char*, DeviceMemory, HostUnmanaged> from(static_cast<const char*>(device), bytes);
    Kokkos::deep_copy(to, from);
  }

  // Waits for every copy; returns, for each download, when its data were ready and when
  // it had arrived (ms after the first upload; empty without overlap).
  std::vector<SearchStats::ChunkTimes> finish() {
    std::vector<SearchStats::ChunkTimes> times;
#if defined(KOKKOS_ENABLE_CUDA)
    if (overlap_) {
      check(cudaStreamSynchronize(up_));
      check(cudaStreamSynchronize(down_));
      for (const auto& [ready, done] : marks_) {
        float ready_ms = 0.0f, done_ms = 0.0f;
        if (start_ != nullptr && cudaEventElapsedTime(&ready_ms, start_, ready) == cudaSuccess &&
            cudaEventElapsedTime(&done_ms, start_, done) == cudaSuccess)
          times.push_back({ready_ms, done_ms});
      }
      (void)cudaGetLastError();  // a failed reading only leaves the timeline short
      for (cudaEvent_t e : events_) cudaEventDestroy(e);
      events_.clear();
      marks_.clear();
      start_ = nullptr;
    }
#endif
    return times;
  }

 private:
#if defined(KOKKOS_ENABLE_CUDA)
  static void check(cudaError_t e) {
    if (e != cudaSuccess) throw RunError(std::string("knn: CUDA copy failed: ") + cudaGetErrorString(e));
  }
  cudaEvent_t event(unsigned flags = cudaEventDisableTiming) {
    cudaEvent_t e = nullptr;
    check(cudaEventCreateWithFlags(&e, flags));
    events_.push_back(e);
    return e;
  }
  cudaEvent_t timed_event() { return event(cudaEventDefault); }
  cudaStream_t up_ = nullptr, down_ = nullptr;
  std::vector<cudaEvent_t> events_;
  cudaEvent_t start_ = nullptr;                          // the first upload's
  std::vector<std::pair<cudaEvent_t, cudaEvent_t>> marks_;  // each download: ready, done
#endif
  bool overlap_ = false;
};

constexpr std::size_t kMaxChunkSpaces = 8;  // instances a batch's chunks run on at most

template <class T>
class Searcher {
 public:
  Searcher(const std::vector<Vec4<double>>& references, const SearchOptions& options,
           SearchStats& stats)
      : options_(options), stats_(stats), refs64_(references),
        per_team_(kSelectLanes > 1 || options.centre_per_team),
        buffers_(options.device_buffers ? options.device_buffers : std::make_shared<core::DeviceBuffers>()) {
    n_refs_ = static_cast<std::int64_t>(references.size());
    budget_ = search_memory_budget(buffers_->held());
    const std::size_t per_ref = sizeof(Vec4<T>) + sizeof(Vec4<double>);
    tile_ = options.tile_size > 0 ? std::min<std::int64_t>(options.tile_size, n_refs_)
            : n_refs_ * per_ref <= budget_ / 2
                ? n_refs_
                : std::max<std::int64_t>(1, static_cast<std::int64_t>(budget_ / 4 / per_ref));
    tiles_ = (n_refs_ + tile_ - 1) / tile_;
    stats_.tiles = tiles_;
    tile_screen_ = buffers_->view<PointsView<T>>(name("reference_tile"), per_team_ ? 0 : tile_);
    tile64_ = buffers_->view<PointsView<double>>(name("reference_tile64"), tile_);
    centre_.point = buffers_->view<decltype(centre_.point)>(name("centre"));
    // replicated: stays for the whole search, and for the next searches that share the
    // buffers (a study's rounds and widened passes: 512 KiB from pageable memory each time
    // otherwise, paid on every rank count; four H100s, k = 1: setup 0.3-0.6 ms a search
    // before, 0.1 after)
    if (tiles_ == 1 && buffers_->filled_with(name("reference_tile64")) != tile_label(0)) upload_tile(0);
  }

  // Allocates (in the device buffers) the arrays of a search of `rows` contiguous
  // observations with `lists`.
  void reserve(std::int64_t rows, ListChoice lists) {
    const double start = wall_seconds();
    (void)arrays_for(static_cast<int>(batch_rows(rows, lists)), lists);
    (void)chunk_spaces(kMaxChunkSpaces, lists);  // the pipelined chunks' streams
    Kokkos::fence();
    stats_.arrays_seconds += wall_seconds() - start;
  }

  std::int64_t reference_count() const { return n_refs_; }

  // Whether the buffer screen can hold lists of kc: on GPUs in global memory (scratch
  // level 1, one buffer for every thread the device runs at once) within 2 GiB.
  static bool buffers_fit(int kc) {
    using Screen = BufferScreen<T, kSelectLanes>;
    if (kSelectLanes == 1) return true;
    const auto threads = static_cast<std::size_t>(ExecSpace().concurrency());
    return threads * Screen::capacity_for(kc) * sizeof(Candidate<T>) <= (std::size_t(2) << 30);
  }

  // Searches observations `which` with lists of `lists.kc` entries, each list starting at
  // `bound` (list_bound.hpp; empty: +inf); finished rows go to `out`, the observations
  // whose lists were too short are returned.
  RowList run(const Vec4<double>* observations, RowSelection which, ListChoice lists, bool first_pass,
              ResultRows out, const ListBound& bound = ListBound{}) {
    const int kc = lists.kc;
    const int k = options_.k;
    const std::int64_t batch = batch_rows(static_cast<std::int64_t>(which.size()), lists);
    const int nb = static_cast<int>(batch);
    // which = 0, 1, 2, ...: batches are slices of the caller's arrays, copied in and out
    // without staging on the host
    const bool contiguous = !which.empty() && which[0] == 0 && which[which.size() - 1] == which.size() - 1;

    const double allocation_start = wall_seconds();
    const BatchArrays a = arrays_for(nb, lists);
    // (copies, not structured bindings: C++17 lambdas cannot capture those)
    const auto obs64 = a.obs64;
    const auto frame = a.frame;
    const auto best = a.best;
    const auto best_index = a.best_index;
    const auto angle = a.angle;
    const auto count = a.count;
    const auto out_index = a.out_index;
    const auto out_distance = a.out_distance;
    const auto unproven = a.unproven;
    const auto unproven_count = a.unproven_count;
    const auto offset = a.offset;
    const auto no_init = [](const std::string& label) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, label); };
    // host staging for the scattered observations of wider passes only (contiguous batches
    // copy straight to and from the caller's arrays); never initialized: a first touch of
    // gigabytes of host memory costs more than the whole screen
    Kokkos::View<Vec4<double>*, Kokkos::HostSpace> h_obs64;
    Kokkos::View<NeighbourIndex**, Kokkos::LayoutRight, Kokkos::HostSpace> h_index;
    Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> h_distance;
    if (!contiguous) {
      h_obs64 = decltype(h_obs64)(no_init("trident::knn::observations64_host"), nb);
      h_index = decltype(h_index)(no_init("trident::knn::indices_host"), nb, k);
      h_distance = decltype(h_distance)(no_init("trident::knn::distances_host"), nb, k);
    }
    std::vector<int> h_unproven;

    // phase timing: fence, then charge the time since the last mark to a phase (the
    // widened passes are charged as a whole)
    Kokkos::fence();
    double mark = wall_seconds();
    stats_.arrays_seconds += mark - allocation_start;
    const auto charge = [&](double& phase) {
      Kokkos::fence();
      const double now = wall_seconds();
      (first_pass ? phase : stats_.widened_seconds) += now - mark;
      mark = now;
    };
    const int kept = static_cast<int>(std::min<std::int64_t>(kc, n_refs_));
    RowList failed;
    const std::int64_t total = which.size();
    for (std::int64_t first = 0; first < total; first += batch) {
      const int n = static_cast<int>(std::min<std::int64_t>(batch, total - first));
      ++stats_.batches;
      // chunks: transfers of one overlap the kernels of the next (contiguous batches with
      // resident references only: tiles would be uploaded again for every chunk)
      const int chunks = chunk_count(n, screen_threads(n, lists), contiguous && tiles_ == 1);
      Transfers transfers(chunks > 1);
      Kokkos::deep_copy(unproven_count, 0);
      if (!contiguous) {
        for (int o = 0; o < n; ++o) h_obs64(o) = observations[which[first + o]];
      }
      const std::vector<int> starts = chunk_starts(n, chunks);
      const std::vector<ExecSpace> spaces = chunk_spaces(starts.size() - 1, lists);
      if (chunks > 1) stats_.pipelined_chunks += static_cast<std::int64_t>(starts.size()) - 1;
      for (std::size_t ci = 0; ci + 1 < starts.size(); ++ci) {
        const int c0 = starts[ci], cn = starts[ci + 1] - c0, c1 = c0 + cn;
        space_ = spaces[std::min(ci, spaces.size() - 1)];
        const auto range = Kokkos::RangePolicy<ExecSpace>(space_, c0, c1);
        transfers.upload(space_, obs64.data() + c0, contiguous ? observations + first + c0 : h_obs64.data() + c0,
                         static_cast<std::size_t>(cn) * sizeof(Vec4<double>));
        if (chunks == 1) charge(stats_.upload_seconds);
        start_lists(frame, best, best_index, c0, cn, bound);
        screen_tiles(frame, best, best_index, c0, cn, lists);
        if (chunks == 1) charge(stats_.screen_seconds);
        Kokkos::parallel_for("trident::knn::bound", range,
                             Bound<T>{best, count, offset, k, kept, kept == n_refs_});
        // last tile first: the screen left it on the device
        for (std::int64_t tile = tiles_ - 1; tile >= 0; --tile) {
          if (tile + 1 < tiles_) upload_tile(tile);
          Settle settle{obs64, tile64_, best_index, count, angle, static_cast<int>(tile * tile_),
                        static_cast<int>(tile_count(tile))};
          Kokkos::parallel_for("trident::knn::settle", range, settle);
        }
        Kokkos::parallel_for("trident::knn::order", range, Order{best_index, count, angle, k, kept == n_refs_});
        const int rows_per_team = WriteRows::rows_for(k);
        Kokkos::parallel_for("trident::knn::write_rows",
                             Kokkos::TeamPolicy<ExecSpace>(space_, (cn + rows_per_team - 1) / rows_per_team, Kokkos::AUTO),
                             WriteRows{best_index, angle, out_index, out_distance, k, c0, cn, rows_per_team,
                                       options_.radius});
        if (chunks == 1) charge(stats_.settle_seconds);
        // results: straight into the caller's rows, or into staging for scattered rows (the
        // rows of unproven observations are overwritten by the wider search)
        const std::size_t row0 = static_cast<std::size_t>(c0) * k, rows = static_cast<std::size_t>(cn) * k;
        transfers.download(space_, contiguous ? out.indices + (first + c0) * k : h_index.data() + row0,
                           out_index.data() + row0, rows * sizeof(NeighbourIndex));
        transfers.download(space_, contiguous ? out.distances + (first + c0) * k : h_distance.data() + row0,
                           out_distance.data() + row0, rows * sizeof(double));
      }
      space_ = ExecSpace();
      if (chunks > 1) {
        for (const ExecSpace& space : spaces) space.fence();  // the kernels; copies may still run
        const double now = wall_seconds();
        (first_pass ? stats_.screen_seconds : stats_.widened_seconds) += now - mark;
        mark = now;
      }
      Kokkos::parallel_for(
          "trident::knn::gather_unproven", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(int o) {
            if (count(o) < 0) unproven(Kokkos::atomic_fetch_add(&unproven_count(), 1)) = o;
          });
      int n_failed = 0;
      Kokkos::deep_copy(n_failed, unproven_count);
      h_unproven.resize(static_cast<std::size_t>(n_failed));
      if (n_failed > 0) {
        Kokkos::View<int*, Kokkos::HostSpace, HostUnmanaged> rows_host(h_unproven.data(), h_unproven.size());
        Kokkos::deep_copy(rows_host, Kokkos::subview(unproven, std::make_pair(0, n_failed)));
        std::sort(h_unproven.begin(), h_unproven.end());
      }
      const std::vector<SearchStats::ChunkTimes> downloads = transfers.finish();
      if (downloads.size() == 2 * (starts.size() - 1) && n > stats_.chunk_times_rows) {
        // two downloads a chunk: its rows are ready at the indices' and down with the distances
        stats_.chunk_times.clear();
        for (std::size_t d = 0; d < downloads.size(); d += 2)
          stats_.chunk_times.push_back({downloads[d].ready_ms, downloads[d + 1].downloaded_ms});
        stats_.chunk_times_rows = n;
      }
      if (contiguous) {
        for (int o : h_unproven) failed.push_back(first + o);
        charge(stats_.download_seconds);
        continue;
      }
      for (int o : h_unproven) failed.push_back(which[first + o]);
      std::size_t next_unproven = 0;
      for (int o = 0; o < n; ++o) {
        const std::int64_t row = which[first + o];
        if (next_unproven < h_unproven.size() && h_unproven[next_unproven] == o) {
          ++next_unproven;
          continue;
        }
        for (int i = 0; i < k; ++i) {
          out.indices[row * k + i] = h_index(o, i);
          out.distances[row * k + i] = h_distance(o, i);
        }
      }
      charge(stats_.download_seconds);
    }
    return failed;
  }

  // The list bound (list_bound.hpp) from at most `most_places` places, their reaches found
  // with lists like `lists`.
  ListBound bound_from(std::int64_t most_places, ListChoice lists) {
    const ListBound bound = ListBound::places_of(refs64_, most_places);
    if (bound.places.extent(0) > 0) find_reaches(bound.places, lists);
    return bound;
  }

  // Sets places(j).w to place j's reach (list_bound.hpp): the limit of the screening
  // window of its lists' last entry, a chord within which at least lists.kc references
  // lie (geometry.hpp: the true chord of the entry is at most sqrt(S) + B(S)). A screen of
  // the places as observations, without settling or downloading.
  void find_reaches(const PointsView<double>& places, ListChoice lists) {
    // Places are few (at most 2^14 at the benchmarks' sizes): the buffer screen, a thread
    // a place walking every reference, would leave most of the device idle; the any-k
    // screen runs a lane group per 4 places (on an H200, k = 64 over 2^14 references: the
    // setup 2.6 ms against 3.6).
    if (lists.kind == ListKind::buffers) lists.kind = ListKind::select;
    const int n = static_cast<int>(places.extent(0)), kc = lists.kc;
    int columns = kc * (lists.kind == ListKind::registers ? max_segments(n) : 1);
    // (one segment when the segments' lists would take more than a quarter of the budget)
    if (static_cast<std::size_t>(n) * static_cast<std::size_t>(columns) * (sizeof(T) + sizeof(int)) > budget_ / 4) {
      columns = kc;
    }
    core::DeviceBuffers& b = *buffers_;
    const auto places_screen = b.view<PointsView<T>>(name("places_screen"), per_team_ ? 0 : n);
    const auto offset = b.view<Kokkos::View<double*, DeviceMemory>>(name("place_offsets"), n);
    const auto best = b.view<ListValues<T>>(name("place_list_values"), n, columns);
    const auto best_index = b.view<ListIndices>(name("place_list_indices"), n, columns);
    const ScreenFrame<T> frame{places_screen, tile_screen_, places, tile64_, offset, per_team_};
    start_lists(frame, best, best_index, 0, n, ListBound{});
    screen_tiles(frame, best, best_index, 0, n, lists);
    Kokkos::parallel_for(
        "trident::knn::place_reaches", Kokkos::RangePolicy<ExecSpace>(0, n),
        KOKKOS_LAMBDA(int j) { places(j).w = ScreeningWindow<T>(best(j, kc - 1), offset(j)).limit; });
  }

  // (public: nvcc takes no extended lambda in a private member function)
  // The lists of observations [c0, c0 + cn) of a batch: per chunk (host back ends) the
  // chunk's screening coordinates first, relative to a centre of its observations (per team
  // the screens make their own: see ScreenFrame); then every column of every list (the
  // other segments' too: see RegisterScreen) set to (start, kNoIndex), the start from
  // `bound` (list_bound.hpp; +inf without places).
  void start_lists(const ScreenFrame<T>& frame, const ListValues<T>& best, const ListIndices& best_index, int c0,
                   int cn, const ListBound& bound) {
    if (!per_team_) {
      Kokkos::parallel_for("trident::knn::find_centre", Kokkos::RangePolicy<ExecSpace>(space_, 0, 1),
                           FindCentre{frame.obs64, centre_, c0, cn});
    }
    const Centre centre = centre_;
    const bool per_team = per_team_;
    const int columns = static_cast<int>(best.extent(1));
    const PointsView<T> obs_screen = frame.obs;
    const PointsView<double> obs64 = frame.obs64;
    const Kokkos::View<double*, DeviceMemory> offset = frame.offset;
    Kokkos::parallel_for(
        "trident::knn::init_lists", Kokkos::RangePolicy<ExecSpace>(space_, c0, c0 + cn), KOKKOS_LAMBDA(int o) {
          if (!per_team) {  // the screening copy, made once per chunk
            obs_screen(o) = centre.relative<T>(obs64(o));
            offset(o) = centre.offset(obs64(o));
          }
          const T start = bound.template start_value<T>(obs64(o));
          for (int i = 0; i < columns; ++i) {
            best(o, i) = start;
            best_index(o, i) = kNoIndex;
          }
        });
  }

  // Screens every tile into the lists of observations [c0, c0 + cn), merging segments.
  void screen_tiles(const ScreenFrame<T>& frame, const ListValues<T>& best, const ListIndices& best_index, int c0,
                    int cn, ListChoice lists) {
    for (std::int64_t tile = 0; tile < tiles_; ++tile) {
      if (tiles_ > 1) upload_tile(tile);
      if (!per_team_) screen_copy(tile);
      const int segments = screen(frame, best, best_index, c0, cn, tile, lists);
      if (segments > 1) {
        Kokkos::parallel_for("trident::knn::merge_segments", Kokkos::RangePolicy<ExecSpace>(space_, c0, c0 + cn),
                             MergeSegments<T>{best, best_index, lists.kc, segments});
      }
    }
  }

 private:
  std::int64_t tile_count(std::int64_t tile) const {
    return std::min<std::int64_t>(tile_, n_refs_ - tile * tile_);
  }

  // The tile's float64 unit vectors to the device.
  void upload_tile(std::int64_t tile) {
    const std::int64_t first = tile * tile_, n = tile_count(tile);
    const auto range = std::make_pair<std::size_t, std::size_t>(0, static_cast<std::size_t>(n));
    Kokkos::View<const Vec4<double>*, Kokkos::HostSpace, HostUnmanaged> host(refs64_.data() + first, n);
    Kokkos::deep_copy(Kokkos::subview(tile64_, range), host);
    buffers_->mark_filled(name("reference_tile64"), tile_label(tile));
    ++stats_.reference_uploads;
  }

  // What the reference tile buffer holds after upload_tile(tile): which references (the
  // searches that share device buffers share their references: SearchOptions), which rows.
  std::string tile_label(std::int64_t tile) const {
    return std::to_string(reinterpret_cast<std::uintptr_t>(refs64_.data())) + ":" + std::to_string(n_refs_) + ":" +
           std::to_string(tile * tile_) + "+" + std::to_string(tile_count(tile));
  }

  // The uploaded tile's screening coordinates, relative to the current chunk's centre.
  void screen_copy(std::int64_t tile) {
    Kokkos::parallel_for("trident::knn::screen_references", Kokkos::RangePolicy<ExecSpace>(space_, 0, tile_count(tile)),
                         RelativeCopy<T>{tile64_, tile_screen_, centre_});
  }

  // Observations per thread of the register screen for lists of kc (see screen()).
  static int observations_per_thread(int kc) { return kc <= 4 ? 4 : kc <= 12 ? 2 : 1; }

  // Threads of the screen of n observations: the register screen runs
  // observations_per_thread(kc) a thread, the buffer screen one, the any-k screen a lane
  // group of kSelectLanes threads per select_group_observations(kc) observations.
  static std::int64_t screen_threads(int n, ListChoice lists) {
    const int kc = lists.kc;
    if (lists.kind == ListKind::registers) {
      const int per_thread = observations_per_thread(kc);
      return (static_cast<std::int64_t>(n) + per_thread - 1) / per_thread;
    }
    if (lists.kind == ListKind::buffers) return n;
    const int per_group = select_group_observations(kc);
    return (static_cast<std::int64_t>(n) + per_group - 1) / per_group * kSelectLanes;
  }

  // Observations per lane group of the any-k screen: on a GPU 4 while their candidate
  // buffers take at most 12 KiB, else 1 (large k: the buffers would crowd shared memory,
  // and compaction, not the chords, is then most of the work); 1 on host backends.
  static int select_group_observations(int kc) {
    constexpr int V = kSelectLanes;
    if (V == 1) return 1;
    const std::size_t per_list = ScratchCandidates<T>::shmem_size(SelectScreen<T, V, 1>::capacity_for(kc));
    return 4 * per_list <= (12u << 10) ? 4 : 1;
  }

  // Chunks of a batch of `n` observations whose screen runs `threads` threads: on a GPU,
  // as many as leave each chunk's screen about 8 times the device's concurrency in threads
  // (fewer would leave the device idle in each chunk's last wave), at most 16; but at least
  // 4 while each still gets half the concurrency, so that a rank's smaller batch (2^22
  // observations on each of 4 ranks) still overlaps most of its transfers with the screen:
  // at 2^22 x 2^14 on an H200, k = 1 in one chunk took 0.035 s (its upload, 2.5 ms, and
  // download, 1.5 ms, outside the screen), in 4 0.031 s; k = 16 in one chunk 0.072 s, in 4
  // 0.054 s. 1 when `allowed` is false or elsewhere but for observations ordered by place
  // (options.chunks forces a count, for the tests). More
  // chunks, or a short first and last one, measured slower where the rows outlast the
  // screen (k = 64 at 2^22 x 2^14 on an H200, rows 78 ms over the link beside an 80 ms
  // screen: 4 equal chunks 0.1145 s, 8 0.1171, 16 0.1276, the first and last a quarter of
  // the others 0.1248): each chunk's screen ends in a partly filled wave.
  int chunk_count(int n, std::int64_t threads, bool allowed) const {
    if (!allowed) return 1;
    if (const int forced = forced_chunks(options_); forced > 0) return std::max(1, std::min(forced, n));
#if defined(KOKKOS_ENABLE_CUDA)
    if (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
      const auto concurrency = static_cast<std::int64_t>(ExecSpace().concurrency());
      const std::int64_t wanted =
          std::max(threads / (8 * concurrency), std::min<std::int64_t>(4, threads / std::max<std::int64_t>(1, concurrency / 2)));
      return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(16, wanted)));
    }
#endif
    (void)threads;
    // Observations in the order of their places: chunks of 16384 (at most 64), so that only
    // the chunks where one place ends and the next begins mix them.
    if (options_.ordered_by_place) return std::max(1, std::min(64, n / 16384));
    return 1;
  }

  // Where the chunks of a batch of `n` rows start (and, last, n): `chunks` equal ones, the
  // last of them halved twice (1/2, 1/4, 1/4 of it) when there are several, so that less is
  // left to download after the last kernel. On four H100s of one host, k = 16 over
  // 2^22 x 2^14 a rank: 4.1 ms of rows downloading after the last kernel against 7.5 ms
  // with 4 equal chunks, the screen itself no slower (44.5 against 43.9 ms); on one,
  // 2^24 x 2^14, 2.9 against 11.2 ms. Eight equal chunks instead left 3.5 ms but
  // screened 2.7 ms slower (each chunk ends in a partly filled wave; these pieces are few);
  // eight cut this way (TRIDENT_KNN_CHUNKS=8), again on four H100s: 0.7 ms left against
  // 1.5, the search 0.0483-0.0493 s against 0.0446-0.0466 (k = 1: 0.0281 against 0.0258).
  // The first chunk is cut the same way (1/4, 1/4, 1/2 of it): nothing runs while its
  // observations upload (32 bytes each: 2.4 ms for a quarter of 2^24 on one H100). k = 1
  // on one H100 0.0978 s against 0.0986; on four, unchanged within the noise.
  static std::vector<int> chunk_starts(int n, int chunks) {
    const int per_chunk = (n + chunks - 1) / chunks;
    std::vector<int> starts{0};
    if (chunks > 1 && per_chunk >= 4) starts.insert(starts.end(), {per_chunk / 4, per_chunk / 2});
    for (int c0 = per_chunk; c0 < n; c0 += per_chunk) starts.push_back(c0);
    const int halvings = chunks > 1 ? 2 : 0;
    for (int h = 0; h < halvings && n - starts.back() >= 2; ++h) starts.push_back(starts.back() + (n - starts.back()) / 2);
    starts.push_back(n);
    return starts;
  }

  // Where the kernels of each of `pieces` chunks run: with register lists (which need no
  // scratch memory of the instance's own) chunk i on instance i of falling priority (the
  // last one takes the chunks past the device's levels), so that the next chunk's screen
  // fills what the current one leaves idle (its last, partly filled wave, its settling)
  // while the current one still finishes first and downloads first. On four H100s of one
  // host (2^24 x 2^14 over the ranks): k = 1 on four ranks 0.0264 to 0.0269 s against
  // 0.0284 to 0.0288 on one stream, on one rank 0.0984 against 0.1010 to 0.1020; k = 16 on
  // one rank 0.1730 against 0.1743 to 0.1752. Alternating two streams of one priority
  // instead let neighbouring chunks share the device and finish late together: k = 16 on
  // four ranks, the rows downloading after the last kernel went from 3.3 to 4.2 ms to
  // 8.7 to 14.6 ms.
  std::vector<ExecSpace> chunk_spaces(std::size_t pieces, ListChoice lists) {
    if (pieces < 2 || lists.kind != ListKind::registers) return {ExecSpace()};
    return buffers_->prioritized_spaces(std::min(pieces, kMaxChunkSpaces));
  }

  // Segments for a launch of `n` observations, `per_thread` to a thread, over a tile of
  // `refs` references: enough (thread, segment) pairs for twice the device's concurrency,
  // segments of at least 512 references, at most `limit`.
  int segment_count(int n, int per_thread, std::int64_t refs, int limit) const {
    if (options_.segments > 0) return static_cast<int>(std::min<std::int64_t>({options_.segments, refs, limit}));
    const std::int64_t threads = std::max<std::int64_t>(1, (n + per_thread - 1) / per_thread);
    const std::int64_t want = 2 * static_cast<std::int64_t>(ExecSpace().concurrency()) / threads;
    return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>({want, refs / 512, limit})));
  }

  int max_segments(int nb) const {
    return options_.segments > 0 ? options_.segments : std::max(1, std::min(64, segment_count(nb, 4, tile_, 64)));
  }

  // Runs the screen of one tile; returns the number of reference segments it used.
  int screen(const ScreenFrame<T>& frame, const ListValues<T>& best, const ListIndices& best_index,
             int first_obs, int n, std::int64_t tile, ListChoice lists) {
    const int kc = lists.kc;
    const int stage = static_cast<int>(scratch_points<T>());
    const int offset = static_cast<int>(tile * tile_), m = static_cast<int>(tile_count(tile));
    if (lists.kind == ListKind::select) {
      launch_select(frame, best, best_index, first_obs, n, offset, m, stage, kc);
      return 1;
    }
    if (lists.kind == ListKind::buffers) {
      launch_buffers(frame, best, best_index, first_obs, n, offset, m, kc);
      return 1;
    }
    const int limit = static_cast<int>(best.extent(1)) / kc;
    // (list length K, observations per thread P, buffer interval F)
    switch (kc) {
      case 2: return launch_registers<2, 4, 0>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      case 4: return launch_registers<4, 4, 0>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      case 8: return launch_registers<8, 2, 8>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      case 12: return launch_registers<12, 2, 8>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      case 20: return launch_registers<20, 1, 16>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      case 32: return launch_registers<32, 1, 16>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      case 40: return launch_registers<40, 1, 16>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      case 48: return launch_registers<48, 1, 16>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      case 64: return launch_registers<64, 1, 16>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      case 80: return launch_registers<80, 1, 16>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      default: throw RunError("knn: no register screen for lists of " + std::to_string(kc));
    }
  }

  // The any-k screen (select_kernels.hpp), select_group_observations(kc) observations to
  // a lane group.
  void launch_select(const ScreenFrame<T>& frame, const ListValues<T>& best, const ListIndices& best_index,
                     int first_obs, int n, int offset, int m, int stage, int kc) {
    if constexpr (kSelectLanes > 1) {  // (host backends: no instance with 4)
      if (select_group_observations(kc) == 4) {
        launch_select_with<4>(frame, best, best_index, first_obs, n, offset, m, stage, kc);
        return;
      }
    }
    launch_select_with<1>(frame, best, best_index, first_obs, n, offset, m, stage, kc);
  }

  // Lane groups of kSelectLanes with M observations each; on a GPU as many groups per team
  // (at most 8) as keep the team's shared memory within 80 KiB (several teams per SM); when
  // fewer than 4 would fit, the buffers go to scratch level 1 (global memory, cached) and
  // teams have 8 groups, so that a staged block of references serves 8 M observations.
  template <int M>
  void launch_select_with(const ScreenFrame<T>& frame, const ListValues<T>& best, const ListIndices& best_index,
                          int first_obs, int n, int offset, int m, int stage, int kc) {
    constexpr int V = kSelectLanes;
    using Screen = SelectScreen<T, V, M>;
    const int capacity = Screen::capacity_for(kc);
    const std::size_t per_group = ScratchCandidates<T>::shmem_size(static_cast<std::size_t>(M) * capacity);
    const std::size_t staged = ScratchPoints<T>::shmem_size(stage);
    const std::size_t level0 = team_scratch_limit();
    int groups = 1, level = staged + per_group + 512 <= level0 ? 0 : 1;
    if (V > 1) {
      const std::size_t budget = std::min<std::size_t>(level0, 80u << 10);
      const std::size_t fit = budget > staged + 512 ? (budget - staged - 512) / per_group : 0;
      groups = static_cast<int>(std::min<std::size_t>(8, fit));
      level = groups < 4 ? 1 : 0;
      if (level == 1) groups = 8;
    }
    Screen f{frame, best, best_index, n, m, offset, stage, kc, capacity, first_obs, level};
    const int per_team = groups * M;
    Kokkos::TeamPolicy<ExecSpace> policy(space_, (n + per_team - 1) / per_team, groups * V);
    set_screen_scratch(policy, level, staged, groups * per_group);
    Kokkos::parallel_for("trident::knn::screen_select", policy, f);
  }

  // Team scratch of the threshold screens: `staged` bytes of references in shared memory,
  // and `buffers` bytes of candidate buffers beside them (level 0) or in global memory
  // (level 1); 256 bytes each for the alignment of the parts.
  static void set_screen_scratch(Kokkos::TeamPolicy<ExecSpace>& policy, int level, std::size_t staged,
                                 std::size_t buffers) {
    if (level == 0) {
      policy.set_scratch_size(0, Kokkos::PerTeam(staged + buffers + 256));
    } else {
      policy.set_scratch_size(0, Kokkos::PerTeam(staged + 256));
      policy.set_scratch_size(1, Kokkos::PerTeam(buffers + 256));
    }
  }

  // The buffer screen (buffer_kernels.hpp): a thread per observation. On GPUs its buffers
  // go to global memory (scratch level 1, cached in L1) in teams of 128. Before, they went
  // to shared memory in the largest team (128 threads down to a warp) whose scratch fit
  // team_scratch_limit(): teams of 64 or 32 for all but short lists, few warps an SM; on
  // an H200 the buffers in global memory screened faster at every length measured (float32
  // Kc = 20: 1.30e12 against 1.02e12 pairs/s, Kc = 40: 9.5e11 against 5.5e11, Kc = 60:
  // 7.5e11 against 3.7e11; float64 Kc = 20: 1.07e12 against 4.4e11), and the same where
  // shared memory could not hold a team's buffers anyway (Kc = 80, float64 from 40).
  static constexpr int kBufferStage = 256;  // staged references
  struct BufferPlacement {
    int team = 1, level = 0;
  };
  static BufferPlacement buffer_placement() {
    return kSelectLanes == 1 ? BufferPlacement{1, 0} : BufferPlacement{128, 1};
  }
  void launch_buffers(const ScreenFrame<T>& frame, const ListValues<T>& best, const ListIndices& best_index,
                      int first_obs, int n, int offset, int m, int kc) {
    using Screen = BufferScreen<T, kSelectLanes>;
    const int capacity = Screen::capacity_for(kc);
    const BufferPlacement place = buffer_placement();
    Screen f{frame, best, best_index, n, m, offset, kBufferStage, kc, capacity, first_obs, place.level};
    Kokkos::TeamPolicy<ExecSpace> policy(space_, (n + place.team - 1) / place.team, place.team);
    set_screen_scratch(policy, place.level, ScratchPoints<T>::shmem_size(kBufferStage),
                       ScratchCandidates<T>::shmem_size(static_cast<std::size_t>(place.team) * capacity));
    Kokkos::parallel_for("trident::knn::screen_buffers", policy, f);
  }

  template <int K, int P, int F>
  int launch_registers(const ScreenFrame<T>& frame, const ListValues<T>& best, const ListIndices& best_index,
                       int first_obs, int n, int offset, int m, int stage, int limit) {
    using Screen = RegisterScreen<T, K, P, F>;
    const int segments = segment_count(n, P, m, limit);
    Screen f{frame, best, best_index, n, m, offset, stage, segments, first_obs};
    launch_team<register_screen_blocks<T, K>()>(space_, "trident::knn::screen_registers_k" + std::to_string(K), f, n, P,
                                                 segments,
                                                 [stage](int team) { return Screen::scratch_bytes(team, stage); });
    return segments;
  }

  // A batch's device arrays: views over the device buffers (valid until the next batch).
  struct BatchArrays {
    PointsView<double> obs64;
    Kokkos::View<double*, DeviceMemory> offset;
    ScreenFrame<T> frame;
    ListValues<T> best;
    ListIndices best_index;
    Distances angle;
    Counts count;
    OutIndices out_index;
    OutDistances out_distance;
    // the batch rows whose lists could not prove the answer, gathered on the device so
    // that only they come back (an atomic counter; sorted on the host)
    Counts unproven;
    Kokkos::View<int, DeviceMemory> unproven_count;
  };

  // Rows of a batch of a search of `rows` observations with `lists`: as many as the
  // memory budget holds beside the resident references.
  std::int64_t batch_rows(std::int64_t rows, ListChoice lists) const {
    const std::size_t resident = static_cast<std::size_t>(tile_) * (sizeof(Vec4<T>) + sizeof(Vec4<double>));
    const std::size_t per_obs = sizeof(Vec4<T>) + sizeof(Vec4<double>) + sizeof(double) +
                                static_cast<std::size_t>(lists.kc) * (sizeof(T) + sizeof(int) + sizeof(double)) +
                                sizeof(int) + static_cast<std::size_t>(options_.k) * (sizeof(NeighbourIndex) + sizeof(double));
    // (segment lists only matter for batches too small to fill the device: not counted)
    const std::size_t room = budget_ > resident ? budget_ - resident : budget_ / 4;
    std::int64_t batch = std::max<std::int64_t>(1, static_cast<std::int64_t>(room / per_obs));
    batch = std::min<std::int64_t>({batch, rows, 1 << 30});
    if (options_.batch_size > 0) batch = std::min(batch, options_.batch_size);
    return batch;
  }

  BatchArrays arrays_for(int nb, ListChoice lists) {
    core::DeviceBuffers& b = *buffers_;
    BatchArrays a;
    const PointsView<T> obs_screen = b.view<PointsView<T>>(name("observations"), per_team_ ? 0 : nb);
    a.obs64 = b.view<PointsView<double>>(name("observations64"), nb);
    a.offset = b.view<Kokkos::View<double*, DeviceMemory>>(name("offsets"), nb);
    a.frame = ScreenFrame<T>{obs_screen, tile_screen_, a.obs64, tile64_, a.offset, per_team_};
    // register lists get extra columns for the reference segments of small batches
    const int columns = lists.kc * (lists.kind == ListKind::registers ? max_segments(nb) : 1);
    a.best = b.view<ListValues<T>>(name("list_values"), nb, columns);
    a.best_index = b.view<ListIndices>(name("list_indices"), nb, columns);
    a.angle = b.view<Distances>(name("list_angles"), nb, lists.kc);
    a.count = b.view<Counts>(name("settle_counts"), nb);
    a.out_index = b.view<OutIndices>(name("indices"), nb, options_.k);
    a.out_distance = b.view<OutDistances>(name("distances"), nb, options_.k);
    a.unproven = b.view<Counts>(name("unproven_rows"), nb);
    a.unproven_count = b.view<Kokkos::View<int, DeviceMemory>>(name("unproven_count"));
    return a;
  }

  // A device buffer's name: the float32 and float64 searchers' differ.
  static std::string name(const char* what) {
    return std::string("knn::") + what + (std::is_same<T, float>::value ? "_f32" : "_f64");
  }

  const SearchOptions& options_;
  SearchStats& stats_;
  const std::vector<Vec4<double>>& refs64_;
  const bool per_team_;  // screening coordinates per team, else per chunk (ScreenFrame)
  // the device arrays (the caller's, kept between searches, or this search's own); the
  // float32 and float64 searchers of one search use different names, so that both may live
  const std::shared_ptr<core::DeviceBuffers> buffers_;
  Centre centre_;
  std::int64_t n_refs_ = 0, tile_ = 0, tiles_ = 0;
  std::size_t budget_ = 0;
  PointsView<T> tile_screen_;
  PointsView<double> tile64_;
  ExecSpace space_;  // where the kernels of the chunk under way run
};

// The lists of a pass in precision T that keeps `wanted` entries (at least `least` off
// the registers; see choose_lists): the tests' hooks and TRIDENT_KNN_LISTS first, forced
// registers as long as they go (the test hook's length).
template <class T>
ListChoice lists_for(int wanted, int least, std::int64_t n_refs, const SearchOptions& options) {
  const std::optional<ListKind> forced = forced_list_kind(options);
  const bool long_lists = options.long_register_lists || forced == ListKind::registers;
  return choose_lists(wanted, least, n_refs, forced, longest_register_list<T>(long_lists), longest_buffer_list(),
                      Searcher<T>::buffers_fit);
}

template <class T>
ListBound list_bound_in(const std::vector<Vec4<double>>& references, int kc, std::int64_t most_places,
                        const SearchOptions& options) {
  const auto n_refs = static_cast<std::int64_t>(references.size());
  if (kc < 1 || kc > n_refs) return {};
  SearchStats stats;
  Searcher<T> searcher(references, options, stats);
  return searcher.bound_from(most_places, lists_for<T>(kc, 0, n_refs, options));
}

// Places for the first pass's starting bound (list_bound.hpp; 0: lists start empty). Lists
// of 20 and more (shorter ones insert too seldom to pay for the bound), from at most
// n_obs / 32 places and at least 4096: making a bound costs 1 to 2 ms on an H200 (a
// screen of the places, one thread a place over every reference: latency-bound, plus
// the host's radix sort of their keys), which a search of fewer observations would not
// win back; and only when every reference or nearly is one (at
// most Kc / 4 apart in index order): sparser places sit too far from most observations
// for a bound that helps.
// TRIDENT_KNN_LIST_BOUND=on|off sets it as the tests' hook does (on: every reference a
// place, at any size).
std::int64_t bound_places(std::int64_t n_obs, std::int64_t n_refs, int kc, const SearchOptions& options) {
  int use = options.list_bound;
  if (const char* text = std::getenv("TRIDENT_KNN_LIST_BOUND"); use == 0 && text != nullptr) {
    const std::string value = text;
    if (value == "on" || value == "off") {
      use = value == "on" ? 1 : -1;
    } else if (value != "auto" && !value.empty()) {
      throw InputError("TRIDENT_KNN_LIST_BOUND: expected auto, on or off, got '" + value + "'");
    }
  }
  if (use != 0) return use > 0 ? n_refs : 0;
  const std::int64_t most = std::min(n_refs, n_obs / 32);
  if (kc < 20 || most < 4096) return 0;
  return (n_refs + most - 1) / most <= kc / 4 ? most : 0;
}

// The lists of the first pass: k and a quarter more (at least one more), so that most
// observations prove their answer in it.
template <class T>
ListChoice first_pass_lists(std::int64_t n_refs, const SearchOptions& options) {
  return lists_for<T>(options.k + std::max(1, options.k / 4), 0, n_refs, options);
}

// The lists of a widened pass after a pass with `lists`: four times longer, at least 64
// off the registers, in float64.
ListChoice widened_lists(ListChoice lists, std::int64_t n_refs, const SearchOptions& options) {
  return lists_for<double>(4 * lists.kc, 64, n_refs, options);
}

// The list bound of a search of `n_obs` observations: options.bound_cache's when it has
// one for these lists, else made (and kept there).
template <class T>
ListBound list_bound_for(Searcher<T>& searcher, std::int64_t n_obs, ListChoice lists, const SearchOptions& options,
                         SearchStats& stats) {
  const std::int64_t places =
      bound_places(n_obs, static_cast<std::int64_t>(searcher.reference_count()), lists.kc, options);
  if (places == 0) return {};
  ListBoundCache* const cache = options.bound_cache.get();
  if (cache != nullptr && cache->kc == lists.kc && cache->precision == options.precision && cache->places >= places) {
    return cache->bound;
  }
  ListBound bound = searcher.bound_from(places, lists);
  ++stats.bounds_made;
  if (cache != nullptr) *cache = ListBoundCache{lists.kc, options.precision, places, bound};
  return bound;
}

// Rows of the widened pass whose arrays reserve_search allocates: the rows of a round
// whose lists could not prove their answer are few (2525 of 2^24 uniform points at k = 1).
constexpr std::int64_t kWidenedReserve = 65536;

// The device arrays of a search of `n_obs` contiguous observations (and of its first
// widened pass, on kWidenedReserve rows), and its list bound into options.bound_cache: on
// four H100s of one host, four ranks allocating at once, the arrays took 5 to 11 ms of
// each round, and the bound 2.3 to 3.4 ms of the first (k = 16 over 2^14 references). The
// bound depends on the references alone: it is made before the observations' search, as
// an index is built before its queries.
template <class T>
void reserve_in(std::int64_t n_obs, const std::vector<Vec4<double>>& references, const SearchOptions& options) {
  SearchStats unused;
  const auto n_refs = static_cast<std::int64_t>(references.size());
  Searcher<T> searcher(references, options, unused);
  const ListChoice lists = first_pass_lists<T>(n_refs, options);
  searcher.reserve(n_obs, lists);
  (void)list_bound_for(searcher, n_obs, lists, options, unused);
  Searcher<double> widened(references, options, unused);
  widened.reserve(std::min(n_obs, kWidenedReserve), widened_lists(lists, n_refs, options));
}

// Observations 0 to n_obs - 1; `out` holds their n_obs x k rows (made by the caller,
// outside the timed search).
template <class T>
void search(const Vec4<double>* observations, std::int64_t n_obs, const std::vector<Vec4<double>>& references,
            const SearchOptions& options, SearchStats& stats, ResultRows out) {
  const std::int64_t n_refs = static_cast<std::int64_t>(references.size());
  if (n_obs <= 0) return;
  ListChoice lists = first_pass_lists<T>(n_refs, options);
  stats.list_length = lists.kc;
  const double setup_start = wall_seconds();
  Searcher<T> searcher(references, options, stats);
  const ListBound bound = list_bound_for(searcher, n_obs, lists, options, stats);
  Kokkos::fence();
  stats.setup_seconds = wall_seconds() - setup_start;
  stats.bound_places = static_cast<std::int64_t>(bound.places.extent(0));
  RowList todo = searcher.run(observations, RowSelection::all(n_obs), lists, true, out, bound);
  if (todo.empty()) return;
  // Lists too short to prove the answer: references within the screening window of the
  // k-th that the list could not hold (points closer than the screening precision resolves
  // around the chunk's centre, e.g. several dense clusters in one batch, or duplicates).
  // They are searched again in float64 (whose window is about 1e-11 of the radius: only
  // duplicates and near-ties within it need more) with lists four times longer (at least
  // 64 off the registers), until the window closes or every reference is kept.
  Searcher<double> searcher64(references, options, stats);
  while (!todo.empty()) {
    stats.widened += static_cast<std::int64_t>(todo.size());
    lists = widened_lists(lists, n_refs, options);
    todo = searcher64.run(observations, RowSelection(todo), lists, false, out);
  }
}

}  // namespace

ListBound list_bound(const std::vector<Vec4<double>>& references, int kc, std::int64_t most_places,
                     const SearchOptions& options) {
  return options.precision == "float64" ? list_bound_in<double>(references, kc, most_places, options)
                                        : list_bound_in<float>(references, kc, most_places, options);
}

void allocate_rows(Neighbours& rows, std::size_t entries) {
  rows.indices.clear();
  rows.distances.clear();
  io::reserve_huge(rows.indices, entries);
  io::reserve_huge(rows.distances, entries);
  rows.indices.resize(entries);  // not initialized: the threads below touch each page first
  rows.distances.resize(entries);
  NeighbourIndex* const indices = rows.indices.data();
  double* const distances = rows.distances.data();
  core::host_parallel_ranges(static_cast<std::int64_t>(entries), std::int64_t(1) << 18,
                             [&](std::int64_t begin, std::int64_t end) {
                               std::fill(indices + begin, indices + end, NeighbourIndex(-1));
                               std::fill(distances + begin, distances + end, 0.0);
                             });
}

std::vector<Vec4<double>> unit_vectors(const std::vector<double>& lat_lon) {
  std::vector<Vec4<double>> v(lat_lon.size() / 2);
  unit_vectors_into(lat_lon.data(), static_cast<std::int64_t>(v.size()), v.data());
  return v;
}

void reserve_search(std::int64_t n_obs, const std::vector<Vec4<double>>& references, const SearchOptions& options) {
  if (!options.device_buffers || n_obs <= 0 || references.empty()) return;
  if (options.precision == "float64") {
    reserve_in<double>(n_obs, references, options);
  } else {
    reserve_in<float>(n_obs, references, options);
  }
}

std::size_t search_memory_budget(std::size_t held) {
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) return (free_bytes + held) / 2;
  }
#endif
  (void)held;
  return std::size_t(2) << 30;
}

Neighbours nearest(const std::vector<Vec4<double>>& observations,
                   const std::vector<Vec4<double>>& references, const SearchOptions& options,
                   SearchStats* stats) {
  return nearest(observations.data(), static_cast<std::int64_t>(observations.size()), references,
                 options, stats);
}

Neighbours nearest(const Vec4<double>* observations, std::int64_t n_obs,
                   const std::vector<Vec4<double>>& references, const SearchOptions& options,
                   SearchStats* stats) {
  Neighbours out;  // allocated and touched here, outside the timing
  allocate_rows(out, static_cast<std::size_t>(std::max<std::int64_t>(0, n_obs * options.k)));
  // the result rows page-locked while the search writes them: copies from the device into
  // pageable memory go through the driver's small staging buffers at a fraction of the
  // link's speed (k = 16 on 2^24 observations is 3.2 GB)
  const core::PageLock lock_indices(out.indices.data(), out.indices.size() * sizeof(NeighbourIndex));
  const core::PageLock lock_distances(out.distances.data(), out.distances.size() * sizeof(double));
  nearest_into(observations, n_obs, references, options, {out.indices.data(), out.distances.data()}, stats);
  return out;
}

void nearest_into(const Vec4<double>* observations, std::int64_t n_obs,
                  const std::vector<Vec4<double>>& references, const SearchOptions& options, ResultRows rows,
                  SearchStats* stats) {
  if (options.k < 1 || static_cast<std::size_t>(options.k) > references.size()) {
    throw RunError("knn: k must lie between 1 and the number of references");
  }
  if (references.size() >= static_cast<std::size_t>(kNoIndex)) {
    throw InputError("knn: at most 2147483646 references are supported, got " +
                     std::to_string(references.size()));
  }
  SearchStats local;
  SearchStats& s = stats ? *stats : local;
  const double start = wall_seconds();
  if (options.precision == "float64") {
    search<double>(observations, n_obs, references, options, s, rows);
  } else {
    search<float>(observations, n_obs, references, options, s, rows);
  }
  Kokkos::fence();
  s.search_seconds = wall_seconds() - start;
}

}  // namespace trident::knn
