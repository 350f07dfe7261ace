#include "knn/detail/rounds.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstring>
#include <optional>

#include "core/comm.hpp"
#include "core/device_buffers.hpp"
#include "transport/page_lock.hpp"
#include "transport/pinned_host_space.hpp"
#include "core/signals.hpp"
#include "core/timers.hpp"
#include "knn/detail/index/index_search.hpp"
#include "knn/detail/list_bound.hpp"
#include "knn/detail/result_rows.hpp"

namespace trident::knn {

namespace {

constexpr std::int64_t kHostProbe = 65536;          // most rows of the first round on host back ends
constexpr double kHostProbePairs = 67108864.0;      // 2^26 pairs: well under a second on one CPU core
constexpr std::int64_t kHostProbeLeast = 256;       // fewest rows of the first round on host back ends
constexpr std::int64_t kDeviceProbe = 4096;         // rows of the first round on device back ends
constexpr double kDeviceRoundPairs = 68719476736.0;  // 2^36: pairs of the round after it, to k = 64
constexpr double kRoundSeconds = 1.0;        // target length of later rounds: how long a stop may wait
constexpr double kReorderShare = 0.01;       // share of a round searched again past which the rest is reordered
// A search through the spatial index costs about as much a row as the brute force over
// 2^15 references (its leaves and cells a row do not grow with the references): its rounds
// are sized as for that many, not for the catalogue (2^24 references would otherwise cut
// 2^24 rows into 256 rounds, each with the fixed costs of a search).
constexpr std::int64_t kIndexRowReferences = std::int64_t(1) << 15;

// The next round's size: about kRoundSeconds at the rate of the last round, in whole
// batches of `unit`. Each round is one search with its own set-up (the references
// uploaded, the result rows page-locked), so rounds are few: the first round's rate
// includes that set-up and errs slow, and the cap only guards against a wild estimate.
std::int64_t next_round(std::int64_t last, std::int64_t searched, double seconds, std::int64_t unit) {
  if (searched <= 0 || seconds <= 0.0) return last;
  const double wanted = static_cast<double>(searched) * kRoundSeconds / seconds;
  const std::int64_t capped = static_cast<std::int64_t>(std::min(wanted, 1024.0 * static_cast<double>(last)));
  return std::max<std::int64_t>(unit, capped / unit * unit);
}

// The rows page-locked for the whole search, the time taken to lock and unlock them added
// to `seconds` (a tenth of a second or more for gigabytes of rows).
class RowsLock {
 public:
  RowsLock(Neighbours& rows, double& seconds) : seconds_(seconds) {
    const double start = wall_seconds();
    indices_.emplace(rows.indices.data(), rows.indices.size() * sizeof(NeighbourIndex));
    distances_.emplace(rows.distances.data(), rows.distances.size() * sizeof(double));
    seconds_ += wall_seconds() - start;
  }
  ~RowsLock() {
    const double start = wall_seconds();
    indices_.reset();
    distances_.reset();
    seconds_ += wall_seconds() - start;
  }
  RowsLock(const RowsLock&) = delete;
  RowsLock& operator=(const RowsLock&) = delete;

 private:
  double& seconds_;
  std::optional<transport::PageLock> indices_, distances_;
};

// The references a round is sized for (see kIndexRowReferences).
std::int64_t round_references(std::int64_t references, const SearchOptions& options) {
  return options.index ? std::min(references, kIndexRowReferences) : references;
}

}  // namespace

// A probe of 4096 rows on a GPU is enough to see a share of 1 % searched again (two cities
// interleaved: about half), and costs less than 65536; fewer rows searched before the
// order by place also leave fewer to search again (docs/history/knn.md).
// On host back ends the probe is sized by its pairs, so that a stop signal or the first
// progress line waits no longer than about a second whatever the references' count (65536
// rows over 20000 references took 12 s on one core).
std::int64_t probe_round_size(std::int64_t batch_size, bool on_device, std::int64_t references) {
  if (batch_size > 0) return batch_size;
  if (on_device) return kDeviceProbe;
  const double rows = kHostProbePairs / static_cast<double>(std::max<std::int64_t>(references, 1));
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(rows), kHostProbeLeast, kHostProbe);
}

