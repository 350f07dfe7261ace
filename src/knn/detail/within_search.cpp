#include "knn/detail/within_search.hpp"

#include <algorithm>
#include <future>
#include <mutex>
#include <utility>

#include "core/host_threads.hpp"
#include "core/timers.hpp"
#include "io/reserve_huge.hpp"
#include "knn/detail/index/cube_key.hpp"
#include "knn/detail/index/kept_buffer.hpp"
#include "knn/detail/index/radix_sort.hpp"
#include "knn/detail/index/sphere_index.hpp"
#include "knn/detail/within_kernels.hpp"
#include "transport/side_stream.hpp"
#include "transport/staged_download.hpp"

namespace trident::knn {

namespace {

using HostPoints = Kokkos::View<const Vec4<double>*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

PointsView<double> on_device(const Vec4<double>* points, std::size_t count, const char* label) {
  PointsView<double> view(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), count);
  Kokkos::deep_copy(view, HostPoints(points, count));
  return view;
}

bool tied(double a, double b) { return std::fabs(a - b) <= kTieRelative * std::max(a, b); }

// Sorts entries [first, last) by (angle, index), then each run of ties by index: the order
// of Order in settle_kernels.hpp.
void order_row(std::vector<std::pair<double, int>>& entries) {
  std::sort(entries.begin(), entries.end());
  for (std::size_t start = 0; start < entries.size();) {
    std::size_t end = start + 1;
    while (end < entries.size() && tied(entries[end - 1].first, entries[end].first)) ++end;
    std::sort(entries.begin() + static_cast<std::ptrdiff_t>(start), entries.begin() + static_cast<std::ptrdiff_t>(end),
              [](const auto& a, const auto& b) { return a.second < b.second; });
    start = end;
  }
}

template <class T>
using HostArray = Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

// What a round's place order writes, kept for the next round (see SortSpace).
struct PlaceOrderSpace {
  index::Keys keys;
  ObservationOrder order;
  index::SortSpace sort;
};

// 0 .. n-1 ordered by the cube keys of obs(0 .. n-1) (stable: ties keep their order), on the
// device.
ObservationOrder place_order(const PointsView<double>& obs, int n, PlaceOrderSpace& space) {
  index::Keys keys = first_of(space.keys, static_cast<std::size_t>(n), "trident::knn::within::keys");
  ObservationOrder order = first_of(space.order, static_cast<std::size_t>(n), "trident::knn::within::order");
  Kokkos::parallel_for(
      "trident::knn::within_keys", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(int o) {
        keys(o) = index::cube_key(obs(o));
        order(o) = o;
      });
  index::sort_by_key(keys, order, space.sort);
  return order;
}

// A round's entries on the host, allocated ahead of its count and first touched on half the
// host's threads (huge pages advised) while the device counts (the other half still copy the
// last round's entries): the download then copies into memory whose pages exist, instead of
// faulting each page in on its copy threads. (allocate_rows fills every entry on every
// thread, which would take the copies' threads and write each byte once more.)
template <class V>
void touch(V& v, std::size_t n) {
  io::reserve_huge(v, n);
  v.resize(n);
  auto* const bytes = reinterpret_cast<unsigned char*>(v.data());
  constexpr std::int64_t kPage = 4096;
  const std::int64_t pages = static_cast<std::int64_t>((n * sizeof(typename V::value_type) + kPage - 1) / kPage);
  const std::int64_t threads = std::max(1, core::host_threads() / 2);
  core::host_parallel_ranges(pages, std::max<std::int64_t>(1024, (pages + threads - 1) / threads),
                             [bytes](std::int64_t begin, std::int64_t end) {
                               for (std::int64_t p = begin; p < end; ++p) bytes[p * kPage] = 0;
                             });
}

// A round's entries on the host: from the arena where they fit there (touched already),
// else fresh memory touched here.
struct HostEntries {
  transport::ArenaVector<NeighbourIndex> indices;
  transport::ArenaVector<double> distances;
};
HostEntries touched_entries(std::size_t n, const std::shared_ptr<transport::LockedArena>& arena) {
  HostEntries t{transport::arena_vector<NeighbourIndex>(arena), transport::arena_vector<double>(arena)};
  t.indices.reserve(n);
  t.distances.reserve(n);
  if (arena && arena->holds(t.indices.data(), n * sizeof(NeighbourIndex)) &&
      arena->holds(t.distances.data(), n * sizeof(double))) {
    t.indices.resize(n);
    t.distances.resize(n);
    return t;
  }
  touch(t.indices, n);
  touch(t.distances, n);
  return t;
}

}  // namespace

