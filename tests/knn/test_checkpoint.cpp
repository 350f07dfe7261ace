// kNN checkpoints: what a restart reads back, on every rank's part of the rows.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "deck/deck.hpp"
#include "support/study_decks.hpp"
#include "knn/detail/checkpoint.hpp"
#include "support/test_support.hpp"

namespace trident::knn {
namespace {

constexpr std::int64_t kRowsPerRank = 7, kK = 3, kReferences = 40;

const knn::KnnSettings& settings() {
  static const trident::test::StudyDeck d = trident::test::read_deck_text(
      "knn:\n  k: 3\n  observations: {generate: {count: 7, seed: 1}}\n"
      "  references: {generate: {count: 40, seed: 2}}\n",
      "deck.yaml", ".");
  return *d.knn;
}

// This rank's rows: finished ones with indices near both ends of the 32-bit range, and
// unfinished ones (-1 and 0).
ChunkRows rows_of(int rank) {
  ChunkRows rows;
  rows.first = rank * kRowsPerRank;
  rows.count = kRowsPerRank;
  allocate_rows(rows.neighbours, static_cast<std::size_t>(kRowsPerRank * kK));
  for (std::int64_t r = 0; r < kRowsPerRank; ++r) {
    const bool done = (r + rank) % 3 != 0;
    rows.done.push_back(done ? 1 : 0);
    for (std::int64_t i = 0; done && i < kK; ++i) {
      const auto at = static_cast<std::size_t>(r * kK + i);
      rows.neighbours.indices[at] = static_cast<NeighbourIndex>(i == 2 ? 2147483646 - r : rows.first + r + i);
      rows.neighbours.distances[at] = 0.25 * static_cast<double>(rows.first + r) + static_cast<double>(i);
    }
  }
  return rows;
}

// Replaces /knn/indices with a 64-bit copy of it, as builds before the 32-bit rows wrote it.
void widen_indices(const std::string& path) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hid_t old = H5Dopen2(f, "/knn/indices", H5P_DEFAULT);
  const hid_t space = H5Dget_space(old);
  hsize_t dims[2] = {0, 0};
  H5Sget_simple_extent_dims(space, dims, nullptr);
  std::vector<std::int64_t> values(static_cast<std::size_t>(dims[0] * dims[1]));
  EXPECT_GE(H5Dread(old, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  H5Dclose(old);
  EXPECT_GE(H5Ldelete(f, "/knn/indices", H5P_DEFAULT), 0);
  const hid_t wide = H5Dcreate2(f, "/knn/indices", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  EXPECT_GE(H5Dwrite(wide, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  const hid_t type = H5Dget_type(wide);
  EXPECT_EQ(H5Tget_size(type), 8u);
  H5Tclose(type);
  H5Dclose(wide);
  H5Sclose(space);
  H5Fclose(f);
}

void expect_rows_equal(const ChunkRows& want, const ChunkRows& got) {
  EXPECT_EQ(got.first, want.first);
  EXPECT_EQ(got.count, want.count);
  EXPECT_EQ(got.done, want.done);
  EXPECT_EQ(std::vector<NeighbourIndex>(got.neighbours.indices.begin(), got.neighbours.indices.end()),
            std::vector<NeighbourIndex>(want.neighbours.indices.begin(), want.neighbours.indices.end()));
  EXPECT_EQ(std::vector<double>(got.neighbours.distances.begin(), got.neighbours.distances.end()),
            std::vector<double>(want.neighbours.distances.begin(), want.neighbours.distances.end()));
}

// Each rank writes its rows into one checkpoint (`widened`: then rank 0 rewrites its
// indices as 64-bit ones) and reads its own rows back.
void expect_round_trip(const std::string& name, bool widened) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = mpi::rank(comm), size = mpi::size(comm);
  const std::string path = test::scratch_folder(comm, name) + "/rows.checkpoint.h5";
  const ChunkRows mine = rows_of(rank);
  write_checkpoint(comm, path, settings(), kRowsPerRank * size, kReferences, mine);
  if (widened && rank == 0) widen_indices(path);
  MPI_Barrier(comm);
  expect_rows_equal(mine, read_checkpoint(path, settings(), kRowsPerRank * size, kReferences, mine.first, mine.count,
                                          std::vector<std::string>{"", ""}));
}

TEST(MpiKnnCheckpoint, EveryRankReadsBackItsRows) { expect_round_trip("knn_checkpoint", false); }

TEST(MpiKnnCheckpoint, ReadsTheSixtyFourBitIndicesOfEarlierBuilds) {
  expect_round_trip("knn_checkpoint_int64", true);
}

}  // namespace
}  // namespace trident::knn
