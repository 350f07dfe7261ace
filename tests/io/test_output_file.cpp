// io::OutputFile and io::InputFile with the real HDF5 library, on 1-4 ranks, in both
// the parallel (MPI-IO) and the gathered (rank 0 writes) modes.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdio>
#include <fstream>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "io/direct_rows.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "support/test_support.hpp"

namespace trident::io {
namespace {

class MpiOutputFile : public testing::TestWithParam<Mode> {};

TEST_P(MpiOutputFile, UnevenRowBlocksAndAttributesRoundTrip) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int me = mpi::rank(comm), n = mpi::size(comm);
  const std::string folder = test::scratch_folder(comm, "io_roundtrip");
  const std::string path = folder + "/rows.h5";
  const std::uint64_t rows = 11, columns = 3;  // 11 rows never split evenly over 2-4 ranks
  // Rank me writes rows [rows me / n, rows (me + 1) / n) (the io tests link io and core alone).
  const std::int64_t first = static_cast<std::int64_t>(rows) * me / n;
  const std::int64_t count = static_cast<std::int64_t>(rows) * (me + 1) / n - first;
  std::vector<std::int64_t> block;
  for (std::int64_t r = first; r < first + count; ++r)
    for (std::uint64_t c = 0; c < columns; ++c) block.push_back(1000 * r + static_cast<std::int64_t>(c));
  {
    OutputFile file(comm, path, false, GetParam());
    file.create_dataset<std::int64_t>("/group/sub/rows", {rows, columns});
    file.write_slab<std::int64_t>("/group/sub/rows", {static_cast<std::uint64_t>(first), 0},
                                  {static_cast<std::uint64_t>(count), columns}, block.data());
    file.write_array<double>("/group/values", me == 0 ? std::vector<double>{0.5, -1.25, 3e300} : std::vector<double>{});
    file.write_array<double>("/group/empty", {}, {0, 2});
    file.attribute("/", "text", std::string(me == 0 ? "rank 0 says \xc2\xb5m" : "ignored"));
    file.attribute("/group", "number", 2.5);
    file.attribute("/group", "count", std::int64_t{-7});
    file.attribute("/group", "list", std::vector<double>{1, 2, 3});
    file.attribute("/", "big", std::string(100000, 'x'));  // beyond the 64 KiB compact limit
    if (me == 0) EXPECT_TRUE(test::file_exists(path + ".partial"));
    file.commit();
  }
  EXPECT_TRUE(test::file_exists(path));
  EXPECT_FALSE(test::file_exists(path + ".partial"));
  const InputFile in(path, "test file");
  EXPECT_EQ(in.dims("/group/sub/rows"), (std::vector<std::uint64_t>{rows, columns}));
  const auto all = in.read<std::int64_t>("/group/sub/rows");
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t c = 0; c < columns; ++c)
      EXPECT_EQ(all[r * columns + c], static_cast<std::int64_t>(1000 * r + c));
  const auto part = in.read<double>("/group/sub/rows", {2, 1}, {3, 2});
  EXPECT_EQ(part, (std::vector<double>{2001, 2002, 3001, 3002, 4001, 4002}));
  EXPECT_EQ(in.read<double>("/group/values"), (std::vector<double>{0.5, -1.25, 3e300}));
  EXPECT_EQ(in.dims("/group/empty"), (std::vector<std::uint64_t>{0, 2}));
  EXPECT_EQ(in.string_attribute("/", "text"), "rank 0 says \xc2\xb5m");
  EXPECT_EQ(in.string_attribute("/", "big").size(), 100000u);
  EXPECT_DOUBLE_EQ(in.real_attribute("/group", "number"), 2.5);
  EXPECT_EQ(in.integer_attribute("/group", "count"), -7);
  MPI_Barrier(comm);
}

