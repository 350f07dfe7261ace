#pragma once
// The exact k nearest references through the spatial index (sphere_index.hpp): the same
// rows, bit for bit, as the brute-force search of search.hpp (same float64 distance, same
// tie rule, same kernels settling them), at a cost that grows with the observations and
// the neighbours they need instead of observations x references.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "knn/detail/index/sphere_index.hpp"
#include "knn/detail/search.hpp"

namespace trident::knn {

struct IndexStats {
  double build_seconds = 0.0;       // the index's build (part of search_seconds when the search built it)
  std::size_t index_bytes = 0;      // SphereIndex::bytes
  int levels = 0;                   // of the tree, leaves to root
  bool register_lists = false;      // the first pass kept its lists in registers
};

// Test hooks of the index search.
struct IndexOptions {
  int start_leaves = 0;  // leaves screened around a row's key before the walk (0: default_start_leaves)
  // Where the first pass keeps its lists: in registers on GPUs and in the list arrays on
  // host back ends (where an insertion that shifts only the entries behind it is faster than
  // one that rewrites every register; docs/history/knn.md), unless a test asks for the one
  // or the other everywhere.
  enum class Lists { automatic, registers, arrays } lists = Lists::automatic;
};

// The k nearest references of observations 0 to n_obs - 1 (host memory) through `index`,
// into `rows` (n_obs x k, as nearest_into). Uses options.k, radius, precision, batch_size,
// slices and device_buffers (where the batches' device arrays are kept between searches;
// null: its own); tiles do not apply: the index holds every reference on the device.
// Requires 1 <= k <= the index's references. profile: batches, widened, list_length,
// pipelined_slices, the phases, index_leaves and index_rows, and search_seconds (the build
// not included).
void index_nearest_into(const SphereIndex& index, const Vec4<double>* observations, std::int64_t n_obs,
                        const SearchOptions& options, ResultRows rows, SearchProfile* profile = nullptr,
                        IndexStats* index_stats = nullptr, const IndexOptions& index_options = IndexOptions());

// Allocates in options.device_buffers (where given) the device arrays of a search of
// `rows` contiguous observations through `index` (a search of fewer fits in them too),
// before the search, where they are not timed with it.
void reserve_index_search(std::int64_t rows, const SphereIndex& index, const SearchOptions& options);

// Builds the index of `references` and searches it: the result of nearest(observations,
// references, options), bit for bit. The build counts in profile->search_seconds, and is
// shown on its own in profile->setup_seconds and index_stats->build_seconds.
Neighbours index_nearest(const std::vector<Vec4<double>>& observations, const std::vector<Vec4<double>>& references,
                         const SearchOptions& options, SearchProfile* profile = nullptr,
                         IndexStats* index_stats = nullptr, const IndexOptions& index_options = IndexOptions());

// Device bytes a search of `rows` observations through an index takes besides the index
// (a batch's arrays, at most 2^22 rows), in precision `precision`.
std::size_t index_search_bytes(std::int64_t rows, int k, core::Precision precision);

}  // namespace trident::knn
