#pragma once
// knn.match, made from the rows of k: all (every reference within knn.max_distance, nearest
// first, ties by index) once every round is done: best is each row's first reference (index
// -1, distance NaN for none), and mutual flags the observations that are also their match's
// own nearest observation within the distance (ties, 1e-12 relative and chained, by the
// lower observation index, as the rows order references). A reference's nearest observation
// is found over every rank's rows with reductions alone: the least distance, the end of its
// tie group, then the lowest observation index in it.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "io/output_file.hpp"
#include "knn/settings.hpp"
#include "knn/detail/within_rows.hpp"

namespace trident::knn {

struct MatchRows {
  std::vector<NeighbourIndex> index;  // a rank's rows: the match, -1 none
  std::vector<double> distance;       // NaN none
  std::vector<std::int64_t> within;   // references within the distance
  std::vector<std::uint8_t> mutual;   // mutual: the match's nearest observation is this one
  // over every rank: observations with a match, without, with more than one reference within
  // (ambiguous), and mutual matches
  std::int64_t matched = 0, unmatched = 0, ambiguous = 0, mutual_matches = 0;
};

// The match of every row of `rows` (rows not done: none; `complete`: every rank's rows are
// done, else mutual flags none, since a reference's nearest observation needs them all).
// Collective.
MatchRows match_rows(const WithinRows& rows, std::int64_t n_references, KnnMatch match, bool complete,
                     MPI_Comm comm);

// /knn/indices and /knn/distances (observations x 1), /knn/counts and, for mutual,
// /knn/mutual, with their descriptions, and the counts as attributes. Collective.
void write_match(io::OutputFile& out, const MatchRows& m, const WithinRows& rows, std::int64_t n_observations,
                 KnnMatch match, const std::string& distance_unit);

}  // namespace trident::knn
