#pragma once
// The ids of an HDF5 point set (knn.*.hdf5.ids): a 1-D dataset, one id a point, of
// integers (any width, read as int64) or texts (fixed or variable length).
#include <cstdint>

#include "knn/settings.hpp"
#include "knn/detail/point_ids.hpp"

namespace trident::knn {

// Throws InputError naming the file and knn.*.hdf5.ids when the dataset is missing, is not
// 1-D with `points` entries, or holds neither integers nor texts.
void check_hdf5_ids(const PointSource& source, std::int64_t points);

// Entries first .. first+count-1 (0-based). Throws InputError for an empty text or an
// unsigned integer beyond int64, naming the entry (counted from 0, as h5py indexes).
PointIds read_hdf5_ids(const PointSource& source, std::int64_t first, std::int64_t count);

}  // namespace trident::knn
