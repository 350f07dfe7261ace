#pragma once
// The ids in the output: /knn/observation_ids (observations) and /knn/reference_ids
// (observations x k, the id of each neighbour, beside /knn/indices; with k: all one an
// entry of the ragged /knn/indices, in its layout), written after the
// search from each rank's finished rows. Integer ids are int64 and every rank writes its
// own rows; text ids are variable-length UTF-8, which parallel HDF5 cannot write, so the
// rank that holds the file (the study asks for the gathered mode) writes them all from the
// other ranks' rows of indices. A row the search did not finish gets kIntegerIdFill or "".
#include <cstdint>
#include <vector>

#include "io/output_file.hpp"
#include "knn/detail/point_ids.hpp"
#include "knn/detail/result_rows.hpp"

namespace trident::knn {

// This rank's share of the rows: observations first .. first+count-1 of n, k neighbours.
struct IdRows {
  std::int64_t n = 0, first = 0, count = 0;
  int k = 1;
  const NeighbourIndex* indices = nullptr;      // count x k reference indices
  const std::vector<std::uint8_t>* done = nullptr;  // count flags (1: finished); null: every row finished
};

// Writes /knn/reference_ids when `references` has ids and /knn/observation_ids when
// `observations` (this rank's block) has them. The kinds agree on every rank (settle_ids).
// Collective.
void write_point_ids(io::OutputFile& out, const PointIds& references, const PointIds& observations,
                     const IdRows& rows);

// This rank's entries of the ragged rows (k: all): its rows' references in observation
// order, done rows only, placed at entry `first` of `total` (as /knn/indices holds them).
struct RaggedIdEntries {
  std::int64_t total = 0, first = 0;
  const std::vector<NeighbourIndex>* indices = nullptr;
};

// write_point_ids for ragged rows: /knn/reference_ids is 1-D, beside /knn/indices entry for
// entry (an unfinished row has no entries, so no fill). Collective.
void write_ragged_point_ids(io::OutputFile& out, const PointIds& references, const PointIds& observations,
                            const IdRows& rows, const RaggedIdEntries& entries);

}  // namespace trident::knn
