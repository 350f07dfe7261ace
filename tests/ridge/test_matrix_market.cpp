// Matrix Market reading: every field and symmetry trident takes, comments, and the exact
// message of each malformed file.
#include <gtest/gtest.h>

#include <sstream>

#include "core/error.hpp"
#include "reference.hpp"
#include "ridge/detail/matrix_market.hpp"
#include "support/test_support.hpp"

namespace trident::ridge {
namespace {

HostCsr parse(const std::string& text) {
  std::istringstream in(text);
  return parse_matrix_market(in, "m.mtx");
}

std::string error_of(const std::string& text) {
  return trident::test::input_error_message([&] { parse(text); });
}

TEST(RidgeMatrixMarket, RealGeneralWithCommentsAndBlankLines) {
  const HostCsr a = parse(
      "%%MatrixMarket matrix coordinate real general\n"
      "% a comment\n"
      "%another\n"
      "\n"
      "3 4 5\n"
      "1 1 1.5\n"
      "% a comment between entries\n"
      "3 4 -2e-3\n"
      "2 2 7\n"
      "1 3 0.25\n"
      "3 1 4\n");
  ASSERT_EQ(a.rows, 3);
  ASSERT_EQ(a.columns, 4);
  const test::Dense d = test::dense(a);
  const test::Dense expected = {{1.5, 0, 0.25, 0}, {0, 7, 0, 0}, {4, 0, 0, -2e-3}};
  EXPECT_EQ(d, expected);
  EXPECT_EQ(a.row_ptr, (core::UninitializedVector<int>{0, 2, 3, 5}));
}

TEST(RidgeMatrixMarket, IntegerPatternAndCaseInsensitiveBanner) {
  const HostCsr i = parse("%%MatrixMarket MATRIX Coordinate INTEGER General\n2 2 2\n1 2 -3\n2 1 8\n");
  EXPECT_EQ(test::dense(i), (test::Dense{{0, -3}, {8, 0}}));
  const HostCsr p = parse("%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 1\n2 3\n1 3\n");
  EXPECT_EQ(test::dense(p), (test::Dense{{1, 0, 1}, {0, 0, 1}}));
}

TEST(RidgeMatrixMarket, SymmetricMirrorsTheLowerTriangle) {
  const HostCsr s = parse(
      "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 2\n2 1 -1\n3 2 5\n3 3 1\n");
  EXPECT_EQ(test::dense(s), (test::Dense{{2, -1, 0}, {-1, 0, 5}, {0, 5, 1}}));
  const HostCsr p = parse("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n2 1\n2 2\n");
  EXPECT_EQ(test::dense(p), (test::Dense{{0, 1}, {1, 1}}));
  const HostCsr k = parse("%%MatrixMarket matrix coordinate integer symmetric\n2 2 1\n2 1 4\n");
  EXPECT_EQ(test::dense(k), (test::Dense{{0, 4}, {4, 0}}));
}

TEST(RidgeMatrixMarket, DuplicateEntriesAdd) {
  const HostCsr a = parse("%%MatrixMarket matrix coordinate real general\n1 2 3\n1 2 1\n1 2 2.5\n1 1 1\n");
  EXPECT_EQ(test::dense(a), (test::Dense{{1, 3.5}}));
  EXPECT_EQ(a.nonzeros(), 2);
}

TEST(RidgeMatrixMarket, EmptyMatrixIsAllowed) {
  const HostCsr a = parse("%%MatrixMarket matrix coordinate real general\n2 2 0\n");
  EXPECT_EQ(a.nonzeros(), 0);
  EXPECT_EQ(a.row_ptr, (core::UninitializedVector<int>{0, 0, 0}));
}

TEST(RidgeMatrixMarket, MalformedFilesNameTheLineAndTheProblem) {
  const std::string banner = "%%MatrixMarket matrix coordinate real general\n";
  EXPECT_EQ(error_of(""),
            "m.mtx:1: the file is empty; expected a Matrix Market banner '%%MatrixMarket matrix "
            "coordinate real general'");
  EXPECT_EQ(error_of("3 3 1\n1 1 1\n"),
            "m.mtx:1: expected the Matrix Market banner '%%MatrixMarket matrix coordinate real "
            "general', got '3 3 1'");
  EXPECT_EQ(error_of("%%MatrixMarket matrix coordinate real\n"),
            "m.mtx:1: expected the banner to name object, format, field and symmetry "
            "(%%MatrixMarket matrix coordinate real general), got 3 words");
  EXPECT_EQ(error_of("%%MatrixMarket vector coordinate real general\n"),
            "m.mtx:1: expected the object 'matrix' in the banner, got 'vector'");
  EXPECT_EQ(error_of("%%MatrixMarket matrix array real general\n"),
            "m.mtx:1: expected the format 'coordinate' (sparse) in the banner, got 'array'");
  EXPECT_EQ(error_of("%%MatrixMarket matrix coordinate complex general\n"),
            "m.mtx:1: expected the field real, integer or pattern in the banner, got 'complex'");
  EXPECT_EQ(error_of("%%MatrixMarket matrix coordinate real skew-symmetric\n"),
            "m.mtx:1: expected the symmetry general or symmetric in the banner, got 'skew-symmetric'");
  EXPECT_EQ(error_of(banner + "% only comments\n"),
            "m.mtx:3: the file ends before the size line 'ROWS COLUMNS ENTRIES'");
  EXPECT_EQ(error_of(banner + "3 3\n"),
            "m.mtx:2: expected the size line 'ROWS COLUMNS ENTRIES' (three integers), got '3 3'");
  EXPECT_EQ(error_of(banner + "3 x 2\n"),
            "m.mtx:2: expected the size line 'ROWS COLUMNS ENTRIES' (three integers), got '3 x 2'");
  EXPECT_EQ(error_of(banner + "0 3 2\n"),
            "m.mtx:2: expected at least 1 row, 1 column and 0 entries, got 0 x 3 with 2 entries");
  EXPECT_EQ(error_of("%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n"),
            "m.mtx:2: a symmetric matrix must be square, got 2 x 3");
  EXPECT_EQ(error_of(banner + "% c\n2 2 3\n1 1 1\n2 2 2\n"),
            "m.mtx:6: the file ends after 2 of the 3 entries the size line announced (is it "
            "truncated?)");
  EXPECT_EQ(error_of(banner + "2 2 1\n1 1 1\n2 2 2\n"),
            "m.mtx:4: expected 1 entries (the size line says so), found more: '2 2 2'");
  EXPECT_EQ(error_of(banner + "2 2 2\n1 1 1\n2 2\n"),
            "m.mtx:4: expected an entry 'ROW COLUMN VALUE' (3 fields for a real matrix), got '2 2'");
  EXPECT_EQ(error_of("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n"),
            "m.mtx:3: expected an entry 'ROW COLUMN' (2 fields for a pattern matrix), got '1 1 1'");
  EXPECT_EQ(error_of(banner + "2 2 1\n1.5 1 1\n"),
            "m.mtx:3: expected integer row and column indices, got '1.5 1 1'");
  EXPECT_EQ(error_of(banner + "2 2 2\n1 1 1\n3 1 1\n"),
            "m.mtx:4: entry (3, 1) lies outside the 2 x 2 matrix (indices count from 1)");
  EXPECT_EQ(error_of(banner + "2 2 1\n0 1 1\n"),
            "m.mtx:3: entry (0, 1) lies outside the 2 x 2 matrix (indices count from 1)");
  EXPECT_EQ(error_of(banner + "2 2 1\n1 1 abc\n"), "m.mtx:3: expected a number value, got 'abc'");
  EXPECT_EQ(error_of(banner + "2 2 1\n1 1 nan\n"), "m.mtx:3: expected a finite value, got 'nan'");
  EXPECT_EQ(error_of(banner + "2 2 1\n1 1 -inf\n"), "m.mtx:3: expected a finite value, got '-inf'");
  EXPECT_EQ(error_of("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 2.5\n"),
            "m.mtx:3: expected an integer value, got '2.5'");
  EXPECT_EQ(error_of("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n"),
            "m.mtx:3: entry (1, 2) lies above the diagonal; a symmetric file stores the lower "
            "triangle only");
}

TEST(RidgeMatrixMarket, MissingFileIsNamed) {
  try {
    read_matrix_market("no/such/file.mtx");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "no/such/file.mtx: cannot open the Matrix Market file (does it exist and is it "
                 "readable?)");
  }
}

TEST(RidgeMatrixMarket, ReadsAFileFromDisk) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_SELF, "ridge_mm");
  trident::test::write_text(folder + "/a.mtx",
                            "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 3\n2 1 -1\n");
  const HostCsr a = read_matrix_market(folder + "/a.mtx");
  EXPECT_EQ(test::dense(a), (test::Dense{{3, 0}, {-1, 0}}));
}

}  // namespace
}  // namespace trident::ridge
