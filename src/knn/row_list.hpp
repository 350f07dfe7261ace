#pragma once
// Lists of observation rows (0-based within a rank's chunk): the rows a search or a round
// has left to do, and the rows a pass could not prove. A whole chunk's list is as long as
// its observations (2^24 rows: 134 MB), so it is made without std::vector's serial
// value-initialization, and the list of every row is filled on every usable CPU.
#include <cstdint>

#include "core/host_threads.hpp"
#include "core/uninitialized_vector.hpp"

namespace trident::knn {

using RowList = core::UninitializedVector<std::int64_t>;

// 0, 1, ..., n - 1.
inline RowList all_rows(std::int64_t n) {
  RowList rows(static_cast<std::size_t>(n > 0 ? n : 0));
  std::int64_t* const row = rows.data();
  core::host_parallel_ranges(n, std::int64_t(1) << 18, [row](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) row[i] = i;
  });
  return rows;
}

}  // namespace trident::knn
