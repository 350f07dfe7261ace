#pragma once
// The `knn:` section of a deck, typed and validated: plain settings, read by settings.cpp.
#include <cstdint>
#include <limits>
#include <string>

#include "core/precision.hpp"

namespace trident::deck {
class Section;  // deck/reader.hpp: settings.cpp reads the section through it
}

namespace trident::knn {

// Where a set of points (observations or references) comes from. Latitude and
// longitude are in degrees.
struct PointSource {
  enum class Kind { generate, csv, hdf5 };
  Kind kind = Kind::generate;
  std::string key;   // deck path for messages, e.g. "knn.observations"
  // generate: `count` points uniform on the sphere, from `seed` (point i depends only on
  // seed and i, so every rank can make its own part).
  std::int64_t count = 0;
  std::uint64_t seed = 1;
  // csv: `file` with a header row naming the columns `latitude` and `longitude`.
  // hdf5: `file` and `dataset`, an N x 2 array of (latitude, longitude).
  std::string file;  // resolved against the deck's folder
  std::string latitude = "latitude";
  std::string longitude = "longitude";
  std::string dataset;
  // The points' names, carried to the output: csv `id` (a column) or hdf5 `ids` (a 1-D
  // dataset of integers or texts); empty when the deck names none.
  std::string ids;
  bool has_ids() const { return !ids.empty(); }
  // Each point's own search radius (knn.max_distance: {column: NAME}, observations only): a
  // CSV column or a 1-D HDF5 dataset of the same file, in the unit of `radius`; empty when
  // the deck gives one distance for all.
  std::string radii;
  bool has_radii() const { return !radii.empty(); }
  std::string ids_key() const;   // "knn.references.csv.id" or "knn.references.hdf5.ids"
  std::string describe() const;  // "generate(count=65536, seed=1)", "csv(obs.csv)", ...
};

// What a row of the result holds: the k nearest (`k: N`), every reference within
// knn.max_distance (`k: all`, ragged rows), or only how many lie within it (`k: count`).
enum class KnnRows { nearest, all, count };

// How references are searched: brute (every pair screened), index (knn/detail/index/: a
// spatial index on the sphere) or automatic (`auto` in a deck: chosen from the counts and
// k). The answer is the same bit for bit.
enum class KnnMethod { automatic, brute, index };
// The deck's word for it: auto, brute or index.
const char* method_name(KnnMethod method);

// knn.match: none (the rows k asks for), best (each observation's nearest reference within
// knn.max_distance, or none) or mutual (best, and whether the observation is that reference's
// own nearest observation within it: the symmetric best match). A match runs as k: all
// (rows holds all) and writes one reference a row.
enum class KnnMatch { none, best, mutual };

struct KnnSettings {
  std::int64_t k = 1;  // 1 with k: all and count (checked against the references like any k)
  KnnRows rows = KnnRows::nearest;
  std::string k_where;                 // FILE:LINE:COL of knn.k (for "k > references" errors)
  double radius = 6371008.8;           // sphere radius in metres (Earth's mean radius)
  core::Precision precision = core::Precision::float32;  // screening: float32 (+ float64 settling) or float64
  PointSource observations;
  PointSource references;
  std::int64_t batch_size = 0;  // observations per device batch; 0: from free device memory
  std::int64_t tile_size = 0;   // references per device tile; 0: all when they fit
  KnnMethod method = KnnMethod::automatic;
  // knn.max_distance, in the unit of `radius`: the k nearest within it, rows padded with
  // index -1 and distance NaN where fewer lie within; infinity when the deck gives none
  // (or, with `max_distance: {column: NAME}`, each observation's own: observations.radii)
  double max_distance = std::numeric_limits<double>::infinity();
  bool has_max_distance() const {
    return max_distance != std::numeric_limits<double>::infinity() || observations.has_radii();
  }
  // the limit for the log: "50000" or "column 'err'"
  std::string max_distance_text() const;
  // `references: observations`: one point set searched against itself (read once;
  // `references` is then a copy of `observations`), and knn.exclude_self (default true
  // then): each point's own index left out of its row (points that merely share its
  // position stay)
  KnnMatch match = KnnMatch::none;
  std::string match_text() const { return match == KnnMatch::best ? "best" : match == KnnMatch::mutual ? "mutual" : "none"; }
  bool self = false;
  bool exclude_self = false;
  // neighbours a k-nearest search finds a row: one more than k when the point itself is
  // among them and left out afterwards
  std::int64_t search_k() const { return k + (exclude_self ? 1 : 0); }
  // k as the deck gives it: the number, all or count
  std::string k_text() const {
    if (match != KnnMatch::none) return "1, match " + match_text();
    return rows == KnnRows::all ? "all" : rows == KnnRows::count ? "count" : std::to_string(k);
  }
};

// Reads `knn:` from the top-level section (the caller checked that it is there).
KnnSettings parse_knn(const deck::Section& top);

// k against the number of references, once a file has told it: InputError naming knn.k
// (run and validate both check it before any point is read).
void check_k(const KnnSettings& settings, std::int64_t references);

}  // namespace trident::knn
