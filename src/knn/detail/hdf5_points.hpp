#pragma once
// Point sets from HDF5 files: an N x 2 dataset of (latitude, longitude) in degrees.
#include <cstdint>
#include <vector>

#include "knn/settings.hpp"

namespace trident::knn {

// Rows of the dataset; InputError when it is not N x 2 (or the file or dataset is missing),
// or when the ids the source names do not fit it (check_hdf5_ids).
std::int64_t count_hdf5_points(const PointSource& source);

// Rows first .. first+count-1 (0-based) read in one hyperslab and checked for range
// (InputError naming the dataset, the 1-based row and the column).
std::vector<double> read_hdf5_points(const PointSource& source, std::int64_t first,
                                     std::int64_t count);

}  // namespace trident::knn