struct WithinSearch::Device {
  PointsView<double> references;  // brute force
  std::shared_ptr<const SphereIndex> index;
  // a round's arrays, kept for the next round
  PointsView<double> observations;
  // the next round's observations (upload_ahead), uploaded on a queue of their own beside a
  // round's passes: asked for, then on their way (sent_points: none)
  PointsView<double> observations_ahead;
  const Vec4<double>* asked_points = nullptr;
  const Vec4<double>* sent_points = nullptr;
  std::int64_t asked_count = 0, sent_count = 0;
  std::unique_ptr<transport::SideStream> ahead_queue;
  ObservationLimits limits, chords, inners;
  ObservationSelf self;
  PlaceOrderSpace place_order_space;
  RowOffsets offsets;
  EntryIndices indices[2], kept_indices;  // a round's entries (two sets, alternating)
  EntryAngles angles[2], kept_angles;
  int next_set = 0;
  std::vector<double> host_chords, host_inners;
  transport::StagedDownload rows_download;
  // a round's offsets, on the calling thread while rows_download may be busy on its own
  transport::StagedDownload offsets_download{std::size_t(16) << 20};
  // this round's entries on the host, being touched while the device counts (none in the
  // first round: no mean row yet)
  std::future<HostEntries> touched;
  // the last round's download and long rows' order (their host seconds), declared last: its
  // destructor waits for it before the arrays it reads go
  std::future<double> pending;

  // Uploads n observations (with their own limits and references where given) and orders
  // them by their places: thread t of the passes takes observation order(t).
  WithinRound upload(const Vec4<double>* points, int n, const std::int64_t* own, const double* own_limits,
                     const WithinTest& test) {
    WithinRound round;
    round.shared = test;
    if (sent_points != nullptr) ahead_queue->space().fence();  // (also before its buffer is written again)
    if (sent_points != nullptr && points == sent_points && n <= sent_count) {
      std::swap(observations, observations_ahead);
      round.observations = Kokkos::subview(observations, std::make_pair(std::size_t(0), static_cast<std::size_t>(n)));
    } else {
      round.observations = first_of(observations, static_cast<std::size_t>(n), "trident::knn::within::observations");
      Kokkos::deep_copy(ExecSpace(), round.observations, HostPoints(points, static_cast<std::size_t>(n)));
    }
    sent_points = nullptr;
    if (own_limits != nullptr) {
      host_chords.resize(static_cast<std::size_t>(n));
      host_inners.resize(static_cast<std::size_t>(n));
      for (int o = 0; o < n; ++o) {
        host_chords[static_cast<std::size_t>(o)] = WithinTest::chord_bound(test.radius, own_limits[o]);
        host_inners[static_cast<std::size_t>(o)] = WithinTest::inner_bound(test.radius, own_limits[o]);
      }
      round.limits = first_of(limits, static_cast<std::size_t>(n), "trident::knn::within::limits");
      round.chords = first_of(chords, static_cast<std::size_t>(n), "trident::knn::within::chords");
      round.inners = first_of(inners, static_cast<std::size_t>(n), "trident::knn::within::inners");
      const auto count = static_cast<std::size_t>(n);
      Kokkos::deep_copy(ExecSpace(), round.limits, HostArray<const double>(own_limits, count));
      Kokkos::deep_copy(ExecSpace(), round.chords, HostArray<const double>(host_chords.data(), count));
      Kokkos::deep_copy(ExecSpace(), round.inners, HostArray<const double>(host_inners.data(), count));
    }
    if (own != nullptr) {
      round.self = first_of(self, static_cast<std::size_t>(n), "trident::knn::within::self");
      Kokkos::deep_copy(ExecSpace(), round.self, HostArray<const std::int64_t>(own, static_cast<std::size_t>(n)));
    }
    round.order = place_order(round.observations, n, place_order_space);
    return round;
  }

