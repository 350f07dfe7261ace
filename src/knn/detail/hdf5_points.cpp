#include "knn/detail/hdf5_points.hpp"

#include <string>

#include "core/error.hpp"
#include "io/input_file.hpp"
#include "knn/detail/coordinates_check.hpp"
#include "knn/detail/hdf5_ids.hpp"
#include "knn/detail/point_radii.hpp"

namespace trident::knn {

std::int64_t count_hdf5_points(const PointSource& source) {
  const io::InputFile file(source.file, "point file of " + source.key);
  const std::vector<std::uint64_t> dims = file.dims(source.dataset);
  if (dims.size() != 2 || dims[1] != 2) {
    std::string shape;
    for (auto d : dims) shape += (shape.empty() ? "" : " x ") + std::to_string(d);
    throw InputError(source.file + ": dataset " + source.dataset + " of " + source.key +
                     ": expected an N x 2 array of (latitude, longitude) in degrees, got " +
                     (shape.empty() ? std::string("a scalar") : shape));
  }
  const auto points = static_cast<std::int64_t>(dims[0]);
  if (source.has_ids()) check_hdf5_ids(source, points);
  if (source.has_radii()) check_hdf5_radii(source, points);
  return points;
}

std::vector<double> read_hdf5_points(const PointSource& source, std::int64_t first,
                                     std::int64_t count) {
  const io::InputFile file(source.file, "point file of " + source.key);
  std::vector<double> points = file.read<double>(
      source.dataset, {static_cast<std::uint64_t>(first), 0}, {static_cast<std::uint64_t>(count), 2});
  // A plain pass over the array; the message is built only for the first bad row.
  const double* p = points.data();
  std::int64_t bad = -1;
  for (std::int64_t i = 0; i < count; ++i) {
    if (!latitude_ok(p[2 * i]) || !longitude_ok(p[2 * i + 1])) {
      bad = i;
      break;
    }
  }
  if (bad >= 0) {
    const std::string at = source.file + ": dataset " + source.dataset + ", row " +
                           std::to_string(first + bad + 1) + ", column ";
    const double latitude = p[2 * bad], longitude = p[2 * bad + 1];
    if (!latitude_ok(latitude)) throw_bad_coordinate(latitude, true, at + "1 (latitude)", number_text(latitude));
    throw_bad_coordinate(longitude, false, at + "2 (longitude)", number_text(longitude));
  }
  return points;
}

}  // namespace trident::knn
