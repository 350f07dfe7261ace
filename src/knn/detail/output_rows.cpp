#include "knn/detail/output_rows.hpp"

#include <string>

#include "core/host_threads.hpp"
#include "io/direct_rows.hpp"
#include "io/reserve_huge.hpp"

namespace trident::knn {

namespace {
constexpr const char* kIndices = "/knn/indices";
constexpr const char* kDistances = "/knn/distances";
constexpr const char* kObservations = "/knn/observations";
constexpr const char* kLatitude = "/knn/latitude";
constexpr const char* kLongitude = "/knn/longitude";

}  // namespace

void describe_observations(io::OutputFile& out) {
  out.describe(kObservations, {"observation", "latitude_longitude"}, "latitude and longitude of the observation",
               "degrees");
  out.describe(kLatitude, {"observation"}, "latitude of the observation", "degrees_north", "latitude");
  out.describe(kLongitude, {"observation"}, "longitude of the observation", "degrees_east", "longitude");
}

namespace {

// What each /knn dataset is, for netCDF and CF readers: rows on the observation dimension,
// located by /knn/latitude and /knn/longitude; distances in metres (knn.radius' unit).
void describe_rows(io::OutputFile& out) {
  out.describe(kIndices, {"observation", "neighbour"},
               "index of the neighbour in the reference set (0-based), nearest first", "1");
  out.describe(kDistances, {"observation", "neighbour"}, "great-circle distance to the neighbour", "m");
  describe_observations(out);
  for (const char* dataset : {kIndices, kDistances, kObservations})
    out.describe_text(dataset, "coordinates", "latitude longitude");
}

}  // namespace

CoordinateColumns coordinate_columns(const std::vector<double>& lat_lon, std::int64_t count) {
  CoordinateColumns c;
  io::reserve_huge(c.latitude, static_cast<std::size_t>(count));
  io::reserve_huge(c.longitude, static_cast<std::size_t>(count));
  c.latitude.resize(static_cast<std::size_t>(count));  // (not written: the threads' copies touch it first)
  c.longitude.resize(static_cast<std::size_t>(count));
  double* const latitude = c.latitude.data();
  double* const longitude = c.longitude.data();
  const double* const pairs = lat_lon.data();
  core::host_parallel_ranges(count, std::int64_t(1) << 16, [=](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      latitude[i] = pairs[2 * i];
      longitude[i] = pairs[2 * i + 1];
    }
  });
  return c;
}

OutputRows::OutputRows(io::OutputFile& out, std::int64_t n, int k, std::int64_t first, std::int64_t count,
                       const std::vector<double>& lat_lon, const Neighbours& rows)
    : out_(out),
      first_(first),
      count_(count),
      k_(k),
      lat_lon_(lat_lon.data()),
      columns_(coordinate_columns(lat_lon, count)),
      indices_(rows.indices.data()),
      distances_(rows.distances.data()) {
  const auto rows_n = static_cast<std::uint64_t>(n), width = static_cast<std::uint64_t>(k);
  out.create_group("/knn");
  out.create_dataset<NeighbourIndex>(kIndices, {rows_n, width});
  out.create_dataset<double>(kDistances, {rows_n, width});
  out.create_dataset<double>(kObservations, {rows_n, 2});
  out.create_dataset<double>(kLatitude, {rows_n});
  out.create_dataset<double>(kLongitude, {rows_n});
  describe_rows(out);
  const std::vector<std::uint64_t> offset{static_cast<std::uint64_t>(first), 0};
  const auto mine = static_cast<std::uint64_t>(count);
  at_indices_ = out.rows_address<NeighbourIndex>(kIndices, offset, {mine, width});
  at_distances_ = out.rows_address<double>(kDistances, offset, {mine, width});
  at_observations_ = out.rows_address<double>(kObservations, offset, {mine, 2});
  at_latitude_ = out.rows_address<double>(kLatitude, {offset[0]}, {mine});
  at_longitude_ = out.rows_address<double>(kLongitude, {offset[0]}, {mine});
  const std::string partial = out.partial_path(), path = out.path();
  // this rank's observations, straight into the file where it can take them
  const auto push = [&](const char* dataset, std::int64_t at, const double* values, std::uint64_t bytes) {
    if (at < 0 || count == 0) return;
    writer_.push([=] { io::write_bytes_at(partial, path, dataset, static_cast<std::uint64_t>(at), values, bytes); });
  };
  push(kObservations, at_observations_, lat_lon_, mine * 2 * sizeof(double));
  push(kLatitude, at_latitude_, columns_.latitude.data(), mine * sizeof(double));
  push(kLongitude, at_longitude_, columns_.longitude.data(), mine * sizeof(double));
}

void OutputRows::after_round(const std::vector<std::uint8_t>& done) {
  if (at_indices_ < 0 || at_distances_ < 0) return;
  std::int64_t end = written_;
  while (end < count_ && done[static_cast<std::size_t>(end)] != 0) ++end;
  if (end == written_) return;
  push_rows(written_, end);
  early_rows_ += end - written_;
  written_ = end;
}

void OutputRows::push_rows(std::int64_t from, std::int64_t to) {
  const std::string partial = out_.partial_path(), path = out_.path();
  const auto k = static_cast<std::uint64_t>(k_), row = static_cast<std::uint64_t>(from);
  const auto rows = static_cast<std::uint64_t>(to - from);
  const auto at_indices = static_cast<std::uint64_t>(at_indices_) + row * k * sizeof(NeighbourIndex);
  const auto at_distances = static_cast<std::uint64_t>(at_distances_) + row * k * sizeof(double);
  const NeighbourIndex* indices = indices_ + row * k;
  const double* distances = distances_ + row * k;
  writer_.push([=] {
    io::write_bytes_at(partial, path, kIndices, at_indices, indices, rows * k * sizeof(NeighbourIndex));
    io::write_bytes_at(partial, path, kDistances, at_distances, distances, rows * k * sizeof(double));
  });
}

void OutputRows::finish() {
  if (at_indices_ >= 0 && at_distances_ >= 0 && written_ < count_) {
    push_rows(written_, count_);
    written_ = count_;
  }
  out_.rethrow_agreed(writer_.finish());
  // what the file could not take straight (the same on every rank: rows_address agrees)
  const auto k = static_cast<std::uint64_t>(k_);
  const std::vector<std::uint64_t> offset{static_cast<std::uint64_t>(first_), 0};
  const auto mine = static_cast<std::uint64_t>(count_);
  if (at_indices_ < 0) out_.write_slab(kIndices, offset, {mine, k}, indices_);
  if (at_distances_ < 0) out_.write_slab(kDistances, offset, {mine, k}, distances_);
  if (at_observations_ < 0) out_.write_slab(kObservations, offset, {mine, 2}, lat_lon_);
  if (at_latitude_ < 0) out_.write_slab(kLatitude, {offset[0]}, {mine}, columns_.latitude.data());
  if (at_longitude_ < 0) out_.write_slab(kLongitude, {offset[0]}, {mine}, columns_.longitude.data());
}

}  // namespace trident::knn
