// Problem sources: the generator, the right-hand side, the transpose, HDF5 CSR groups and
// the errors of bad data.
#include <gtest/gtest.h>

#include <hdf5.h>
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/error.hpp"
#include "core/host_threads.hpp"
#include "reference.hpp"
#include "ridge/detail/problem.hpp"
#include "support/test_support.hpp"

namespace trident::ridge {
namespace {

TEST(RidgeProblem, GeneratorHasTheDensityDistinctSortedColumnsAndUniformValues) {
  const HostCsr a = generate_matrix(300, 200, 0.1, 7);
  EXPECT_EQ(a.nonzeros(), 6000);
  validate(a, "generated");
  double sum = 0, lowest = 1, highest = 0;
  for (int i = 0; i < a.rows; ++i) {
    const int k = a.row_ptr[i + 1] - a.row_ptr[i];
    EXPECT_EQ(k, 20);  // spread evenly: 6000 / 300
    for (int p = a.row_ptr[i] + 1; p < a.row_ptr[i + 1]; ++p) EXPECT_LT(a.col_ind[p - 1], a.col_ind[p]);
  }
  std::vector<int> per_column(200, 0);
  for (std::size_t k = 0; k < a.values.size(); ++k) {
    sum += a.values[k];
    lowest = std::min(lowest, a.values[k]);
    highest = std::max(highest, a.values[k]);
    ++per_column[a.col_ind[k]];
  }
  EXPECT_GE(lowest, 0.0);
  EXPECT_LT(highest, 1.0);
  EXPECT_NEAR(sum / 6000, 0.5, 0.02);  // uniform [0, 1): mean 1/2, sd of the mean 0.0037
  // Columns uniform: each column gets 30 on average (binomial sd ~5.2).
  EXPECT_GT(*std::min_element(per_column.begin(), per_column.end()), 8);
  EXPECT_LT(*std::max_element(per_column.begin(), per_column.end()), 55);
  // Deterministic for a seed, different for another.
  const HostCsr again = generate_matrix(300, 200, 0.1, 7), other = generate_matrix(300, 200, 0.1, 8);
  EXPECT_EQ(a.col_ind, again.col_ind);
  EXPECT_EQ(a.values, again.values);
  EXPECT_NE(a.col_ind, other.col_ind);
}

TEST(RidgeProblem, GeneratorHandlesFullAndUnevenRows) {
  const HostCsr full = generate_matrix(5, 7, 1.0, 1);
  EXPECT_EQ(full.nonzeros(), 35);
  for (int i = 0; i < 5; ++i)
    for (int k = 0; k < 7; ++k) EXPECT_EQ(full.col_ind[i * 7 + k], k);
  const HostCsr sparse = generate_matrix(10, 3, 0.1, 1);  // 3 entries over 10 rows
  EXPECT_EQ(sparse.nonzeros(), 3);
  validate(sparse, "generated");
}

// The generators make their rows on every CPU the process may use, a range of rows a
// thread: the matrix and the right-hand side must not depend on the thread count. Made again with the process held
// to one CPU (one thread), both ways of reading a row's columns out: the bitmap (rows
// filling a fair part of it) and sorting the drawn columns (a few among many).
TEST(RidgeProblem, GeneratorGivesTheSameProblemOnOneThreadAsOnAll) {
  cpu_set_t all;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  if (CPU_COUNT(&all) < 2) GTEST_SKIP() << "one CPU: the generator runs on one thread either way";
  const auto make = [] {
    return std::vector<HostCsr>{generate_matrix(4000, 300, 0.2, 3),        // 60 a row over 5 words
                                generate_matrix(4000, 100000, 0.0003, 4),  // 30 a row over 1563 words
                                generate_matrix_rows(4000, 100000, 0.0003, 4, 700, 2900)};
  };
  // the right-hand side too (pairs of draws, a range of pairs a thread), from an odd row
  const auto make_rhs = [] { return generate_rhs_rows(12345, 200001, 3.0, 1.0, 2); };
  const std::vector<double> rhs_on_all = make_rhs();
  const std::vector<HostCsr> on_all = make();
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &all)) {
      CPU_SET(c, &one);
      break;
    }
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  ASSERT_EQ(core::usable_cpus(), 1);
  const std::vector<HostCsr> on_one = make();
  const std::vector<double> rhs_on_one = make_rhs();
  ASSERT_EQ(sched_setaffinity(0, sizeof all, &all), 0);
  EXPECT_EQ(rhs_on_all, rhs_on_one);
  for (std::size_t m = 0; m < on_all.size(); ++m) {
    SCOPED_TRACE("matrix " + std::to_string(m));
    validate(on_all[m], "generated");
    EXPECT_EQ(on_all[m].row_ptr, on_one[m].row_ptr);
    EXPECT_EQ(on_all[m].col_ind, on_one[m].col_ind);
    EXPECT_EQ(on_all[m].values, on_one[m].values);
  }
  // rows 700 to 3599 made alone are those rows of the whole matrix
  const HostCsr& whole = on_all[1];
  const HostCsr& part = on_all[2];
  const int base = whole.row_ptr[700];
  ASSERT_EQ(part.nonzeros(), whole.row_ptr[3600] - base);
  for (int i = 0; i <= 2900; ++i) EXPECT_EQ(part.row_ptr[i], whole.row_ptr[700 + i] - base);
  EXPECT_TRUE(std::equal(part.col_ind.begin(), part.col_ind.end(), whole.col_ind.begin() + base));
  EXPECT_TRUE(std::equal(part.values.begin(), part.values.end(), whole.values.begin() + base));
}

