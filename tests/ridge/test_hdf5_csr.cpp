// HDF5 CSR groups with the index types files use: int32 (scipy's, read straight into
// int), int64 and uint32 (read wide, so values beyond int's range are shown as written).
#include <gtest/gtest.h>

#include <hdf5.h>

#include <cstdint>
#include <random>

#include "core/error.hpp"
#include "reference.hpp"
#include "ridge/detail/problem.hpp"
#include "support/test_support.hpp"

namespace trident::ridge {
namespace {

template <class Index>
void write_group(const std::string& path, hid_t file_index_type, hid_t memory_index_type,
                 const std::vector<Index>& row_ptr, const std::vector<Index>& col_ind,
                 const std::vector<double>& values, long long rows, long long columns) {
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t g = H5Gcreate2(f, "/A", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  auto dataset = [&](const char* name, hid_t file_type, hid_t memory_type, const void* data, hsize_t n) {
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t d = H5Dcreate2(g, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (n > 0) H5Dwrite(d, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    H5Dclose(d);
    H5Sclose(space);
  };
  dataset("row_ptr", file_index_type, memory_index_type, row_ptr.data(), row_ptr.size());
  dataset("col_ind", file_index_type, memory_index_type, col_ind.data(), col_ind.size());
  dataset("values", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, values.data(), values.size());
  const long long shape[2] = {rows, columns};
  const hsize_t two = 2;
  const hid_t space = H5Screate_simple(1, &two, nullptr);
  const hid_t a = H5Acreate2(g, "shape", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_LLONG, shape);
  H5Aclose(a);
  H5Sclose(space);
  H5Gclose(g);
  H5Fclose(f);
}

TEST(RidgeHdf5Csr, Int32IndicesReadAsStored) {
  const std::string path = trident::test::scratch_folder(MPI_COMM_SELF, "ridge_csr_i32") + "/a.h5";
  const HostCsr expected = generate_matrix(57, 41, 0.2, 5);
  const std::vector<std::int32_t> row_ptr(expected.row_ptr.begin(), expected.row_ptr.end());
  const std::vector<std::int32_t> col_ind(expected.col_ind.begin(), expected.col_ind.end());
  const std::vector<double> values(expected.values.begin(), expected.values.end());
  write_group(path, H5T_STD_I32LE, H5T_NATIVE_INT32, row_ptr, col_ind, values, 57, 41);
  const HostCsr a = read_hdf5_csr(path, "/A");
  EXPECT_EQ(a.row_ptr, expected.row_ptr);
  EXPECT_EQ(a.col_ind, expected.col_ind);
  EXPECT_EQ(a.values, expected.values);
  // The same through uint32 (read wide) and int16 (narrow).
  const std::vector<std::uint32_t> row_u(expected.row_ptr.begin(), expected.row_ptr.end());
  const std::vector<std::uint32_t> col_u(expected.col_ind.begin(), expected.col_ind.end());
  write_group(path, H5T_STD_U32LE, H5T_NATIVE_UINT32, row_u, col_u, values, 57, 41);
  EXPECT_EQ(read_hdf5_csr(path, "/A").col_ind, expected.col_ind);
  const std::vector<std::int16_t> row_s(expected.row_ptr.begin(), expected.row_ptr.end());
  const std::vector<std::int16_t> col_s(expected.col_ind.begin(), expected.col_ind.end());
  write_group(path, H5T_STD_I16LE, H5T_NATIVE_INT16, row_s, col_s, values, 57, 41);
  EXPECT_EQ(read_hdf5_csr(path, "/A").row_ptr, expected.row_ptr);
}

TEST(RidgeHdf5Csr, OutOfRangeIndicesAreShownAsWritten) {
  const std::string path = trident::test::scratch_folder(MPI_COMM_SELF, "ridge_csr_range") + "/a.h5";
  write_group<std::int32_t>(path, H5T_STD_I32LE, H5T_NATIVE_INT32, {0, 2, 2, 3}, {0, 4, 1}, {1, 2, 3}, 3, 4);
  EXPECT_EQ(trident::test::input_error_message([&] { read_hdf5_csr(path, "/A"); }),
            path + ":/A: col_ind[1] = 4 lies outside 0..3");
  write_group<std::int32_t>(path, H5T_STD_I32LE, H5T_NATIVE_INT32, {0, -2, 2, 3}, {0, 3, 1}, {1, 2, 3}, 3, 4);
  EXPECT_EQ(trident::test::input_error_message([&] { read_hdf5_csr(path, "/A"); }),
            path + ":/A: row_ptr[1] = -2 lies outside 0..3");
  write_group<std::int64_t>(path, H5T_STD_I64LE, H5T_NATIVE_INT64, {0, 2, 2, 3}, {0, 3, 8589934592LL},
                            {1, 2, 3}, 3, 4);
  EXPECT_EQ(trident::test::input_error_message([&] { read_hdf5_csr(path, "/A"); }),
            path + ":/A: col_ind[2] = 8589934592 lies outside 0..3");
  write_group<std::uint32_t>(path, H5T_STD_U32LE, H5T_NATIVE_UINT32, {0, 2, 2, 3}, {0, 3000000000u, 1},
                             {1, 2, 3}, 3, 4);
  EXPECT_EQ(trident::test::input_error_message([&] { read_hdf5_csr(path, "/A"); }),
            path + ":/A: col_ind[1] = 3000000000 lies outside 0..3");
}

}  // namespace
}  // namespace trident::ridge
