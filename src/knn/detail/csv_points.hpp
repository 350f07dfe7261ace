#pragma once
// Point sets from CSV files: a header row naming the columns, then one point a row.
#include <cstdint>
#include <vector>

#include "knn/settings.hpp"
#include "knn/detail/point_ids.hpp"

namespace trident::knn {

// Data rows of the file (blank lines not counted). Throws InputError for a file that
// cannot be opened, has no header, or whose header lacks the named columns; with an id
// column, for a row whose id is empty (so that validate, which counts, refuses it too).
std::int64_t count_csv_points(const PointSource& source);

// Data rows first .. first+count-1 (0-based) as lat0, lon0, lat1, lon1, ... Every row read
// is checked: well-formed (quotes closed, nothing after a closing quote but the comma, as
// many fields as the header, none of those read empty) and its two coordinates numbers in
// range. With an id column, each row's id is added to `ids` as text (quotes removed). With
// `radii` and a column of radii (knn.max_distance.column), each row's radius goes there,
// checked: a finite number at least 0 (InputError naming the row and the column).
std::vector<double> read_csv_points(const PointSource& source, std::int64_t first,
                                    std::int64_t count, PointIds* ids = nullptr,
                                    std::vector<double>* radii = nullptr);

}  // namespace trident::knn