TEST(RidgeProblem, RightHandSideIsNormal) {
  const std::vector<double> b = generate_rhs(20001, 3.0, 2.0, 2);
  ASSERT_EQ(b.size(), 20001u);
  double mean = 0, var = 0;
  for (double v : b) mean += v;
  mean /= double(b.size());
  for (double v : b) var += (v - mean) * (v - mean);
  var /= double(b.size() - 1);
  EXPECT_NEAR(mean, 3.0, 0.05);  // sd of the mean 0.014
  EXPECT_NEAR(std::sqrt(var), 2.0, 0.05);
  EXPECT_EQ(b, generate_rhs(20001, 3.0, 2.0, 2));
}

TEST(RidgeProblem, TransposeIsTheTranspose) {
  const HostCsr a = generate_matrix(13, 29, 0.2, 3);
  const HostCsr t = transpose(a);
  validate(t, "transpose");
  const test::Dense da = test::dense(a), dt = test::dense(t);
  ASSERT_EQ(dt.size(), 29u);
  for (int i = 0; i < 13; ++i)
    for (int j = 0; j < 29; ++j) EXPECT_EQ(da[i][j], dt[j][i]);
  for (int i = 0; i < t.rows; ++i)
    for (int p = t.row_ptr[i] + 1; p < t.row_ptr[i + 1]; ++p) EXPECT_LT(t.col_ind[p - 1], t.col_ind[p]);
}

// `a`'s transpose is the one a plain loop makes by sorting the entries by (column, row).
void expect_serial_transpose(const HostCsr& a) {
  std::vector<Triplet> by_column;
  for (int i = 0; i < a.rows; ++i)
    for (int k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) by_column.push_back({a.col_ind[k], i, a.values[k]});
  std::stable_sort(by_column.begin(), by_column.end(),
                   [](const Triplet& x, const Triplet& y) { return x.row < y.row; });  // rows of A^T
  const HostCsr t = transpose(a);
  ASSERT_EQ(t.rows, a.columns);
  ASSERT_EQ(t.columns, a.rows);
  ASSERT_EQ(t.nonzeros(), a.nonzeros());
  core::UninitializedVector<int> starts(static_cast<std::size_t>(a.columns) + 1, 0);
  for (const Triplet& e : by_column) ++starts[static_cast<std::size_t>(e.row) + 1];
  for (int j = 0; j < a.columns; ++j) starts[j + 1] += starts[j];
  EXPECT_EQ(t.row_ptr, starts);
  for (std::size_t k = 0; k < by_column.size(); ++k) {
    ASSERT_EQ(t.col_ind[k], by_column[k].column) << k;
    ASSERT_EQ(t.values[k], by_column[k].value) << k;
  }
}

