#include "knn/detail/within_search.hpp"

#include <algorithm>
#include <utility>

#include "knn/detail/index/sphere_index.hpp"
#include "knn/detail/within_kernels.hpp"

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

// Each observation's limit and chord bound on the device (empty views without `limits`).
void limits_on_device(const double* limits, int n, double radius, ObservationLimits& limit, ObservationLimits& chord) {
  if (limits == nullptr) return;
  limit = ObservationLimits(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::knn::within::limits"), n);
  chord = ObservationLimits(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::knn::within::chords"), n);
  const auto host_limit = Kokkos::create_mirror_view(limit);
  const auto host_chord = Kokkos::create_mirror_view(chord);
  for (int o = 0; o < n; ++o) {
    host_limit(o) = limits[o];
    host_chord(o) = WithinTest::chord_bound(radius, limits[o]);
  }
  Kokkos::deep_copy(limit, host_limit);
  Kokkos::deep_copy(chord, host_chord);
}

}  // namespace

struct WithinSearch::Device {
  PointsView<double> references;  // brute force
  std::shared_ptr<const SphereIndex> index;
};

WithinSearch::WithinSearch(const std::vector<Vec4<double>>& references, std::shared_ptr<const SphereIndex> index,
                           double max_distance, double radius)
    : device_(std::make_unique<Device>()), max_distance_(max_distance), radius_(radius) {
  device_->index = std::move(index);
  if (!device_->index)
    device_->references = on_device(references.data(), references.size(), "trident::knn::within::references");
}

WithinSearch::~WithinSearch() = default;

void WithinSearch::count(const Vec4<double>* observations, std::int64_t count, std::vector<std::int64_t>& counts,
                         bool self, const double* limits) const {
  if (count == 0) return;
  const int n = static_cast<int>(count);
  WithinSink sink;
  sink.offsets = RowOffsets("trident::knn::within::counts", n);
  const PointsView<double> obs = on_device(observations, static_cast<std::size_t>(n), "trident::knn::within::observations");
  const WithinTest test(radius_, max_distance_);
  ObservationLimits limit, chord;
  limits_on_device(limits, n, radius_, limit, chord);
  if (device_->index) {
    Kokkos::parallel_for("trident::knn::within_count", Kokkos::RangePolicy<ExecSpace>(0, n),
                         WithinIndex{obs, device_->index->view, test, sink, limit, chord});
  } else {
    Kokkos::parallel_for("trident::knn::within_count", Kokkos::RangePolicy<ExecSpace>(0, n),
                         WithinBrute{obs, device_->references, test, sink, limit, chord});
  }
  const auto found = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sink.offsets);
  for (int o = 0; o < n; ++o) counts.push_back(found(o) - (self ? 1 : 0));
}

void WithinSearch::append(const Vec4<double>* observations, std::int64_t count, RaggedRows& rows,
                          const std::int64_t* self, const double* limits) const {
  if (count == 0) return;
  const int n = static_cast<int>(count);
  WithinSink sink;
  sink.offsets = RowOffsets("trident::knn::within::offsets", n + 1);
  const PointsView<double> obs = on_device(observations, static_cast<std::size_t>(n), "trident::knn::within::observations");
  const WithinTest test(radius_, max_distance_);
  ObservationLimits limit, chord;
  limits_on_device(limits, n, radius_, limit, chord);
  // the same functor twice: counts, then (offsets known) the entries
  const auto pass = [&](const char* label) {
    if (device_->index) {
      Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace>(0, n), WithinIndex{obs, device_->index->view, test, sink, limit, chord});
    } else {
      Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace>(0, n), WithinBrute{obs, device_->references, test, sink, limit, chord});
    }
  };
  pass("trident::knn::within_count");
  Kokkos::parallel_scan(
      "trident::knn::within_offsets", Kokkos::RangePolicy<ExecSpace>(0, n + 1),
      KOKKOS_LAMBDA(int i, std::int64_t& sum, bool final) {
        const std::int64_t c = i < n ? sink.offsets(i) : 0;
        if (final) sink.offsets(i) = sum;
        sum += c;
      });
  const auto offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sink.offsets);
  const std::int64_t total = offsets(n);
  sink.index = EntryIndices(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::knn::within::indices"), total);
  sink.angle = EntryAngles(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::knn::within::angles"), total);
  sink.fill = true;
  pass("trident::knn::within_fill");
  Kokkos::parallel_for("trident::knn::within_order", Kokkos::RangePolicy<ExecSpace>(0, n),
                       WithinOrder{sink.offsets, sink.index, sink.angle});
  const auto index = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sink.index);
  const auto angle = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sink.angle);
  const std::int64_t base = rows.offsets.back();
  rows.indices.reserve(static_cast<std::size_t>(base + total));
  rows.distances.reserve(static_cast<std::size_t>(base + total));
  std::vector<std::pair<double, int>> entries;
  for (int o = 0; o < n; ++o) {
    entries.clear();
    for (std::int64_t e = offsets(o); e < offsets(o + 1); ++e)
      if (self == nullptr || index(e) != self[o]) entries.push_back({angle(e), index(e)});
    if (offsets(o + 1) - offsets(o) > kDeviceOrderedRow) order_row(entries);  // (shorter: ordered on the device)
    for (const auto& entry : entries) {
      rows.indices.push_back(entry.second);
      rows.distances.push_back(radius_ * entry.first);
    }
    rows.offsets.push_back(static_cast<std::int64_t>(rows.indices.size()));
  }
}

}  // namespace trident::knn