// On a GPU a round costs a few milliseconds whatever its size: the search's set-up (its
// device arrays, unless reserved before the search: reserve_search), and the rows of its
// last slice downloaded after the screen; a rank pays that on any rank count. 2^36 pairs
// take a fraction of a second even in float64 or on clustered points; past k = 64 the
// rows' download and the selection grow with k, hence the budget shrinking as 64 / k. So
// such a round stays well under kRoundSeconds, and four times it, searched as one round,
// under about 2 s, without a measured rate (docs/history/knn.md).
std::int64_t device_round_size(std::int64_t rows_left, std::int64_t references, int k) {
  const double pairs = kDeviceRoundPairs * std::min(1.0, 64.0 / std::max(1, k));
  const auto by_pairs = static_cast<std::int64_t>(pairs / static_cast<double>(std::max<std::int64_t>(1, references)));
  const std::int64_t budget = std::max(kHostProbe, by_pairs);
  return rows_left <= 4 * budget ? std::max<std::int64_t>(1, rows_left) : budget;
}

std::int64_t largest_round(std::int64_t rows, std::int64_t references, const SearchOptions& options) {
  if (!kOnDevice) return 0;
  if (options.batch_size > 0) return std::min(rows, options.batch_size);
  const std::int64_t probe = probe_round_size(0, true, references);
  return rows <= probe ? rows : device_round_size(rows - probe, round_references(references, options), options.k);
}