// Large enough that the passes over A split its rows among the CPUs (2^15 entries a part;
// on CI's two cores two parts), with four dense columns, one of them the last.
TEST(RidgeProblem, TransposeOnSeveralCpusIsTheSerialTranspose) {
  const int rows = 30000, columns = 5000;
  HostCsr a = generate_matrix(rows, columns, 0.002, 8);
  std::vector<Triplet> entries;
  for (int i = 0; i < rows; ++i) {
    for (int k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) entries.push_back({i, a.col_ind[k], a.values[k]});
    for (const int dense : {0, 1, 2, columns - 1}) entries.push_back({i, dense, 0.5 + i});
  }
  a = csr_from_triplets(rows, columns, entries);  // (duplicates add)
  ASSERT_GT(a.nonzeros(), 4 << 15);
  expect_serial_transpose(a);
  EXPECT_EQ(column_entries(a)[columns - 1], rows);
}

// Wide and short: more rows of A^T than entries in most of them, each part's entries
// spread over all of them, on several CPUs: still the plain loop's arrays.
TEST(RidgeProblem, WideTransposeOnSeveralCpusIsTheSerialTranspose) {
  const int rows = 3000, columns = 70000;
  const HostCsr a = generate_matrix(rows, columns, 0.001, 9);  // 70 entries a row
  ASSERT_GT(a.nonzeros(), 4 << 15);
  expect_serial_transpose(a);
}

// Large enough that the checks run by ranges of rows on CI's two cores: the error is the
// lowest bad row's, as one loop would report it.
TEST(RidgeProblem, ValidationOnSeveralCpusReportsTheFirstBadRow) {
  const HostCsr good = generate_matrix(20000, 50, 0.1, 5);
  validate(good, "m");
  HostCsr a = good;
  a.values[static_cast<std::size_t>(a.row_ptr[15000])] = std::nan("");
  EXPECT_EQ(trident::test::input_error_message([&] { validate(a, "m"); }),
            "m: row 15001, column " + std::to_string(a.col_ind[a.row_ptr[15000]]) + " holds a non-finite value (nan)");
  a.col_ind[static_cast<std::size_t>(a.row_ptr[12000])] = 50;
  EXPECT_EQ(trident::test::input_error_message([&] { validate(a, "m"); }),
            "m: row 12001 has column index 50 outside 0..49 (0-based)");
  a.col_ind[static_cast<std::size_t>(a.row_ptr[3])] = -1;
  EXPECT_EQ(trident::test::input_error_message([&] { validate(a, "m"); }),
            "m: row 4 has column index -1 outside 0..49 (0-based)");
}

