#include "knn/geometry.hpp"

#include <cmath>

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

}  // namespace trident::knn
