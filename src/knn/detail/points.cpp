#include "knn/detail/points.hpp"

#include <cmath>

#include "core/balanced_split.hpp"
#include "core/error.hpp"
#include "core/host_threads.hpp"
#include "core/splitmix64.hpp"
#include "io/reserve_huge.hpp"
#include "knn/detail/geometry.hpp"
#include "knn/detail/csv_points.hpp"
#include "knn/detail/hdf5_ids.hpp"
#include "knn/detail/hdf5_points.hpp"

namespace trident::knn {

namespace {

// SplitMix64's draw from state x: addressed by position, so each point has its own words.
std::uint64_t splitmix64(std::uint64_t x) { return core::splitmix_mix(x + core::kSplitMixGamma); }

double unit_interval(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

}  // namespace

void generated_point(std::uint64_t seed, std::int64_t index, double& latitude, double& longitude) {
  const std::uint64_t base = splitmix64(seed ^ 0x6a09e667f3bcc908ULL);
  const std::uint64_t a = splitmix64(base + 2 * static_cast<std::uint64_t>(index));
  const std::uint64_t b = splitmix64(base + 2 * static_cast<std::uint64_t>(index) + 1);
  // z uniform in [-1, 1] and longitude uniform: uniform on the sphere (Archimedes)
  const double z = 2.0 * unit_interval(a) - 1.0;
  latitude = std::asin(z) * (180.0 / 3.14159265358979323846);
  longitude = 360.0 * unit_interval(b) - 180.0;
}

std::int64_t count_points(const PointSource& source) {
  std::int64_t n = 0;
  if (source.kind == PointSource::Kind::generate) n = source.count;
  else if (source.kind == PointSource::Kind::csv) n = count_csv_points(source);
  else n = count_hdf5_points(source);
  if (n < 1) {
    const std::string what = source.kind == PointSource::Kind::hdf5 ? source.file + ": dataset " + source.dataset
                                                   : source.file;
    throw InputError(what + ": holds no points; " + source.key + " needs at least one");
  }
  return n;
}

std::vector<double> read_points(const PointSource& source, std::int64_t first,
                                std::int64_t count, PointIds* ids) {
  if (ids != nullptr && source.has_ids()) {
    // a rank without points still learns an HDF5 set's kind of ids
    *ids = source.kind == PointSource::Kind::hdf5 ? read_hdf5_ids(source, first, count) : PointIds::empty(PointIds::Kind::text);
  }
  if (count <= 0) return {};
  if (source.kind == PointSource::Kind::csv) return read_csv_points(source, first, count, source.has_ids() ? ids : nullptr);
  if (source.kind == PointSource::Kind::hdf5) return read_hdf5_points(source, first, count);
  std::vector<double> points;
  io::reserve_huge(points, static_cast<std::size_t>(2 * count));  // (written to the output from here)
  points.resize(static_cast<std::size_t>(2 * count));
  // Each point comes from its own index (counter-based), so threads may take any share.
  core::host_parallel_ranges(count, kPointsPerHostThread, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) generated_point(source.seed, first + i, points[2 * i], points[2 * i + 1]);
  });
  return points;
}

void chunk_of(std::int64_t n, int parts, int part, std::int64_t& first, std::int64_t& count) {
  const core::BalancedPart share = core::balanced_part(n, parts, part);
  first = share.first;
  count = share.count;
}

}  // namespace trident::knn
