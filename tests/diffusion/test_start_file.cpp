// The start field read from an HDF5 file: each rank's block by hyperslab, exactly as
// stored, and a non-finite cell refused as bad input naming the file, dataset and cell.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "diffusion/start_field.hpp"
#include "support/h5_write.hpp"
#include "support/test_support.hpp"

namespace trident::diffusion {
namespace {

constexpr std::int64_t kNx = 7, kNy = 5;

deck::StartField file_start(const std::string& path) {
  deck::StartField s;
  s.kind = "file";
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
  const deck::StartField s = file_start(path);
  for (const auto& [x, y] : {std::pair<Extent, Extent>{{0, kNx}, {0, kNy}}, {{2, 3}, {1, 4}}, {{6, 1}, {4, 1}}}) {
    const std::vector<double> block = start_block(s, kNx, kNy, x, y);
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
  const deck::StartField s = file_start(path);
  EXPECT_EQ(test::input_error_message([&] { start_block(s, kNx, kNy, {0, kNx}, {0, kNy}); }),
            path + ": dataset '/u': cell (3, 5) is not finite (nan)");
  EXPECT_EQ(test::input_error_message([&] { start_block(s, kNx, kNy, {4, 3}, {2, 2}); }),
            path + ": dataset '/u': cell (3, 5) is not finite (nan)");
  EXPECT_EQ(test::input_error_message([&] { start_block(s, kNx, kNy, {0, 2}, {3, 2}); }),
            path + ": dataset '/u': cell (4, 0) is not finite (-inf)");
  // A block without them reads: each rank checks (and reads) only its own cells.
  EXPECT_EQ(start_block(s, kNx, kNy, {0, 5}, {0, 3}).size(), 15u);
  const std::vector<float> f32 = {1, 2, HUGE_VALF, 4};
  test::write_h5_dataset(path, "/u", {2, 2}, f32, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE);
  EXPECT_EQ(test::input_error_message([&] { start_block(s, 2, 2, {0, 2}, {0, 2}); }),
            path + ": dataset '/u': cell (1, 0) is not finite (inf)");
}

}  // namespace
}  // namespace trident::diffusion
