#pragma once
// A search's results: the rows of k neighbours (reference indices and distances) of each
// observation, where a search writes them, and their host allocation.
#include <cstddef>
#include <cstdint>

#include "core/uninitialized_vector.hpp"

namespace trident::knn {

// A reference's index in a result row. 32 bits: a search takes fewer than 2^31 references,
// and the rows are what crosses the link, fills host memory and the file (12 bytes a
// neighbour instead of 16 with 64-bit indices).
using NeighbourIndex = std::int32_t;

// Row-major observations x k: reference indices (0-based, as given; -1 in an empty row)
// and distances.
struct Neighbours {
  core::UninitializedVector<NeighbourIndex> indices;
  core::UninitializedVector<double> distances;
};

// Where a search writes its results: row o's k reference indices at indices + o * k and
// its distances at distances + o * k (host memory the caller owns).
struct ResultRows {
  NeighbourIndex* indices;
  double* distances;
};

// Sets `rows` to `entries` empty results (index -1, distance 0), backed by huge pages
// where the system offers them, and first touched on every usable CPU: the rows reach
// gigabytes (12 bytes a neighbour), which one thread touching 4 KiB pages would take
// seconds to fill.
void allocate_rows(Neighbours& rows, std::size_t entries);

}  // namespace trident::knn
