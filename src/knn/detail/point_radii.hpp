#pragma once
// Each observation's own search radius (knn.max_distance: {column: NAME}): a column of the
// observations' CSV file or a 1-D dataset of their HDF5 file, in the unit of knn.radius,
// read for a rank's observations and checked before any search.
#include <cstdint>
#include <vector>

#include "knn/settings.hpp"

namespace trident::knn {

// Throws InputError naming the file and knn.max_distance.column when the source's HDF5
// dataset of radii is missing or is not 1-D with `points` entries.
void check_hdf5_radii(const PointSource& source, std::int64_t points);

// The radii of points first .. first+count-1 (0-based). Throws InputError naming the file,
// the row (1-based, as the points' messages count) and the column or dataset for a value
// that is not a finite number at least 0.
std::vector<double> read_point_radii(const PointSource& source, std::int64_t first, std::int64_t count);

}  // namespace trident::knn
