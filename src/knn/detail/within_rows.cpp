#include "knn/detail/within_rows.hpp"

#include <algorithm>
#include <utility>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/host_threads.hpp"
#include "core/uninitialized_vector.hpp"
#include "io/reserve_huge.hpp"

namespace trident::knn {

WithinRows::WithinRows(std::int64_t first, std::int64_t count, bool counts_only)
    : first_(first),
      count_(count),
      counts_only_(counts_only),
      done_(static_cast<std::size_t>(count), 0),
      block_(static_cast<std::size_t>(count), 0),
      start_(static_cast<std::size_t>(count), 0),
      size_(static_cast<std::size_t>(count), 0) {}

// (every row given to add() is one not done yet: done_rows_ counts them)
void WithinRows::add(const RowSelection& rows, RaggedRows found) {
  const std::int64_t n = rows.size();
  const auto block = static_cast<std::int32_t>(blocks_.size());
  const std::int64_t* const offsets = found.offsets.data();
  core::host_parallel_ranges(n, std::int64_t(1) << 16, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      const auto row = static_cast<std::size_t>(rows[i]);
      block_[row] = block;
      start_[row] = offsets[i];
      size_[row] = offsets[i + 1] - offsets[i];
      done_[row] = 1;
    }
  });
  entries_ += offsets[n] - offsets[0];
  done_rows_ += n;
  blocks_.push_back(std::move(found));
}

void WithinRows::add_counts(const RowSelection& rows, const std::vector<std::int64_t>& counts) {
  const std::int64_t n = rows.size();
  for (std::int64_t i = 0; i < n; ++i) {
    size_[static_cast<std::size_t>(rows[i])] = counts[static_cast<std::size_t>(i)];
    done_[static_cast<std::size_t>(rows[i])] = 1;
  }
  done_rows_ += n;
}

std::int64_t WithinRows::pairs() const {
  if (!counts_only_) return entries();
  std::int64_t sum = 0;
  for (std::size_t row = 0; row < done_.size(); ++row) sum += done_[row] != 0 ? size_[row] : 0;
  return sum;
}

WithinRows::Written WithinRows::write(io::OutputFile& out, std::int64_t n_observations, bool keep_indices) const {
  const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  if (counts_only_) {  // a rank's counts, rows not done 0
    std::vector<std::int64_t> counts(size_.size());
    for (std::size_t row = 0; row < done_.size(); ++row) counts[row] = done_[row] != 0 ? size_[row] : 0;
    out.create_dataset<std::int64_t>("/knn/counts", {u(n_observations)});
    out.write_slab("/knn/counts", {u(first_)}, {counts.size()}, counts.data());
    return {};
  }
  // this rank's rows in observation order, after every lower rank's entries
  const MPI_Comm comm = out.comm();
  const int ranks = mpi::size(comm), rank = mpi::rank(comm);
  std::vector<std::int64_t> totals(static_cast<std::size_t>(ranks));
  const std::int64_t mine = entries();
  mpi::all_gather(comm, &mine, 1, totals.data());
  std::int64_t before = 0, total = 0;
  for (int r = 0; r < ranks; ++r) {
    if (r < rank) before += totals[static_cast<std::size_t>(r)];
    total += totals[static_cast<std::size_t>(r)];
  }
  // The entries written straight from the blocks the rounds made: a piece is a run of rows
  // whose entries follow each other in one block (a block's rows, as a run makes them).
  // The offsets and pieces of spans of kSpanRows rows on the host's threads (2^24 rows read
  // 21 bytes each), then the spans' pieces joined where they follow each other.
  struct Piece {
    const NeighbourIndex* indices;
    const double* distances;
    std::int64_t size;
    std::int32_t block;
    std::int64_t start;  // in the block's arrays
  };
  constexpr std::int64_t kSpan = kSpanRows;
  const std::int64_t spans = (count_ + kSpan - 1) / kSpan;
  const auto follows = [](const Piece& last, std::int32_t block, std::int64_t start) {
    return last.block == block && last.start + last.size == start;
  };
  const auto span_rows = [this](std::int64_t s) {
    const std::int64_t end = std::min(count_, (s + 1) * kSpan);
    return std::make_pair(static_cast<std::size_t>(s * kSpan), static_cast<std::size_t>(end));
  };
  std::vector<std::int64_t> span_entries(static_cast<std::size_t>(spans) + 1, 0);
  std::vector<std::vector<Piece>> span_pieces(static_cast<std::size_t>(spans));
  core::host_parallel_ranges(spans, 1, [&](std::int64_t first_span, std::int64_t end_span) {
    for (std::int64_t s = first_span; s < end_span; ++s) {
      std::vector<Piece>& pieces = span_pieces[static_cast<std::size_t>(s)];
      std::int64_t at = 0;
      const auto [begin, end] = span_rows(s);
      for (std::size_t row = begin; row < end; ++row) {
        if (done_[row] == 0 || size_[row] == 0) continue;
        if (!pieces.empty() && follows(pieces.back(), block_[row], start_[row]))
          pieces.back().size += size_[row];
        else
          pieces.push_back({row_indices(static_cast<std::int64_t>(row)), row_distances(static_cast<std::int64_t>(row)),
                            size_[row], block_[row], start_[row]});
        at += size_[row];
      }
      span_entries[static_cast<std::size_t>(s) + 1] = at;
    }
  });
  for (std::size_t s = 1; s < span_entries.size(); ++s) span_entries[s] += span_entries[s - 1];
  const std::int64_t at = span_entries.back();
  core::UninitializedVector<std::int64_t> offsets;  // (written to the file from here)
  io::reserve_huge(offsets, static_cast<std::size_t>(count_) + 1);
  offsets.resize(static_cast<std::size_t>(count_) + (rank == ranks - 1 ? 1 : 0));
  core::host_parallel_ranges(spans, 1, [&](std::int64_t first_span, std::int64_t end_span) {
    for (std::int64_t s = first_span; s < end_span; ++s) {
      std::int64_t next = before + span_entries[static_cast<std::size_t>(s)];
      const auto [begin, end] = span_rows(s);
      for (std::size_t row = begin; row < end; ++row) {
        offsets[row] = next;
        if (done_[row] != 0) next += size_[row];
      }
    }
  });
  if (rank == ranks - 1) offsets.back() = total;  // the end of the last row
  std::vector<Piece> pieces;
  for (const std::vector<Piece>& span : span_pieces)
    for (const Piece& piece : span) {
      if (!pieces.empty() && follows(pieces.back(), piece.block, piece.start))
        pieces.back().size += piece.size;
      else
        pieces.push_back(piece);
    }
  // Rows out of order (a restart on another rank count) make many small pieces: then one
  // piece, copied in observation order.
  std::vector<NeighbourIndex> indices;
  std::vector<double> distances;
  if (pieces.size() > kMostPieces) {
    indices.reserve(static_cast<std::size_t>(at));
    distances.reserve(static_cast<std::size_t>(at));
    for (const Piece& piece : pieces) {
      indices.insert(indices.end(), piece.indices, piece.indices + piece.size);
      distances.insert(distances.end(), piece.distances, piece.distances + piece.size);
    }
    pieces = {Piece{indices.data(), distances.data(), at, -1, 0}};
  }
  out.create_dataset<std::int64_t>("/knn/offsets", {u(n_observations) + 1});
  out.create_dataset<NeighbourIndex>("/knn/indices", {u(total)});
  out.create_dataset<double>("/knn/distances", {u(total)});
  out.write_slab("/knn/offsets", {u(first_)}, {offsets.size()}, offsets.data());
  if (total > 0) {  // (else no row holds a neighbour: empty datasets, nothing to write)
    // as many collective writes on every rank (those with fewer pieces write nothing)
    const auto writes = static_cast<std::size_t>(mpi::max_over_ranks(comm, static_cast<double>(pieces.size())));
    std::int64_t written = 0;
    const NeighbourIndex no_index = 0;
    const double no_distance = 0;
    for (std::size_t w = 0; w < writes; ++w) {
      const Piece piece = w < pieces.size() ? pieces[w] : Piece{&no_index, &no_distance, 0, -1, 0};
      out.write_slab("/knn/indices", {u(before + written)}, {u(piece.size)}, piece.indices);
      out.write_slab("/knn/distances", {u(before + written)}, {u(piece.size)}, piece.distances);
      written += piece.size;
    }
  }
  Written result{total, before, {}};
  if (keep_indices) {
    if (!indices.empty() || pieces.empty()) {
      result.indices = std::move(indices);
    } else {
      result.indices.reserve(static_cast<std::size_t>(at));
      for (const Piece& piece : pieces)
        result.indices.insert(result.indices.end(), piece.indices, piece.indices + piece.size);
    }
  }
  return result;
}

