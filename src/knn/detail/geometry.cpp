#include "knn/detail/geometry.hpp"

#include <cmath>
#include <vector>

#include "core/host_threads.hpp"

namespace trident::knn {

Vec4<double> unit_vector(double latitude_deg, double longitude_deg) {
  const double lat = latitude_deg * (kPi / 180.0);
  const double lon = longitude_deg * (kPi / 180.0);
  const double c = std::cos(lat);
  return Vec4<double>{c * std::cos(lon), c * std::sin(lon), std::sin(lat), 0.0};
}

void unit_vectors_into(const double* lat_lon, std::int64_t count, Vec4<double>* out) {
  core::host_parallel_ranges(count, kPointsPerHostThread, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) out[i] = unit_vector(lat_lon[2 * i], lat_lon[2 * i + 1]);
  });
}

std::vector<std::uint32_t> order_by_place(const Vec4<double>* points, RowList& rows, std::size_t from) {
  const std::size_t n = rows.size() - from;
  std::vector<std::uint32_t> keys(n), keys_out(n);
  std::vector<std::int64_t> out(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = place_key(points[rows[from + i]]);
  std::int64_t* in_rows = rows.data() + from;
  for (const int shift : {0, 16}) {
    std::vector<std::size_t> start(65537, 0);
    for (std::size_t i = 0; i < n; ++i) ++start[((keys[i] >> shift) & 0xffff) + 1];
    for (std::size_t b = 0; b < 65536; ++b) start[b + 1] += start[b];
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t slot = start[(keys[i] >> shift) & 0xffff]++;
      keys_out[slot] = keys[i];
      out[slot] = in_rows[i];
    }
    keys.swap(keys_out);
    std::copy(out.begin(), out.end(), in_rows);
  }
  return keys;
}

}  // namespace trident::knn
