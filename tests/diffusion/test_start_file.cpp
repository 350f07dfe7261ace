// The start field read from an HDF5 file: each rank's block by hyperslab, exactly as
// stored, and a non-finite cell refused as bad input naming the file, dataset and cell.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "diffusion/detail/decomposition.hpp"
#include "diffusion/detail/start_field.hpp"
#include "diffusion/detail/start_file.hpp"
#include "support/h5_write.hpp"
#include "support/test_support.hpp"

namespace trident::diffusion {
namespace {

constexpr std::int64_t kNx = 7, kNy = 5;

diffusion::StartField file_start(const std::string& path) {
  diffusion::StartField s;
  s.kind = diffusion::StartField::Kind::file;
  s.file = path;
  s.dataset = "/u";
  return s;
}

std::vector<double> field_values() {
  std::vector<double> u(kNx * kNy);
  for (std::int64_t j = 0; j < kNy; ++j)
    for (std::int64_t i = 0; i < kNx; ++i) u[j * kNx + i] = 100.0 * j + i + 0.125;
  return u;
}

TEST(StartFile, EachBlockIsItsPartOfTheDataset) {
  const std::string path = test::scratch_folder(MPI_COMM_SELF, "start_file") + "/u.h5";
  const std::vector<double> u = field_values();
  test::write_h5_doubles(path, "/u", {kNy, kNx}, u);
  const diffusion::StartField s = file_start(path);
  for (const auto& [x, y] : {std::pair<Extent, Extent>{{0, kNx}, {0, kNy}}, {{2, 3}, {1, 4}}, {{6, 1}, {4, 1}}}) {
    const std::vector<double> block = start_block(MPI_COMM_SELF, s, kNx, kNy, x, y);
    ASSERT_EQ(block.size(), static_cast<std::size_t>(x.size * y.size));
    for (std::int64_t j = 0; j < y.size; ++j)
      for (std::int64_t i = 0; i < x.size; ++i)
        EXPECT_EQ(block[j * x.size + i], u[(y.offset + j) * kNx + x.offset + i]);
  }
}

TEST(StartFile, NonFiniteCellIsBadInputNamingTheCell) {
  const std::string path = test::scratch_folder(MPI_COMM_SELF, "start_file_bad") + "/u.h5";
  std::vector<double> u = field_values();
  u[3 * kNx + 5] = std::numeric_limits<double>::quiet_NaN();  // cell (y 3, x 5)
  u[4 * kNx + 0] = -HUGE_VAL;
  test::write_h5_doubles(path, "/u", {kNy, kNx}, u);
  const diffusion::StartField s = file_start(path);
  EXPECT_EQ(test::input_error_message([&] { start_block(MPI_COMM_SELF, s, kNx, kNy, {0, kNx}, {0, kNy}); }),
            path + ": dataset '/u': cell (3, 5) is not finite (nan)");
  EXPECT_EQ(test::input_error_message([&] { start_block(MPI_COMM_SELF, s, kNx, kNy, {4, 3}, {2, 2}); }),
            path + ": dataset '/u': cell (3, 5) is not finite (nan)");
  EXPECT_EQ(test::input_error_message([&] { start_block(MPI_COMM_SELF, s, kNx, kNy, {0, 2}, {3, 2}); }),
            path + ": dataset '/u': cell (4, 0) is not finite (-inf)");
  // A block without them reads: each rank checks (and reads) only its own cells.
  EXPECT_EQ(start_block(MPI_COMM_SELF, s, kNx, kNy, {0, 5}, {0, 3}).size(), 15u);
  const std::vector<float> f32 = {1, 2, HUGE_VALF, 4};
  test::write_h5_dataset(path, "/u", {2, 2}, f32, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE);
  EXPECT_EQ(test::input_error_message([&] { start_block(MPI_COMM_SELF, s, 2, 2, {0, 2}, {0, 2}); }),
            path + ": dataset '/u': cell (1, 0) is not finite (inf)");
}

// The dataset's `units` attribute, which the output's /diffusion/field carries; "" without one.
TEST(StartFile, UnitsAreTheDatasetsUnitsAttribute) {
  const std::string path = test::scratch_folder(MPI_COMM_SELF, "start_file_units") + "/u.h5";
  test::write_h5_doubles(path, "/u", {kNy, kNx}, field_values());
  const diffusion::StartField s = file_start(path);
  EXPECT_EQ(start_file_units(s), "");
  const std::string units = "K above the ambient temperature";
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, "/u", H5P_DEFAULT);
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, units.size());
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(d, "units", type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, type, units.c_str());
  H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
  H5Dclose(d);
  H5Fclose(f);
  EXPECT_EQ(start_file_units(s), units);
}

