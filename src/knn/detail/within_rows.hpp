#pragma once
// One rank's ragged rows of k: all (every reference within knn.max_distance): its chunk's
// rows in any order of finishing (a restart on another rank count finishes them out of
// order), written in observation order as /knn/offsets (observations + 1), /knn/indices
// and /knn/distances, with one collective write per dataset; the same layout in the output
// and in the checkpoint. With k: count only the rows' sizes, as /knn/counts. The rows stay
// in the blocks the rounds made them in (no copy).
#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "knn/detail/row_list.hpp"
#include "knn/detail/within_search.hpp"

namespace trident::knn {

class WithinRows {
 public:
  // `counts_only`: k: count (rows without entries).
  WithinRows(std::int64_t first, std::int64_t count, bool counts_only = false);

  std::int64_t first() const { return first_; }
  std::int64_t count() const { return count_; }
  const std::vector<std::uint8_t>& done() const { return done_; }
  std::int64_t done_rows() const { return done_rows_; }
  std::int64_t entries() const { return entries_; }
  // Row `row` (0-based in the chunk; none when not done): its size, references and distances,
  // nearest first (null when it has none).
  std::int64_t row_size(std::int64_t row) const { return size_[static_cast<std::size_t>(row)]; }
  const NeighbourIndex* row_indices(std::int64_t row) const {
    const auto r = static_cast<std::size_t>(row);
    if (size_[r] == 0) return nullptr;  // (a row not done, or empty)
    return blocks_[static_cast<std::size_t>(block_[r])].indices.data() + start_[r];
  }
  const double* row_distances(std::int64_t row) const {
    const auto r = static_cast<std::size_t>(row);
    if (size_[r] == 0) return nullptr;
    return blocks_[static_cast<std::size_t>(block_[r])].distances.data() + start_[r];
  }

  // Row `rows[i]` (0-based in the chunk, each once; i < rows.size()) gets row i of `found`
  // (kept as it is), and is done.
  void add(const RowSelection& rows, RaggedRows found);
  void add(const std::vector<std::int64_t>& rows, RaggedRows found) {
    add(RowSelection::of(rows.data(), static_cast<std::int64_t>(rows.size())), std::move(found));
  }
  // k: count: row `rows[i]` holds counts[i] references, and is done.
  void add_counts(const RowSelection& rows, const std::vector<std::int64_t>& counts);
  // The references within counted over the rows done (k: count), else the entries.
  std::int64_t pairs() const;

  // Where write() put this rank's entries: at `first` of `total`, its rows' references in
  // observation order (for their ids beside them).
  struct Written {
    std::int64_t total = 0, first = 0;
    std::vector<NeighbourIndex> indices;
  };
  // Creates /knn/offsets, /knn/indices, /knn/distances in `out` (the group exists) and
  // writes every rank's rows in observation order (rows not done: none), straight from the
  // blocks where their rows follow each other there. Written::indices only with
  // `keep_indices`. Collective.
  Written write(io::OutputFile& out, std::int64_t n_observations, bool keep_indices = false) const;
  // The most pieces (runs of rows) a rank writes straight from its blocks; more (rows out of
  // order, after a restart on another rank count) are copied into one first.
  static constexpr std::size_t kMostPieces = 256;
  // write() finds the offsets and pieces of spans of this many rows on the host's threads.
  static constexpr std::int64_t kSpanRows = 1024;

  // This rank's rows of a file that write() made, with `done` (count) marking the finished
  // ones. Throws InputError naming `path` when the datasets do not fit.
  void read(const io::InputFile& in, const std::string& path, std::int64_t n_observations,
            const std::vector<std::uint8_t>& done);

 private:
  std::int64_t first_, count_;
  bool counts_only_;
  std::vector<std::uint8_t> done_;
  std::vector<RaggedRows> blocks_;          // the rows as add() (or read()) got them
  std::vector<std::int32_t> block_;         // a row's block
  std::vector<std::int64_t> start_, size_;  // a row's entries in its block's arrays
  std::int64_t entries_ = 0, done_rows_ = 0;
};

}  // namespace trident::knn
