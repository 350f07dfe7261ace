#pragma once
// Point sets (observations, references): generated, or read from CSV or HDF5, and
// validated. Points are (latitude, longitude) pairs in degrees, stored interleaved.
// Every reader can read a block of rows, so each rank reads only its part.
#include <cstdint>
#include <string>
#include <vector>

#include "knn/settings.hpp"
#include "knn/detail/point_ids.hpp"

namespace trident::knn {

// Number of points in the set. Throws InputError for an unreadable or empty set, a CSV
// header without the named columns, or an HDF5 dataset that is not N x 2; with ids, for
// an id column missing or empty on a row, or an ids dataset missing or of another length.
std::int64_t count_points(const PointSource& source);

// Points first .. first+count-1 (0-based), as lat0, lon0, lat1, lon1, ... Throws
// InputError naming the file, the row (1-based data row: the CSV header is not counted,
// nor are blank lines) and the column for a value that is not a number, NaN, a latitude
// outside [-90, 90] or a longitude outside [-180, 180]. When the source names ids and
// `ids` is given, the same points' ids go there: a CSV's as texts (settle_ids decides
// whether they are integers), an HDF5 dataset's as stored (integers or texts).
std::vector<double> read_points(const PointSource& source, std::int64_t first,
                                std::int64_t count, PointIds* ids = nullptr);

// The generator behind `generate`: point `index` of the set seeded by `seed`, uniform on
// the sphere, the same on every rank and every backend.
void generated_point(std::uint64_t seed, std::int64_t index, double& latitude, double& longitude);

// Balanced contiguous split of n items over `parts`: the first item and count of `part`.
void chunk_of(std::int64_t n, int parts, int part, std::int64_t& first, std::int64_t& count);

}  // namespace trident::knn
