#pragma once
// The search run with several option sets (precision, list kind, forced batches, tiles,
// segments and slices) and checked against the brute force, for the knn search tests.
#include <string>
#include <vector>

#include "brute_force.hpp"
#include "knn/detail/checkpoint.hpp"
#include "knn/detail/search.hpp"
#include "knn/detail/search_test_hooks.hpp"

namespace trident::knn::test {

constexpr double kEarth = 6371008.8;
// The screening precisions, short for the tables of cases.
constexpr core::Precision kFloat32 = core::Precision::float32, kFloat64 = core::Precision::float64;

inline std::vector<Vec4<double>> vectors(const std::vector<Point>& points) {
  std::vector<double> lat_lon;
  for (const auto& p : points) lat_lon.insert(lat_lon.end(), {p.lat, p.lon});
  return unit_vectors(lat_lon);
}

// `count` rows of k neighbours for a search in rounds, none done yet (as a run starts them).
inline ChunkRows rows_to_search(std::size_t count, int k) {
  ChunkRows rows;
  rows.count = static_cast<std::int64_t>(count);
  rows.done.assign(count, 0);
  allocate_rows(rows.neighbours, count * static_cast<std::size_t>(k));
  return rows;
}

struct SearchCase {
  core::Precision precision = core::Precision::float32;
  bool select_only = false;  // the any-k (select) screen for every k
  std::int64_t batch = 0, tile = 0;
  int segments = 0;  // reference segments per tile (0: automatic)
  int slices = 0;    // pipeline slices per batch (0: automatic, 1 off the GPU)
  bool centre_per_team = false;  // per-team screening centres (always so on GPUs)
  bool long_register_lists = false;  // register lists up to 80 (always so on GPUs)
  bool buffers_only = false;  // the buffer screen for every k
  // lists start at a bound (list_bound.hpp): always (on), never (off), by size (automatic)
  core::Switch list_bound = core::Switch::automatic;
};

inline std::string switch_name(core::Switch s) {
  return s == core::Switch::on ? "on" : s == core::Switch::off ? "off" : "auto";
}

// Runs every case; each must equal the brute force and, with `same_across_cases`, every
// other case bit for bit. Returns the first case's count of observations searched again
// (and every case's in `widened_each`, when given).
inline std::int64_t check_cases(const std::vector<Point>& obs, const std::vector<Point>& refs, int k,
                                double radius, const std::vector<SearchCase>& cases, bool same_across_cases,
                                std::vector<std::int64_t>* widened_each = nullptr) {
  const Answer want = brute_force(obs, refs, k, radius);
  const auto o = vectors(obs), r = vectors(refs);
  Neighbours first;
  std::int64_t widened = -1;
  for (const SearchCase& c : cases) {
    SCOPED_TRACE("k " + std::to_string(k) + ", " + core::precision_name(c.precision) +
                 (c.select_only ? ", select only" : "") +
                 ", batch " + std::to_string(c.batch) + ", tile " + std::to_string(c.tile) + ", segments " +
                 std::to_string(c.segments) + ", slices " + std::to_string(c.slices) +
                 (c.centre_per_team ? ", centre per team" : "") +
                 (c.long_register_lists ? ", long register lists" : "") + (c.buffers_only ? ", buffers" : "") +
                 ", list bound " + switch_name(c.list_bound));
    SearchOptions options;
    options.k = k;
    options.radius = radius;
    options.precision = c.precision;
    if (c.buffers_only) options.forced_lists = ListKind::buffers;
    if (c.select_only) options.forced_lists = ListKind::select;
    options.batch_size = c.batch;
    options.tile_size = c.tile;
    options.slices = c.slices;
    options.list_bound = c.list_bound;
    SearchTestHooks hooks;
    hooks.segments = c.segments;
    hooks.centre_per_team = c.centre_per_team;
    hooks.long_register_lists = c.long_register_lists;
    SearchProfile stats;
    const Neighbours got = nearest(o, r, options, hooks, &stats);
    expect_same(want, got.indices, got.distances, k, radius);
    if (widened < 0) widened = stats.widened;
    if (widened_each != nullptr) widened_each->push_back(stats.widened);
    if (!same_across_cases) continue;
    if (first.indices.empty()) {
      first = got;
    } else {
      EXPECT_EQ(first.indices, got.indices);
      EXPECT_EQ(first.distances, got.distances);
    }
  }
  return widened;
}

// References and observations at both poles (every longitude), just off them, and on both
// sides of the dateline (at +-180 exactly and a hair inside): the places where latitude and
// longitude mislead.
inline void poles_and_dateline(std::vector<Point>& refs, std::vector<Point>& obs) {
  for (int i = 0; i < 24; ++i) {
    const double lon = -180.0 + 15.0 * i;
    refs.push_back({90.0, lon});
    refs.push_back({-90.0, lon});
    refs.push_back({89.9999, lon});
    refs.push_back({-89.99999, lon + 7.5});
    refs.push_back({0.001 * i - 0.01, 180.0});
    refs.push_back({0.001 * i - 0.012, -180.0});
    refs.push_back({10.0 + 0.1 * i, 179.99999 - 0.00001 * i});
    refs.push_back({10.0 + 0.1 * i, -179.99999 + 0.00001 * i});
  }
  for (int i = 0; i < 20; ++i) {
    obs.push_back({90.0, -180.0 + 18.0 * i});
    obs.push_back({-90.0, 3.0 * i});
    obs.push_back({89.99995, 10.0 * i});
    obs.push_back({0.001 * i, i % 2 ? 180.0 : -180.0});
    obs.push_back({10.0 + 0.12 * i, i % 2 ? 179.999999 : -179.999999});
  }
}

}  // namespace trident::knn::test