void WithinRows::read(const io::InputFile& in, const std::string& path, std::int64_t n_observations,
                      const std::vector<std::uint8_t>& done) {
  const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  if (counts_only_) {
    if (!in.has("/knn/counts") || in.dims("/knn/counts") != std::vector<std::uint64_t>{u(n_observations)})
      throw InputError(path + ": the checkpoint has no /knn/counts of " + std::to_string(n_observations) +
                       " entries (is it damaged?)");
    const std::vector<std::int64_t> counts = in.read<std::int64_t>("/knn/counts", {u(first_)}, {u(count_)});
    for (std::size_t row = 0; row < done_.size(); ++row) {
      done_[row] = done[row];
      size_[row] = counts[row];
    }
    done_rows_ = std::count(done_.begin(), done_.end(), std::uint8_t(1));
    return;
  }
  if (!in.has("/knn/offsets") || in.dims("/knn/offsets") != std::vector<std::uint64_t>{u(n_observations) + 1})
    throw InputError(path + ": the checkpoint has no /knn/offsets of " + std::to_string(n_observations + 1) +
                     " entries (is it damaged?)");
  const std::vector<std::int64_t> offsets = in.read<std::int64_t>("/knn/offsets", {u(first_)}, {u(count_) + 1});
  const std::uint64_t entries = in.dims("/knn/indices").empty() ? 0 : in.dims("/knn/indices")[0];
  if (offsets.front() < 0 || offsets.back() < offsets.front() || u(offsets.back()) > entries)
    throw InputError(path + ": the checkpoint's /knn/offsets do not fit its /knn/indices (is it damaged?)");
  const std::uint64_t from = u(offsets.front()), span = u(offsets.back() - offsets.front());
  blocks_.assign(1, RaggedRows());
  RaggedRows& all = blocks_.front();
  all.indices.resize(span);
  all.distances.resize(span);
  if (span > 0) {
    in.read_into("/knn/indices", {from}, {span}, io::h5_type<NeighbourIndex>(), all.indices.data());
    in.read_into("/knn/distances", {from}, {span}, io::h5_type<double>(), all.distances.data());
  }
  entries_ = static_cast<std::int64_t>(span);
  for (std::size_t row = 0; row < done_.size(); ++row) {
    block_[row] = 0;
    done_[row] = done[row];
    start_[row] = offsets[row] - offsets.front();
    size_[row] = offsets[row + 1] - offsets[row];
  }
  done_rows_ = std::count(done_.begin(), done_.end(), std::uint8_t(1));
}

}  // namespace trident::knn