  // Starts the upload asked for by upload_ahead (called once the round's own is done, so
  // that the two do not share the link).
  void send_ahead() {
    if (asked_points == nullptr) return;
    if (!ahead_queue) ahead_queue = std::make_unique<transport::SideStream>();
    const auto count = static_cast<std::size_t>(asked_count);
    Kokkos::deep_copy(ahead_queue->space(), first_of(observations_ahead, count, "trident::knn::within::observations"),
                      HostPoints(asked_points, count));
    sent_points = asked_points;
    sent_count = asked_count;
    asked_points = nullptr;
  }

  // Runs the count (sink.fill false) or the fill pass over the round's n observations.
  void pass(const WithinRound& round, int n, const char* label) const {
    if (index) {
      Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace>(0, n), WithinIndex{round, index->view});
    } else {
      Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace>(0, n), WithinBrute{round, references});
    }
  }
};

WithinSearch::WithinSearch(const std::vector<Vec4<double>>& references, std::shared_ptr<const SphereIndex> index,
                           double max_distance, double radius)
    : device_(std::make_unique<Device>()), max_distance_(max_distance), radius_(radius) {
  device_->index = std::move(index);
  if (!device_->index)
    device_->references = on_device(references.data(), references.size(), "trident::knn::within::references");
}

WithinSearch::~WithinSearch() = default;

int WithinSearch::kept_slots() const {
  if (profile_.rows == 0) return 32;  // (the first round: a guess)
  const double mean = static_cast<double>(profile_.entries) / static_cast<double>(profile_.rows);
  return mean > 24.0 ? 0 : mean > 6.0 ? 32 : 16;
}

std::int64_t WithinSearch::warm_up(const Vec4<double>* observations, std::int64_t count, const double* limits) const {
  const WithinProfile kept = profile_;
  RaggedRows rows;
  append(observations, count, rows, nullptr, limits);
  finish();
  profile_ = kept;
  return rows.offsets.back();
}

void WithinSearch::upload_ahead(const Vec4<double>* observations, std::int64_t count) const {
  device_->asked_points = count > 0 ? observations : nullptr;
  device_->asked_count = count;
}

void WithinSearch::finish() const {
  Device& d = *device_;
  if (!d.pending.valid()) return;
  const double start = wall_seconds();
  profile_.host_seconds += d.pending.get();  // (rethrows the download's failure)
  profile_.download_seconds += wall_seconds() - start;
}

void WithinSearch::count(const Vec4<double>* observations, std::int64_t count, std::vector<std::int64_t>& counts,
                         const std::int64_t* self, const double* limits) const {
  if (count == 0) return;
  const int n = static_cast<int>(count);
  Device& d = *device_;
  const double t0 = wall_seconds();
  WithinRound round = d.upload(observations, n, self, limits, WithinTest(radius_, max_distance_));
  ExecSpace().fence();
  const double t1 = wall_seconds();
  d.send_ahead();
  round.sink.offsets = first_of(d.offsets, static_cast<std::size_t>(n), "trident::knn::within::offsets");
  d.pass(round, n, "trident::knn::within_count");
  const std::size_t before = counts.size();
  counts.resize(before + static_cast<std::size_t>(n));
  Kokkos::deep_copy(ExecSpace(), HostArray<std::int64_t>(counts.data() + before, static_cast<std::size_t>(n)),
                    round.sink.offsets);
  ExecSpace().fence();
  profile_.rounds += 1;
  profile_.largest_round = std::max(profile_.largest_round, count);
  profile_.upload_seconds += t1 - t0;
  profile_.count_seconds += wall_seconds() - t1;
}