// Rows go to parts by their entries (a dense row may fill a part alone); small matrices,
// and counters that would pass 256 MiB, take fewer parts.
TEST(RidgeProblem, RowBoundsShareTheEntries) {
  HostCsr a;
  a.rows = 8;
  a.columns = 1;
  const std::int64_t unit = std::int64_t(1) << 15;
  // rows of 1, 1, 8, 1, 1, 1, 1, 1 units: 15 units in all
  const std::vector<std::int64_t> units = {1, 1, 8, 1, 1, 1, 1, 1};
  a.row_ptr.assign(1, 0);
  for (const std::int64_t u : units) a.row_ptr.push_back(a.row_ptr.back() + static_cast<int>(u * unit));
  a.col_ind.assign(static_cast<std::size_t>(a.row_ptr.back()), 0);
  a.values.assign(a.col_ind.size(), 1.0);
  const int cpus = core::host_threads();
  const std::vector<int> bounds = row_bounds(a, 1);
  ASSERT_EQ(static_cast<int>(bounds.size()) - 1, std::min(cpus, 8));
  EXPECT_EQ(bounds.front(), 0);
  EXPECT_EQ(bounds.back(), 8);
  EXPECT_TRUE(std::is_sorted(bounds.begin(), bounds.end()));
  // part p starts at the first row whose offset reaches p / parts of the entries (a scan)
  const int parts = static_cast<int>(bounds.size()) - 1;
  for (int p = 1; p < parts; ++p) {
    int row = 0;
    while (std::int64_t(a.row_ptr[row]) * parts < std::int64_t(a.row_ptr.back()) * p) ++row;
    EXPECT_EQ(bounds[p], row) << "part " << p << " of " << parts;
  }
  if (parts == 2) EXPECT_EQ(bounds, (std::vector<int>{0, 3, 8}));  // the dense row ends the first part
  // 2^25 counters a part reach 256 MiB: one part
  EXPECT_EQ(row_bounds(a, std::int64_t(1) << 25), (std::vector<int>{0, 8}));
  // fewer than 2^15 entries a part: one part
  HostCsr small = generate_matrix(100, 50, 0.1, 1);
  EXPECT_EQ(row_bounds(small, 50), (std::vector<int>{0, 100}));
}

// Writes a CSR group with raw HDF5 calls (independent of trident's readers).
void write_csr(const std::string& path, const std::vector<long long>& row_ptr,
               const std::vector<long long>& col_ind, const std::vector<double>& values,
               const std::vector<long long>& shape, bool shape_as_dataset,
               const std::vector<double>& b) {
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t g = H5Gcreate2(f, "/A", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  auto dataset = [&](hid_t where, const char* name, hid_t type, const void* data, hsize_t n) {
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t d = H5Dcreate2(where, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (n > 0) H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    H5Dclose(d);
    H5Sclose(space);
  };
  dataset(g, "row_ptr", H5T_NATIVE_LLONG, row_ptr.data(), row_ptr.size());
  dataset(g, "col_ind", H5T_NATIVE_LLONG, col_ind.data(), col_ind.size());
  dataset(g, "values", H5T_NATIVE_DOUBLE, values.data(), values.size());
  if (shape_as_dataset) {
    dataset(g, "shape", H5T_NATIVE_LLONG, shape.data(), shape.size());
  } else {
    const hsize_t n = shape.size();
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t a = H5Acreate2(g, "shape", H5T_NATIVE_LLONG, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_LLONG, shape.data());
    H5Aclose(a);
    H5Sclose(space);
  }
  if (!b.empty()) dataset(f, "b", H5T_NATIVE_DOUBLE, b.data(), b.size());
  H5Gclose(g);
  H5Fclose(f);
}

TEST(RidgeProblem, ReadsHdf5CsrWithShapeAttributeOrDataset) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_SELF, "ridge_h5");
  const std::string path = folder + "/a.h5";
  for (bool as_dataset : {false, true}) {
    write_csr(path, {0, 2, 2, 3}, {0, 3, 1}, {1.5, -2, 4}, {3, 4}, as_dataset, {1, 2, 3});
    const HostCsr a = read_hdf5_csr(path, "/A");
    EXPECT_EQ(test::dense(a), (test::Dense{{1.5, 0, 0, -2}, {0, 0, 0, 0}, {0, 4, 0, 0}}));
    EXPECT_EQ(read_hdf5_vector(path, "/b"), (std::vector<double>{1, 2, 3}));
  }
}

// A column array long enough to be checked by ranges on CI's two cores: the first bad
// entry is named, as one loop would.
TEST(RidgeProblem, FirstBadColumnOfALongArrayIsNamed) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_SELF, "ridge_h5_long");
  const std::string path = folder + "/a.h5";
  const long long n = 200000;
  std::vector<long long> col_ind(static_cast<std::size_t>(n));
  for (long long k = 0; k < n; ++k) col_ind[k] = k % 4;
  col_ind[150000] = 7;
  col_ind[70001] = 9;
  write_csr(path, {0, n}, col_ind, std::vector<double>(static_cast<std::size_t>(n), 1.0), {1, 4}, false, {});
  EXPECT_EQ(trident::test::input_error_message([&] { read_hdf5_csr(path, "/A"); }),
            path + ":/A: col_ind[70001] = 9 lies outside 0..3");
}