TEST_P(MpiOutputFile, ColumnBlocksChunkedDatasetsAndEmptyBlocksRoundTrip) {
  // beside whole rows of a contiguous dataset (written by each rank into the file in the
  // gathered mode): blocks of columns, a chunked dataset, and ranks without rows, which
  // take the other paths
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int me = mpi::rank(comm), n = mpi::size(comm);
  const std::string folder = test::scratch_folder(comm, "io_blocks");
  const std::string path = folder + "/blocks.h5";
  const std::uint64_t rows = 5, columns = static_cast<std::uint64_t>(2 * n + 1);
  // rank r writes columns [2r, 2r + 2) of every row; the last rank also the last column
  const std::uint64_t first_column = static_cast<std::uint64_t>(2 * me);
  const std::uint64_t my_columns = me == n - 1 ? 3 : 2;
  std::vector<double> block;
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t c = first_column; c < first_column + my_columns; ++c) block.push_back(100.0 * r + c);
  // only the last rank holds rows of /chunked and of /sparse (the others write none)
  const bool last = me == n - 1;
  std::vector<std::int32_t> chunked(last ? 7 * 3 : 0), sparse(last ? 7 * 3 : 0);
  for (std::size_t i = 0; i < chunked.size(); ++i) chunked[i] = static_cast<std::int32_t>(i) - 10, sparse[i] = static_cast<std::int32_t>(3 * i);
  {
    OutputFile file(comm, path, false, GetParam());
    file.create_dataset<double>("/columns", {rows, columns});
    file.write_slab<double>("/columns", {0, first_column}, {rows, my_columns}, block.data());
    file.create_dataset<std::int32_t>("/chunked", {7, 3}, {0, 3}, {2, 3});
    file.write_slab<std::int32_t>("/chunked", {0, 0}, {last ? 7u : 0u, 3}, chunked.data());
    file.create_dataset<std::int32_t>("/sparse", {7, 3});
    file.write_slab<std::int32_t>("/sparse", {last ? 0u : 7u, 0}, {last ? 7u : 0u, 3}, sparse.data());
    file.commit();
  }
  const InputFile in(path, "test file");
  const auto all = in.read<double>("/columns");
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t c = 0; c < columns; ++c) EXPECT_EQ(all[r * columns + c], 100.0 * r + c) << r << " " << c;
  std::vector<std::int32_t> expected_chunked(7 * 3), expected_sparse(7 * 3);
  for (std::size_t i = 0; i < expected_chunked.size(); ++i)
    expected_chunked[i] = static_cast<std::int32_t>(i) - 10, expected_sparse[i] = static_cast<std::int32_t>(3 * i);
  EXPECT_EQ(in.read<std::int32_t>("/chunked"), expected_chunked);
  EXPECT_EQ(in.read<std::int32_t>("/sparse"), expected_sparse);
  MPI_Barrier(comm);
}

TEST_P(MpiOutputFile, DatasetWrittenARowAtATimeKeepsEveryRow) {
  // as the ridge study writes its solutions, a λ a call: in the gathered mode each call
  // checks that every rank sees the file with a mark where the dataset starts, and the
  // mark must not stay over the rows an earlier call wrote there
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int me = mpi::rank(comm), n = mpi::size(comm);
  const std::string folder = test::scratch_folder(comm, "io_row_at_a_time");
  const std::string path = folder + "/rows.h5";
  const std::uint64_t rows = 6, columns = 4;
  auto value = [](std::uint64_t r, std::uint64_t c) { return 0.5 + 10.0 * r + c; };
  {
    OutputFile file(comm, path, false, GetParam());
    file.create_dataset<double>("/solutions", {rows, columns});
    for (std::uint64_t r = 0; r < rows; ++r) {
      const bool mine = static_cast<int>(r % static_cast<std::uint64_t>(n)) == me;
      std::vector<double> row;
      for (std::uint64_t c = 0; mine && c < columns; ++c) row.push_back(value(r, c));
      file.write_slab<double>("/solutions", {r, 0}, {mine ? 1u : 0u, columns}, row.data());
    }
    file.commit();
  }
  const auto all = InputFile(path, "test file").read<double>("/solutions");
  ASSERT_EQ(all.size(), rows * columns);
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t c = 0; c < columns; ++c) EXPECT_EQ(all[r * columns + c], value(r, c)) << r << " " << c;
  MPI_Barrier(comm);
}

TEST_P(MpiOutputFile, ExistingFileIsRefusedAndKept) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "io_existing");
  const std::string path = folder + "/keep.h5";
  if (mpi::rank(comm) == 0) test::write_text(path, "precious");
  MPI_Barrier(comm);
  try {
    OutputFile file(comm, path, false, GetParam());
    FAIL() << "an existing file was opened for writing";
  } catch (const CollectiveError& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_EQ(std::string(e.what()),
              path + ": the output file already exists; choose another with --output, or pass --overwrite "
                     "(deck: output.overwrite: true) to replace it");
  }
  std::ifstream in(path);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "precious");
  EXPECT_FALSE(test::file_exists(path + ".partial"));
}

TEST_P(MpiOutputFile, DiscardLeavesNothing) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "io_discard");
  const std::string path = folder + "/gone.h5";
  {
    OutputFile file(comm, path, false, GetParam());
    file.create_dataset<float>("/x", {4});
    file.discard();
  }
  MPI_Barrier(comm);
  EXPECT_FALSE(test::file_exists(path));
  EXPECT_FALSE(test::file_exists(path + ".partial"));
}

TEST_P(MpiOutputFile, FailedRenameKeepsTheFinishedResultAndSaysWhere) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "io_rename");
  const std::string path = folder + "/result.h5";
  {
    OutputFile file(comm, path, false, GetParam());
    file.write_array<double>("/values", {1.5, 2.5});
    // a folder takes the output's place while the run works: rename() cannot replace it
    if (mpi::rank(comm) == 0) {
      ASSERT_EQ(mkdir(path.c_str(), 0755), 0);
      test::write_text(path + "/occupied", "x");
    }
    MPI_Barrier(comm);
    try {
      file.commit();
      FAIL() << "the rename onto a folder succeeded";
    } catch (const CollectiveError& e) {
      EXPECT_EQ(e.exit_code(), 1);
      EXPECT_EQ(std::string(e.what()),
                path + ": the run finished but its output could not be renamed from " + path +
                    ".partial (Is a directory); the finished result is kept in " + path +
                    ".partial: rename it by hand");
    }
  }
  MPI_Barrier(comm);
  const InputFile kept(path + ".partial", "kept result");
  EXPECT_EQ(kept.read<double>("/values"), (std::vector<double>{1.5, 2.5}));
}

