#pragma once
// The public entry points of the kNN search: exact k nearest references of a set of
// observations on one rank's device. float32 (or float64) screening of squared chords
// (coordinates relative to a centre of each slice or team of observations), float64
// settling of the candidates within the screening window of the k-th, and a wider float64
// search for the rare observation whose kept list was too short to prove its answer.
// The parts: list choice (list_choice.hpp), the Searcher's passes (searcher.hpp), their
// slice pipeline (slice_pipeline.hpp) and screen launches (screen_launch.hpp).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "knn/detail/geometry.hpp"
#include "knn/detail/result_rows.hpp"
#include "knn/detail/search_options.hpp"
#include "knn/detail/search_profile.hpp"

namespace trident::knn {

// Unit vectors of points given as interleaved (latitude, longitude) degrees.
std::vector<Vec4<double>> unit_vectors(const std::vector<double>& lat_lon);

// The k nearest references of every observation. Requires 1 <= k <= references.size()
// and references.size() < 2^31. `profile`, when given, receives what the search measured.
Neighbours nearest(const std::vector<Vec4<double>>& observations,
                   const std::vector<Vec4<double>>& references, const SearchOptions& options,
                   SearchProfile* profile = nullptr);

// The same for `n_obs` observations at `observations` (host memory; page-locked memory,
// see transport::PageLock, makes the copies to the device faster).
Neighbours nearest(const Vec4<double>* observations, std::int64_t n_obs,
                   const std::vector<Vec4<double>>& references, const SearchOptions& options,
                   SearchProfile* profile = nullptr);

// The same, writing every row into `rows` (no result arrays of its own, no copy): for
// callers that keep the rows, e.g. a search in rounds. Page-lock the rows (transport::PageLock) for
// fast copies from the device.
void nearest_into(const Vec4<double>* observations, std::int64_t n_obs,
                  const std::vector<Vec4<double>>& references, const SearchOptions& options, ResultRows rows,
                  SearchProfile* profile = nullptr);

// Allocates in options.device_buffers the device arrays of a search of `n_obs` contiguous
// observations (a search of fewer, e.g. a first round, fits in them too), and its list
// bound into options.bound_cache, before the search, where they are not timed with it.
void reserve_search(std::int64_t n_obs, const std::vector<Vec4<double>>& references, const SearchOptions& options);

// Device memory this rank may use for the search: on a GPU half of the free memory and
// of `held` (what the search's device buffers already hold, which it reuses), a fixed
// 2 GiB on host backends.
std::size_t search_memory_budget(std::size_t held = 0);

}  // namespace trident::knn