int search_in_rounds(const Vec4<double>* observations, const std::vector<Vec4<double>>& references,
                     const SearchOptions& given, ChunkRows& rows, MPI_Comm comm, SearchProfile& stats,
                     const std::function<void(std::int64_t)>& after_round) {
  SearchOptions options = given;
  // made by the first round that wants one (or by the caller before the search)
  if (!options.bound_cache) options.bound_cache = std::make_shared<ListBoundCache>();
  // the rounds' device arrays, allocated once (the caller may have done so before the search)
  if (!options.device_buffers) options.device_buffers = std::make_shared<core::DeviceBuffers>();
  const std::size_t k = static_cast<std::size_t>(options.k);
  // every row when none is done (a run that is not a restart), else those not done
  RowList todo;
  if (std::find(rows.done.begin(), rows.done.end(), std::uint8_t(1)) == rows.done.end()) {
    todo = all_rows(rows.count);
  } else {
    for (std::int64_t i = 0; i < rows.count; ++i)
      if (!rows.done[static_cast<std::size_t>(i)]) todo.push_back(i);
  }
  const std::int64_t unit = options.batch_size > 0 ? options.batch_size : 1;
  std::int64_t round = probe_round_size(options.batch_size, kOnDevice,
                                       round_references(static_cast<std::int64_t>(references.size()), options));
  bool probed = false;
  // rows left over by a restart on another rank layout, or ordered by place, need not be
  // contiguous: they are staged here, in the order of `todo`
  Kokkos::View<Vec4<double>*, PinnedHostSpace> staged;
  // Contiguous rounds (all of them but after a restart on another rank layout or once the
  // rows are ordered by place) search straight into the rows, page-locked once for the
  // whole search: no result arrays per round and no copy (k = 16 on 2^24 observations is
  // 4.3 GB of rows).
  const RowsLock lock(rows.neighbours, stats.page_lock_seconds);
  std::size_t next = 0;
  for (;;) {
    const std::int64_t n = std::min<std::int64_t>(round, static_cast<std::int64_t>(todo.size() - next));
    const double start = wall_seconds();
    if (n > 0) {
      const std::int64_t first = todo[next], last = todo[next + static_cast<std::size_t>(n) - 1];
      // `todo` ascends until it is ordered by place, so a round of it is rows first..last
      // when they are n apart (ordered by place, n rows from first to first + n - 1 may be
      // other rows in any order)
      const bool contiguous = !options.ordered_by_place && last - first == n - 1;
      SearchProfile s;
      if (contiguous) {
        const ResultRows into{&rows.neighbours.indices[static_cast<std::size_t>(first) * k],
                              &rows.neighbours.distances[static_cast<std::size_t>(first) * k]};
        if (options.index) index_nearest_into(*options.index, observations + first, n, options, into, &s);
        else nearest_into(observations + first, n, references, options, into, &s);
      } else {
        if (static_cast<std::int64_t>(staged.extent(0)) < n)
          staged = decltype(staged)(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("trident::knn::staged_observations")),
                                    static_cast<std::size_t>(n));
        for (std::int64_t o = 0; o < n; ++o) staged(o) = observations[todo[next + static_cast<std::size_t>(o)]];
        Neighbours found;
        if (options.index) {
          allocate_rows(found, static_cast<std::size_t>(n) * k);
          index_nearest_into(*options.index, staged.data(), n, options, {found.indices.data(), found.distances.data()}, &s);
        } else {
          found = nearest(staged.data(), n, references, options, &s);
        }
        for (std::int64_t o = 0; o < n; ++o) {
          const std::size_t row = static_cast<std::size_t>(todo[next + static_cast<std::size_t>(o)]);
          std::memcpy(&rows.neighbours.indices[row * k], &found.indices[static_cast<std::size_t>(o) * k],
                      k * sizeof(NeighbourIndex));
          std::memcpy(&rows.neighbours.distances[row * k], &found.distances[static_cast<std::size_t>(o) * k],
                      k * sizeof(double));
        }
      }
      if (!probed) stats.first_round_seconds = s.search_seconds;
      stats.add(s);
      if (contiguous) {
        std::fill(rows.done.begin() + first, rows.done.begin() + last + 1, std::uint8_t(1));
      } else {
        for (std::int64_t o = 0; o < n; ++o) rows.done[static_cast<std::size_t>(todo[next + static_cast<std::size_t>(o)])] = 1;
      }
      next += static_cast<std::size_t>(n);
      // Many rows searched again: the batches' slices mix far-apart places (two cities, a
      // city and the globe), and the float32 screen around a slice's centre cannot resolve
      // neighbours within each place. The rows left are searched in the order of their
      // places from then on, so that a slice covers one place (a row's answer does not
      // depend on its batch; the rows then take the staged path). Once per search. (The
      // index puts every batch in key order itself and screens each row around itself.)
      if (!options.index && stats.reordered_rows == 0 && next < todo.size() &&
          static_cast<double>(s.widened) > kReorderShare * static_cast<double>(n)) {
        order_by_place(observations, todo, next);
        stats.reordered_rows = static_cast<std::int64_t>(todo.size() - next);
        options.ordered_by_place = true;
      }
    }
    if (after_round) after_round(rows.count - static_cast<std::int64_t>(todo.size() - next));
    // one agreement per round on every rank: a pending signal anywhere, and work left anywhere
    std::int64_t agreed[2] = {signals::pending(), next < todo.size() ? 1 : 0};
    mpi::max_over_ranks(comm, agreed, 2);
    if (agreed[1] == 0) return 0;
    if (agreed[0] != 0) return static_cast<int>(agreed[0]);
    if (kOnDevice && !probed && options.batch_size == 0) {
      round = device_round_size(static_cast<std::int64_t>(todo.size() - next),
                                round_references(static_cast<std::int64_t>(references.size()), options), options.k);
    } else {
      round = next_round(round, n, wall_seconds() - start, unit);
    }
    probed = true;
  }
}

}  // namespace trident::knn