void WithinSearch::append(const Vec4<double>* observations, std::int64_t count, RaggedRows& rows,
                          const std::int64_t* self, const double* limits) const {
  if (count == 0) return;
  if (rows.offsets.back() != 0) finish();  // rows already holding entries may still be receiving them
  const int n = static_cast<int>(count);
  Device& d = *device_;
  const double t0 = wall_seconds();
  WithinRound round = d.upload(observations, n, self, limits, WithinTest(radius_, max_distance_));
  // (the default instance's fences only, here and below: a fence of the whole device, as
  // a plain deep_copy or freeing device memory makes, would wait for the last round's
  // download on its own queue)
  ExecSpace().fence();
  const double t1 = wall_seconds();
  d.send_ahead();
  // the same functor twice: counts (keeping short rows' entries), then (offsets known) the
  // entries of the rows that did not fit
  WithinSink sink;
  sink.offsets = first_of(d.offsets, static_cast<std::size_t>(n) + 1, "trident::knn::within::offsets");
  sink.slots = kept_slots();
  if (sink.slots > 0) {
    const std::size_t kept = static_cast<std::size_t>(n) * static_cast<std::size_t>(sink.slots);
    sink.kept_index = first_of(d.kept_indices, kept, "trident::knn::within::kept_indices");
    sink.kept_angle = first_of(d.kept_angles, kept, "trident::knn::within::kept_angles");
  }
  round.sink = sink;
  // the entries' host arrays, touched beside the count pass: sized for the mean row so far and
  // a sixteenth more (a round that outgrows them, or fills too few of them, takes fresh ones)
  if (profile_.rows > 0 && rows.offsets.back() == 0) {
    const double mean = static_cast<double>(profile_.entries) / static_cast<double>(profile_.rows);
    const auto expected = static_cast<std::size_t>(mean * static_cast<double>(n) * (1.0 + 1.0 / 16)) + 4096;
    d.touched = std::async(std::launch::async, [expected, arena = arena_] { return touched_entries(expected, arena); });
  }
  d.pass(round, n, "trident::knn::within_count");
  Kokkos::parallel_scan(
      "trident::knn::within_offsets", Kokkos::RangePolicy<ExecSpace>(0, n + 1),
      KOKKOS_LAMBDA(int i, std::int64_t& sum, bool final) {
        const std::int64_t c = i < n ? sink.offsets(i) : 0;
        if (final) sink.offsets(i) = sum;
        sum += c;
      });
  const std::int64_t base = rows.offsets.back();
  const std::size_t first_row = rows.offsets.size();
  rows.offsets.resize(first_row + static_cast<std::size_t>(n));  // (not zeroed: the download fills it)
  // offsets 1..n of the round, made the rows' by adding `base` below; through page-locked
  // buffers on every host thread, as the entries, rather than a plain copy into fresh memory
  ExecSpace().fence();
  d.offsets_download.copy(rows.offsets.data() + first_row, sink.offsets.data() + 1,
                          static_cast<std::size_t>(n) * sizeof(std::int64_t));
  const std::int64_t total = rows.offsets.back();
  const double t2 = wall_seconds();
  const int set = d.next_set;  // the entries' device arrays alternate: the last round's may still travel
  d.next_set ^= 1;
  round.sink.index = first_of(d.indices[set], static_cast<std::size_t>(total), "trident::knn::within::indices");
  round.sink.angle = first_of(d.angles[set], static_cast<std::size_t>(total), "trident::knn::within::angles");
  round.sink.fill = true;
  d.pass(round, n, "trident::knn::within_fill");
  Kokkos::parallel_for("trident::knn::within_order", Kokkos::RangePolicy<ExecSpace>(0, n),
                       WithinOrder{sink.offsets, round.sink.index, round.sink.angle, radius_, sink.kept_index,
                                   sink.kept_angle, sink.slots});
  ExecSpace().fence();
  const double t3 = wall_seconds();
  finish();  // one download at a time (its buffers): the last round's, which ran beside this round's passes
  const auto at = static_cast<std::size_t>(base);
  const std::size_t size = at + static_cast<std::size_t>(total);
  if (d.touched.valid()) {
    // taken where the round fills at least three quarters of them (what it leaves stays
    // allocated with the rows until the output is written), else freed
    HostEntries t = d.touched.get();
    if (t.indices.size() >= size && 4 * size >= 3 * t.indices.size()) {
      rows.indices = std::move(t.indices);
      rows.distances = std::move(t.distances);
    }
  }
  if (rows.indices.capacity() == 0 && arena_) {  // (the first round: no mean row to touch ahead for)
    rows.indices = transport::arena_vector<NeighbourIndex>(arena_);
    rows.distances = transport::arena_vector<double>(arena_);
  }
  if (rows.indices.capacity() < size) io::reserve_huge(rows.indices, size);  // (a copy only when appending to rows)
  if (rows.distances.capacity() < size) io::reserve_huge(rows.distances, size);
  rows.indices.resize(size);
  rows.distances.resize(size);
  // the rows past kDeviceOrderedRow hold angles in the fill's order, to be ordered and turned
  // into distances on the host (each row alone): their entries, found on every usable CPU
  const std::int64_t* const ends = rows.offsets.data() + first_row;  // row i ends at ends[i]
  std::vector<std::pair<std::int64_t, std::int64_t>> long_rows;
  std::mutex long_rows_lock;
  core::host_parallel_ranges(n, std::int64_t(1) << 16, [&](std::int64_t begin, std::int64_t end) {
    std::vector<std::pair<std::int64_t, std::int64_t>> found;
    for (std::int64_t i = begin; i < end; ++i) {
      const std::int64_t from = i == 0 ? 0 : ends[i - 1];
      if (ends[i] - from > kDeviceOrderedRow) found.push_back({from, ends[i]});
    }
    const std::lock_guard<std::mutex> hold(long_rows_lock);
    long_rows.insert(long_rows.end(), found.begin(), found.end());
  });
  if (base != 0)
    core::host_parallel_ranges(n, std::int64_t(1) << 18, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) rows.offsets[first_row + static_cast<std::size_t>(i)] += base;
    });
  // the entries' download and the long rows' order, on a host thread of their own while the
  // next round's passes run (finish() waits for them)
  NeighbourIndex* const indices = rows.indices.data() + at;
  double* const distances = rows.distances.data() + at;
  const NeighbourIndex* const index_from = round.sink.index.data();
  const double* const angle_from = round.sink.angle.data();
  const double radius = radius_;
  const bool locked = arena_ && arena_->holds(indices, static_cast<std::size_t>(total) * sizeof(NeighbourIndex)) &&
                      arena_->holds(distances, static_cast<std::size_t>(total) * sizeof(double));
  d.pending = std::async(std::launch::async, [&d, indices, distances, index_from, angle_from, total, radius, locked,
                                              long_rows = std::move(long_rows)] {
    const auto copy = locked ? &transport::StagedDownload::copy_to_locked : &transport::StagedDownload::copy;
    (d.rows_download.*copy)(indices, index_from, static_cast<std::size_t>(total) * sizeof(NeighbourIndex));
    (d.rows_download.*copy)(distances, angle_from, static_cast<std::size_t>(total) * sizeof(double));
    const double start = wall_seconds();
    core::host_parallel_ranges(static_cast<std::int64_t>(long_rows.size()), 16, [&](std::int64_t begin, std::int64_t end) {
      std::vector<std::pair<double, int>> entries;
      for (std::int64_t r = begin; r < end; ++r) {
        const auto [from, to] = long_rows[static_cast<std::size_t>(r)];
        entries.clear();
        for (std::int64_t e = from; e < to; ++e) entries.push_back({distances[e], indices[e]});
        order_row(entries);
        for (std::int64_t e = from; e < to; ++e) {
          const auto& entry = entries[static_cast<std::size_t>(e - from)];
          indices[e] = entry.second;
          distances[e] = radius * entry.first;
        }
      }
    });
    return wall_seconds() - start;
  });
  profile_.rounds += 1;
  profile_.largest_round = std::max(profile_.largest_round, count);
  profile_.rows += count;
  profile_.entries += total;
  profile_.upload_seconds += t1 - t0;
  profile_.count_seconds += t2 - t1;
  profile_.fill_seconds += t3 - t2;
}

}  // namespace trident::knn