// The block read slab by slab (one row, two rows, more rows than the block has), as
// stored or converted, equals the dataset's part; a bad cell in a later slab is named.
template <class T>
std::vector<double> block_by_slabs(const diffusion::StartField& s, Extent x, Extent y, std::size_t slab_bytes) {
  Kokkos::View<T**, Kokkos::LayoutRight> block("block", y.size, x.size);
  fill_block_from_file<T>(s, kNx, kNy, x, y, block, slab_bytes);
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), block);
  return std::vector<double>(host.data(), host.data() + host.size());
}

TEST(StartFile, SlabsOfRowsReadTheSameBlock) {
  const std::string path = test::scratch_folder(MPI_COMM_SELF, "start_file_slabs") + "/u.h5";
  std::vector<double> u = field_values();
  const diffusion::StartField s = file_start(path);
  for (const bool float32_file : {false, true}) {
    std::vector<float> u32(u.begin(), u.end());
    if (float32_file) {
      test::write_h5_dataset(path, "/u", {kNy, kNx}, u32, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE);
    } else {
      test::write_h5_doubles(path, "/u", {kNy, kNx}, u);
    }
    for (const std::size_t slab : {std::size_t(1), std::size_t(2 * 3 * sizeof(double)), std::size_t(1) << 20}) {
      for (const auto& [x, y] : {std::pair<Extent, Extent>{{0, kNx}, {0, kNy}}, {{2, 3}, {1, 4}}, {{6, 1}, {4, 1}}}) {
        const std::vector<double> as_double = block_by_slabs<double>(s, x, y, slab);
        const std::vector<double> as_float = block_by_slabs<float>(s, x, y, slab);
        for (std::int64_t j = 0; j < y.size; ++j)
          for (std::int64_t i = 0; i < x.size; ++i) {
            const std::int64_t cell = (y.offset + j) * kNx + x.offset + i;
            const double stored = float32_file ? static_cast<double>(u32[cell]) : u[cell];
            EXPECT_EQ(as_double[j * x.size + i], stored) << "slab " << slab << " cell " << j << ", " << i;
            EXPECT_EQ(as_float[j * x.size + i], static_cast<double>(static_cast<float>(stored)));
          }
      }
    }
  }
  u[4 * kNx + 6] = std::numeric_limits<double>::infinity();  // in the last one-row slab
  test::write_h5_doubles(path, "/u", {kNy, kNx}, u);
  EXPECT_EQ(test::input_error_message([&] { block_by_slabs<double>(s, {0, kNx}, {0, kNy}, 1); }),
            path + ": dataset '/u': cell (4, 6) is not finite (inf)");
}

TEST(MpiStartFile, EveryRankCountAndLayoutReadsTheFile) {
  // Uneven blocks of a float32 and a float64 file, read into float32 and float64 fields.
  const MPI_Comm comm = MPI_COMM_WORLD;
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::string folder = test::scratch_folder(comm, "start_file_ranks");
  const std::int64_t nx = 23, ny = 17;
  std::vector<double> u(nx * ny);
  for (std::int64_t k = 0; k < nx * ny; ++k) u[k] = std::sin(0.37 * double(k)) * 1e3 + 1.0 / 3;
  const std::vector<float> f(u.begin(), u.end());
  if (rank == 0) {
    test::write_h5_doubles(folder + "/f64.h5", "/u", {ny, nx}, u);
    test::write_h5_dataset(folder + "/f32.h5", "/u", {ny, nx}, f, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE);
  }
  MPI_Barrier(comm);
  for (const bool single : {false, true}) {
    diffusion::StartField s = file_start(folder + (single ? "/f32.h5" : "/f64.h5"));
    for (const std::array<std::int64_t, 2> layout : {std::array<std::int64_t, 2>{0, 0}, {size, 1}, {1, size}}) {
      const Decomposition d(comm, nx, ny, layout);
      const Extent x = d.x(), y = d.y();
      Kokkos::View<double**, Kokkos::LayoutRight> dual("dual", y.size, x.size);
      Kokkos::View<float**, Kokkos::LayoutRight> one("single", y.size, x.size);
      fill_start_block<double>(d.cart(), s, nx, ny, x, y, dual);
      fill_start_block<float>(d.cart(), s, nx, ny, x, y, one);
      auto dual_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dual);
      auto one_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), one);
      for (std::int64_t j = 0; j < y.size; ++j)
        for (std::int64_t i = 0; i < x.size; ++i) {
          const std::int64_t cell = (y.offset + j) * nx + x.offset + i;
          const double stored = single ? double(f[cell]) : u[cell];
          ASSERT_EQ(dual_host(j, i), stored) << "cell " << cell;
          ASSERT_EQ(one_host(j, i), static_cast<float>(stored)) << "cell " << cell;
        }
    }
  }
}

}  // namespace
}  // namespace trident::diffusion
