// k: all's ragged rows written (WithinRows::write): the rows of every rank in observation
// order, whatever order and blocks the rounds gave them in: blocks of consecutive rows in
// order and out of order (written straight from the blocks), and one row a block in reverse
// order (more runs than kMostPieces: copied first), over several of write()'s spans of rows.
// The file read back against the rows as they were made, on 1 to 4 ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "knn/detail/within_rows.hpp"
#include "support/test_support.hpp"

namespace trident::knn {
namespace {

// Each rank's rows: more than kMostPieces and two spans (kSpanRows), with a rank-dependent
// count (uneven chunks).
std::int64_t rows_of_rank(int rank) { return 2500 + 37 * rank; }

struct Row {
  std::vector<NeighbourIndex> indices;
  std::vector<double> distances;
};

// Row `row` of the whole set: 0 to 4 entries (some rows empty), values from the row.
Row made_row(std::int64_t row) {
  std::mt19937_64 random(static_cast<std::uint64_t>(row) * 7919 + 1);
  Row r;
  const auto size = static_cast<int>(random() % 5);
  for (int i = 0; i < size; ++i) {
    r.indices.push_back(static_cast<NeighbourIndex>(random() % 100000));
    r.distances.push_back(static_cast<double>(random() % 1000000) * 0.125 + row);
  }
  return r;
}

// The rows `rows` (0-based in the chunk from `first`) as one block.
RaggedRows block_of(const std::vector<std::int64_t>& rows, std::int64_t first) {
  RaggedRows b;
  for (const std::int64_t r : rows) {
    const Row made = made_row(first + r);
    b.indices.insert(b.indices.end(), made.indices.begin(), made.indices.end());
    b.distances.insert(b.distances.end(), made.distances.begin(), made.distances.end());
    b.offsets.push_back(static_cast<std::int64_t>(b.indices.size()));
  }
  return b;
}

enum class Blocks { in_order, out_of_order, one_row_each_reversed };

void check_written(Blocks blocks, const std::string& name) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = mpi::rank(comm), ranks = mpi::size(comm);
  std::int64_t first = 0, n = 0;
  for (int r = 0; r < ranks; ++r) {
    if (r < rank) first += rows_of_rank(r);
    n += rows_of_rank(r);
  }
  const std::int64_t count = rows_of_rank(rank);
  WithinRows rows(first, count);
  std::vector<std::vector<std::int64_t>> groups;
  if (blocks == Blocks::one_row_each_reversed) {
    for (std::int64_t r = count - 1; r >= 0; --r) groups.push_back({r});
  } else {
    for (std::int64_t r = 0; r < count; r += 50) {
      groups.emplace_back();
      for (std::int64_t q = r; q < std::min(count, r + 50); ++q) groups.back().push_back(q);
    }
    if (blocks == Blocks::out_of_order) std::swap(groups.front(), groups.back());
  }
  for (const auto& g : groups) rows.add(g, block_of(g, first));

  const std::string folder = trident::test::scratch_folder(comm, "knn_within_rows");
  const std::string path = folder + "/" + name + ".h5";
  WithinRows::Written written;
  {
    io::OutputFile out(comm, path, /*overwrite=*/true);
    out.create_group("/knn");
    written = rows.write(out, n, /*keep_indices=*/true);
    out.commit();
  }
  // what the file must hold: every row of the set in observation order
  std::vector<std::int64_t> offsets{0};
  std::vector<NeighbourIndex> indices;
  std::vector<double> distances;
  std::vector<NeighbourIndex> mine;
  for (std::int64_t row = 0; row < n; ++row) {
    const Row made = made_row(row);
    if (row >= first && row < first + count) mine.insert(mine.end(), made.indices.begin(), made.indices.end());
    indices.insert(indices.end(), made.indices.begin(), made.indices.end());
    distances.insert(distances.end(), made.distances.begin(), made.distances.end());
    offsets.push_back(static_cast<std::int64_t>(indices.size()));
  }
  const io::InputFile in(path, "the rows' file");
  EXPECT_EQ(in.read<std::int64_t>("/knn/offsets"), offsets) << name;
  EXPECT_EQ(in.read<NeighbourIndex>("/knn/indices"), indices) << name;
  EXPECT_EQ(in.read<double>("/knn/distances"), distances) << name;
  EXPECT_EQ(written.total, static_cast<std::int64_t>(indices.size())) << name;
  EXPECT_EQ(written.first, offsets[static_cast<std::size_t>(first)]) << name;
  EXPECT_EQ(written.indices, mine) << name;
}

TEST(MpiKnnWithinRows, BlocksInOrderAreWrittenStraight) {
  ASSERT_GT(rows_of_rank(0), 2 * WithinRows::kSpanRows);  // (offsets found in several spans)
  check_written(Blocks::in_order, "in_order");
}

TEST(MpiKnnWithinRows, BlocksOutOfOrderAreWrittenInObservationOrder) {
  check_written(Blocks::out_of_order, "out_of_order");
}

TEST(MpiKnnWithinRows, ManyRunsAreCopiedInObservationOrder) {
  // most rows hold entries: far more runs than kMostPieces
  ASSERT_GT(static_cast<std::size_t>(rows_of_rank(0)), 2 * WithinRows::kMostPieces);
  check_written(Blocks::one_row_each_reversed, "reversed");
}

}  // namespace
}  // namespace trident::knn