TEST_P(MpiOutputFile, AWriteFailingOnOneRankFailsOnEveryRankAndTheFileCanBeDiscarded) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "io_failed_write");
  const std::string path = folder + "/failed.h5";
  const int me = mpi::rank(comm);
  OutputFile file(comm, path, false, GetParam());
  file.create_dataset<double>("/rows", {static_cast<std::uint64_t>(mpi::size(comm)), 2});
  const double row[2] = {double(me), 1.0};
  // rank 0 asks for rows beyond the dataset: only its own selection fails; in the gathered
  // mode the other ranks' blocks still have to be received for the job to go on
  const std::uint64_t first = me == 0 ? 1000 : static_cast<std::uint64_t>(me);
  try {
    file.write_slab<double>("/rows", {first, 0}, {1, 2}, row);
    FAIL() << "a write outside the dataset succeeded";
  } catch (const CollectiveError& e) {
    EXPECT_EQ(e.exit_code(), 1);
    EXPECT_EQ(std::string(e.what()), path + ": selecting a block of /rows failed");
  }
  file.discard();
  MPI_Barrier(comm);
  EXPECT_FALSE(test::file_exists(path));
  EXPECT_FALSE(test::file_exists(path + ".partial"));
}

TEST_P(MpiOutputFile, UnfinishedOutputsAreRemovedBeforeAnAbort) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "io_abort");
  const std::string path = folder + "/aborted.h5";
  OutputFile file(comm, path, false, GetParam());
  MPI_Barrier(comm);
  if (mpi::rank(comm) == 0) EXPECT_TRUE(test::file_exists(path + ".partial"));
  MPI_Barrier(comm);
  remove_unfinished_outputs();  // what the abort path calls on the failing rank
  MPI_Barrier(comm);
  EXPECT_FALSE(test::file_exists(path + ".partial"));
  file.discard();
}

INSTANTIATE_TEST_SUITE_P(Modes, MpiOutputFile, testing::Values(Mode::automatic, Mode::gathered),
                         [](const testing::TestParamInfo<Mode>& info) {
                           return info.param == Mode::automatic ? "automatic" : "gathered";
                         });

TEST(DirectRows, AMarkIsFoundOnlyInTheFileThatHoldsIt) {
  // what a rank looks for before it writes its rows into rank 0's file itself
  const std::string path = test::scratch_folder(MPI_COMM_SELF, "direct_mark") + "/f.bin";
  test::write_text(path, std::string(64, 'x'));
  const std::uint64_t mark = 0x0123456789abcdefull;
  write_bytes_at(path, "out.h5", "/d", 24, &mark, sizeof mark);
  EXPECT_TRUE(holds_mark(path, 24, mark));
  EXPECT_FALSE(holds_mark(path, 16, mark));
  EXPECT_FALSE(holds_mark(path, 24, mark + 1));
  EXPECT_FALSE(holds_mark(path, 60, mark));  // only 4 bytes left there
  EXPECT_FALSE(holds_mark(path + ".missing", 24, mark));
  EXPECT_EQ(word_at(path, "out.h5", "/d", 24), mark);
  EXPECT_EQ(word_at(path, "out.h5", "/d", 60), 0x78787878u);  // "xxxx", then 4 bytes past the end as zeros
  EXPECT_EQ(word_at(path, "out.h5", "/d", 4096), 0u);
  try {
    word_at(path + ".missing", "out.h5", "/d", 0);
    ADD_FAILURE() << "read a file that does not exist";
  } catch (const RunError& e) {
    EXPECT_STREQ(e.what(), "out.h5: reading /d back failed (No such file or directory)");
  }
  try {
    write_bytes_at(path + ".missing", "out.h5", "/d", 0, &mark, sizeof mark);
    ADD_FAILURE() << "wrote into a file that does not exist";
  } catch (const RunError& e) {
    EXPECT_STREQ(e.what(), "out.h5: writing /d failed (No such file or directory)");
  }
}

TEST(InputFile, MissingAndWrongFilesNameThemselves) {
  try {
    InputFile("no/such.h5", "start field file (diffusion.start.file)");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "no/such.h5: cannot open the start field file (diffusion.start.file) (does it exist and is it readable?)");
  }
  test::write_text("not_hdf5.txt", "hello");
  try {
    InputFile("not_hdf5.txt", "checkpoint (--restart)");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "not_hdf5.txt: the checkpoint (--restart) is not an HDF5 file");
  }
}

}  // namespace
}  // namespace trident::io
