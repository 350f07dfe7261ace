#include "knn/detail/point_radii.hpp"

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "io/input_file.hpp"
#include "knn/detail/coordinates_check.hpp"
#include "knn/detail/csv_points.hpp"

namespace trident::knn {

namespace {

std::string where(const PointSource& source) {
  return source.file + ": dataset " + source.radii + " (knn.max_distance.column)";
}

}  // namespace

void check_hdf5_radii(const PointSource& source, std::int64_t points) {
  const io::InputFile file(source.file, "point file of " + source.key);
  if (!file.has(source.radii))
    throw InputError(source.file + ": the point file of " + source.key + " has no dataset '" + source.radii +
                     "' (knn.max_distance.column)");
  const std::vector<std::uint64_t> dims = file.dims(source.radii);
  if (dims.size() != 1 || dims[0] != static_cast<std::uint64_t>(points)) {
    std::string shape;
    for (auto d : dims) shape += (shape.empty() ? "" : " x ") + std::to_string(d);
    throw InputError(where(source) + ": expected a 1-D array of " + std::to_string(points) +
                     " radii, one a point, got " + (shape.empty() ? std::string("a scalar") : shape));
  }
}

std::vector<double> read_point_radii(const PointSource& source, std::int64_t first, std::int64_t count) {
  std::vector<double> radii;
  if (count <= 0) return radii;
  if (source.kind == PointSource::Kind::csv) {
    read_csv_points(source, first, count, nullptr, &radii);  // checked row by row
    return radii;
  }
  const io::InputFile file(source.file, "point file of " + source.key);
  radii = file.read<double>(source.radii, {static_cast<std::uint64_t>(first)}, {static_cast<std::uint64_t>(count)});
  for (std::int64_t i = 0; i < count; ++i) {
    const double v = radii[static_cast<std::size_t>(i)];
    if (!(v >= 0) || !std::isfinite(v))
      throw InputError(where(source) + ", row " + std::to_string(first + i + 1) +
                       ": expected a distance at least 0 (in the unit of knn.radius), got " + number_text(v));
  }
  return radii;
}

}  // namespace trident::knn
