// The slice pipeline (slice_pipeline.hpp): slice counts and starts, the slices' instances
// and their copies on side queues.
#include "knn/detail/slice_pipeline.hpp"

#include <algorithm>

#include "core/device_buffers.hpp"

namespace trident::knn {

// On CUDA: as many slices as leave each slice's screen about 8 times the device's
// concurrency in threads (fewer would leave the device idle in each slice's last wave), at
// most 16; but at least 4 while each still gets half the concurrency, so that a rank's
// smaller batch still overlaps most of its transfers with the screen. More slices
// measured slower where the rows outlast the screen: each slice's screen ends in a partly
// filled wave (docs/history/knn.md).
int slice_count(int n, std::int64_t threads, bool allowed, int forced, bool ordered_by_place) {
  if (!allowed) return 1;
  if (forced > 0) return std::max(1, std::min(forced, n));
  if constexpr (kOnCuda) {
    const auto concurrency = static_cast<std::int64_t>(ExecSpace().concurrency());
    const std::int64_t wanted =
        std::max(threads / (8 * concurrency), std::min<std::int64_t>(4, threads / std::max<std::int64_t>(1, concurrency / 2)));
    return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(16, wanted)));
  }
  // Observations in the order of their places: slices of 16384 (at most 64), so that only
  // the slices where one place ends and the next begins mix them.
  if (ordered_by_place) return std::max(1, std::min(64, n / 16384));
  return 1;
}

// The last slice is halved twice (1/2, 1/4, 1/4 of it), so that less is left to download
// after the last kernel; the first is cut the same way (1/4, 1/4, 1/2 of it), since
// nothing runs while its observations upload (docs/history/knn.md: the measurements).
std::vector<int> slice_starts(int n, int slices) {
  const int per_slice = (n + slices - 1) / slices;
  std::vector<int> starts{0};
  if (slices > 1 && per_slice >= 4) starts.insert(starts.end(), {per_slice / 4, per_slice / 2});
  for (int c0 = per_slice; c0 < n; c0 += per_slice) starts.push_back(c0);
  const int halvings = slices > 1 ? 2 : 0;
  for (int h = 0; h < halvings && n - starts.back() >= 2; ++h) starts.push_back(starts.back() + (n - starts.back()) / 2);
  starts.push_back(n);
  return starts;
}

// With register lists (which need no scratch memory of the instance's own) slice i runs
// on instance i of falling priority (the last one takes the slices past the device's
// levels), so that the next slice's screen fills what the current one leaves idle (its
// last, partly filled wave, its settling) while the current one still finishes first and
// downloads first. Two streams of one priority instead let neighbouring slices share the
// device and finish late together.
std::vector<ExecSpace> slice_spaces(core::DeviceBuffers& buffers, std::size_t pieces, ListChoice lists) {
  if (pieces < 2 || lists.kind != ListKind::registers) return {ExecSpace()};
  return buffers.prioritized_spaces(std::min(pieces, kMaxSliceSpaces));
}

namespace {

using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
template <class Byte>
using DeviceBytes = Kokkos::View<Byte*, DeviceMemory, Unmanaged>;
template <class Byte>
using HostBytes = Kokkos::View<Byte*, Kokkos::HostSpace, Unmanaged>;

}  // namespace

SliceTransfers::SliceTransfers(bool overlap) {
  if (overlap && kOnCuda) {
    up_.emplace();
    down_.emplace();
  }
}

void SliceTransfers::upload(const ExecSpace& space, void* device, const void* host, std::size_t bytes) {
  const DeviceBytes<char> to(static_cast<char*>(device), bytes);
  const HostBytes<const char> from(static_cast<const char*>(host), bytes);
  if (!up_) {
    Kokkos::deep_copy(to, from);
    return;
  }
  if (!start_) start_.emplace(true).record(up_->space());
  Kokkos::deep_copy(up_->space(), to, from);
  transport::QueueMark& done = uploaded_.emplace_back();
  done.record(up_->space());
  done.wait_on(space);
}

void SliceTransfers::download(const ExecSpace& space, void* host, const void* device, std::size_t bytes) {
  const HostBytes<char> to(static_cast<char*>(host), bytes);
  const DeviceBytes<const char> from(static_cast<const char*>(device), bytes);
  if (!down_) {
    Kokkos::deep_copy(to, from);
    return;
  }
  Download& d = downloads_.emplace_back(Download{transport::QueueMark(true), transport::QueueMark(true)});
  d.ready.record(space);
  d.ready.wait_on(down_->space());
  Kokkos::deep_copy(down_->space(), to, from);
  d.done.record(down_->space());
}

std::vector<SearchProfile::SliceTimes> SliceTransfers::finish() {
  std::vector<SearchProfile::SliceTimes> times;
  if (!up_) return times;
  up_->space().fence();
  down_->space().fence();
  if (start_) {
    for (const Download& d : downloads_) {
      times.push_back({1e3 * transport::QueueMark::seconds_between(*start_, d.ready),
                       1e3 * transport::QueueMark::seconds_between(*start_, d.done)});
    }
  }
  downloads_.clear();
  uploaded_.clear();
  start_.reset();
  return times;
}

}  // namespace trident::knn
