// allocate_rows: the host rows of a search's results.
#include "knn/detail/result_rows.hpp"

#include <algorithm>

#include "core/host_threads.hpp"
#include "io/reserve_huge.hpp"

namespace trident::knn {

void allocate_rows(Neighbours& rows, std::size_t entries) {
  rows.indices.clear();
  rows.distances.clear();
  io::reserve_huge(rows.indices, entries);
  io::reserve_huge(rows.distances, entries);
  rows.indices.resize(entries);  // not initialized: the threads below touch each page first
  rows.distances.resize(entries);
  NeighbourIndex* const indices = rows.indices.data();
  double* const distances = rows.distances.data();
  core::host_parallel_ranges(static_cast<std::int64_t>(entries), std::int64_t(1) << 18,
                             [&](std::int64_t begin, std::int64_t end) {
                               std::fill(indices + begin, indices + end, NeighbourIndex(-1));
                               std::fill(distances + begin, distances + end, 0.0);
                             });
}

}  // namespace trident::knn