TEST(RidgeProblem, BadHdf5DataIsNamed) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_SELF, "ridge_h5_bad");
  const std::string path = folder + "/a.h5";
  write_csr(path, {0, 2, 2, 3}, {0, 4, 1}, {1.5, -2, 4}, {3, 4}, false, {});
  EXPECT_EQ(trident::test::input_error_message([&] { read_hdf5_csr(path, "/A"); }),
            path + ":/A: col_ind[1] = 4 lies outside 0..3");
  write_csr(path, {0, 2, 2, 3}, {0, 3, 1}, {1.5, NAN, 4}, {3, 4}, false, {1, NAN, 2});
  EXPECT_EQ(trident::test::input_error_message([&] { read_hdf5_csr(path, "/A"); }),
            path + ":/A: row 1, column 3 holds a non-finite value (nan)");
  EXPECT_EQ(trident::test::input_error_message([&] { read_hdf5_vector(path, "/b"); }),
            path + ":/b: entry 1 (0-based) is not finite (nan)");
  write_csr(path, {0, 2, 3}, {0, 3, 1}, {1.5, 2, 4}, {3, 4}, false, {});
  EXPECT_EQ(trident::test::input_error_message([&] { read_hdf5_csr(path, "/A"); }),
            path + ":/A: expected 4 row offsets (rows + 1), got 3");
  write_csr(path, {0, 2, 1, 3}, {0, 3, 1}, {1.5, 2, 4}, {3, 4}, false, {});
  EXPECT_EQ(trident::test::input_error_message([&] { read_hdf5_csr(path, "/A"); }), path + ":/A: row offsets decrease at row 2");
  write_csr(path, {0, 2, 2, 3}, {0, 3, 1}, {1.5, 2}, {3, 4}, false, {});
  EXPECT_EQ(trident::test::input_error_message([&] { read_hdf5_csr(path, "/A"); }),
            path + ":/A: expected as many column indices as values, got 3 and 2");
  write_csr(path, {0, 2, 2, 3}, {0, 3, 1}, {1.5, 2, 4}, {3}, false, {});
  EXPECT_EQ(trident::test::input_error_message([&] { read_hdf5_csr(path, "/A"); }),
            path + ":/A: expected the shape [rows, columns] as an attribute 'shape' of the group "
                   "or a dataset 'shape' in it");
  EXPECT_EQ(trident::test::input_error_message([&] { read_hdf5_csr(path, "/B"); }), path + ": no CSR group /B");
  EXPECT_EQ(trident::test::input_error_message([&] { read_hdf5_csr(folder + "/none.h5", "/A"); }),
            folder + "/none.h5: cannot open the matrix file of ridge.matrix (does it exist and is it readable?)");
}

TEST(RidgeProblem, RightHandSideOfTheWrongLengthIsNamed) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_SELF, "ridge_rhs");
  const std::string path = folder + "/a.h5";
  write_csr(path, {0, 2, 2, 3}, {0, 3, 1}, {1.5, 2, 4}, {3, 4}, false, {1, 2});
  ridge::RidgeSettings s;
  s.matrix.kind = ridge::RidgeMatrixSettings::Kind::hdf5;
  s.matrix.file = path;
  s.matrix.group = "/A";
  s.rhs.kind = ridge::RidgeRhsSettings::Kind::hdf5;
  s.rhs.file = path;
  s.rhs.dataset = "/b";
  s.rhs.where = "d.yaml:4:8: ridge.rhs";
  EXPECT_EQ(trident::test::input_error_message([&] { load_problem(s); }),
            path + ":/b: the right-hand side has 2 entries but the matrix has 3 rows "
                   "(d.yaml:4:8: ridge.rhs)");
}

}  // namespace
}  // namespace trident::ridge
