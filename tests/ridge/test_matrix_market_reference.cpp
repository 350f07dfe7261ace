// Matrix Market reading against an independent reference: random files with every
// spelling of entries (the fast path and the strtod/strtoll rules behind it), duplicates
// (added in file order), comments, blank lines, CRLF, and files larger than the reader's
// block, compared entry for entry with the CSR built from the text that was written.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>

#include "core/error.hpp"
#include "ridge/detail/matrix_market.hpp"
#include "support/test_support.hpp"

namespace trident::ridge {
namespace {

// The expected CSR: entries summed in the order they were written.
struct Reference {
  std::map<std::pair<int, int>, double> entries;
  void add(int i, int j, double v) {
    auto [at, fresh] = entries.emplace(std::pair<int, int>{i, j}, v);
    if (!fresh) at->second += v;
  }
  void expect_equal(const HostCsr& a, int rows) const {
    ASSERT_EQ(a.row_ptr.size(), static_cast<std::size_t>(rows) + 1);
    ASSERT_EQ(a.nonzeros(), static_cast<std::int64_t>(entries.size()));
    std::size_t k = 0;
    for (const auto& [ij, v] : entries) {
      ASSERT_GE(ij.first, 0);
      ASSERT_LT(a.row_ptr[ij.first], a.row_ptr[ij.first + 1]);
      EXPECT_EQ(a.col_ind[k], ij.second) << "entry " << k;
      EXPECT_EQ(a.values[k], v) << "entry " << k << " (" << ij.first << ", " << ij.second << ")";
      ++k;
    }
    for (int i = 0; i < rows; ++i) {
      int count = 0;
      for (auto it = entries.lower_bound({i, -1}); it != entries.end() && it->first.first == i; ++it) ++count;
      ASSERT_EQ(a.row_ptr[i + 1] - a.row_ptr[i], count) << "row " << i;
    }
  }
};

std::string value_text(double v, std::mt19937& rng) {
  static const char* formats[] = {"%.17g", "%.6f", "%.3e", "%g", "%+.5f", "%a", "%.10E", "%.0f"};
  char text[64];
  std::snprintf(text, sizeof text, formats[rng() % 8], v);
  return text;
}

std::string separator(std::mt19937& rng) {
  static const char* gaps[] = {" ", "  ", "\t", " \t "};
  return gaps[rng() % 4];
}

// A random file (rows x columns, `count` entries, some repeated up to three times) and
// its reference.
std::string random_file(int rows, int columns, int count, bool symmetric, unsigned seed, Reference& ref) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> row(1, rows), column(1, columns);
  std::uniform_real_distribution<double> value(-10, 10);
  std::vector<std::string> lines;
  int written = 0;
  while (written < count) {
    int i = row(rng), j = column(rng);
    if (symmetric && j > i) std::swap(i, j);
    const int copies = rng() % 10 == 0 ? 1 + int(rng() % 3) : 1;
    for (int c = 0; c < copies && written < count; ++c, ++written) {
      const std::string text = value_text(value(rng), rng);
      lines.push_back((rng() % 5 == 0 ? " " : "") + std::to_string(i) + separator(rng) + std::to_string(j) +
                      separator(rng) + text + (rng() % 7 == 0 ? " " : "") + (rng() % 4 == 0 ? "\r" : ""));
      const double v = std::strtod(text.c_str(), nullptr);
      ref.add(i - 1, j - 1, v);
      if (symmetric && i != j) ref.add(j - 1, i - 1, v);
    }
  }
  std::string text = std::string("%%MatrixMarket matrix coordinate real ") +
                     (symmetric ? "symmetric" : "general") + "\n% generated\n\n" + std::to_string(rows) +
                     " " + std::to_string(columns) + " " + std::to_string(count) + "\n";
  for (std::size_t k = 0; k < lines.size(); ++k) {
    text += lines[k] + "\n";
    if (k % 997 == 3) text += "% a comment among the entries\n";
    if (k % 1499 == 5) text += "  \t\n";
  }
  return text;
}

TEST(RidgeMatrixMarketReference, RandomGeneralFilesMatchTheReference) {
  for (unsigned seed : {1u, 2u, 3u}) {
    Reference ref;
    const std::string text = random_file(300, 200, 5000, false, seed, ref);
    std::istringstream in(text);
    ref.expect_equal(parse_matrix_market(in, "r.mtx"), 300);
  }
}

TEST(RidgeMatrixMarketReference, RandomSymmetricFileMatchesTheReference) {
  Reference ref;
  const std::string text = random_file(150, 150, 4000, true, 9, ref);
  std::istringstream in(text);
  ref.expect_equal(parse_matrix_market(in, "s.mtx"), 150);
}

TEST(RidgeMatrixMarketReference, FileLargerThanTheReadBlocks) {
  Reference ref;
  const std::string text = random_file(2000, 3000, 90000, false, 4, ref);  // about 2.5 MB
  ASSERT_GT(text.size(), std::size_t(2) << 20);
  const std::string path = test::scratch_folder(MPI_COMM_SELF, "ridge_mm_big") + "/big.mtx";
  test::write_text(path, text);
  ref.expect_equal(read_matrix_market(path), 2000);
}

TEST(RidgeMatrixMarketReference, IntegerAndPatternFields) {
  const HostCsr i = [] {
    std::istringstream in("%%MatrixMarket matrix coordinate integer general\n2 3 4\n1 3 -7\n2 1 +5\n1 3 2\n2 2 000012\n");
    return parse_matrix_market(in, "i.mtx");
  }();
  EXPECT_EQ(i.row_ptr, (core::UninitializedVector<int>{0, 1, 3}));
  EXPECT_EQ(i.col_ind, (core::UninitializedVector<int>{2, 0, 1}));
  EXPECT_EQ(i.values, (core::UninitializedVector<double>{-5, 5, 12}));
  const HostCsr p = [] {
    std::istringstream in("%%MatrixMarket matrix coordinate pattern general\n2 2 3\n2 2\n1\t2 \r\n2 1\n");
    return parse_matrix_market(in, "p.mtx");
  }();
  EXPECT_EQ(p.col_ind, (core::UninitializedVector<int>{1, 0, 1}));
  EXPECT_EQ(p.values, (core::UninitializedVector<double>{1, 1, 1}));
}

// The fast path hands every value it does not take to strtod's rule, which refuses out of
// range results (ERANGE) as before: an overflow, a subnormal, and an underflow to zero.
TEST(RidgeMatrixMarketReference, OutOfRangeValuesAreRefusedAsBefore) {
  const std::string banner = "%%MatrixMarket matrix coordinate real general\n1 1 1\n";
  auto error = [&](const std::string& entry) {
    return test::input_error_message([&] {
      std::istringstream in(banner + entry);
      parse_matrix_market(in, "m.mtx");
    });
  };
  EXPECT_EQ(error("1 1 1e400\n"), "m.mtx:3: expected a number value, got '1e400'");
  EXPECT_EQ(error("1 1 1e-310\n"), "m.mtx:3: expected a number value, got '1e-310'");
  EXPECT_EQ(error("1 1 1e-400\n"), "m.mtx:3: expected a number value, got '1e-400'");
  EXPECT_EQ(error("1 1 inf\n"), "m.mtx:3: expected a finite value, got 'inf'");
  EXPECT_EQ(error("1 1 NaN\n"), "m.mtx:3: expected a finite value, got 'NaN'");
  EXPECT_EQ(error("-1 1 1\n"), "m.mtx:3: entry (-1, 1) lies outside the 1 x 1 matrix (indices count from 1)");
  EXPECT_EQ(error("1 1 1 2\n"),
            "m.mtx:3: expected an entry 'ROW COLUMN VALUE' (3 fields for a real matrix), got '1 1 1 2'");
  EXPECT_EQ(error("1 1 0.0e-999\n"), "no error");  // zero written as zero is fine
}

}  // namespace
}  // namespace trident::ridge
