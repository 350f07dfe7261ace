// The HDF5 point reader: the rows asked for, exactly as stored (or as HDF5 converts
// float32), and the range messages word for word, for the first bad row of those read.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "core/error.hpp"
#include "knn/detail/points.hpp"
#include "support/h5_write.hpp"
#include "support/test_support.hpp"

namespace trident::knn {
namespace {

class KnnHdf5 : public testing::Test {
 protected:
  void SetUp() override { folder_ = test::scratch_folder(MPI_COMM_SELF, "knn_hdf5"); }
  knn::PointSource points(const std::string& name, const std::vector<double>& lat_lon) {
    knn::PointSource p;
    p.kind = knn::PointSource::Kind::hdf5;
    p.key = "knn.references";
    p.file = folder_ + "/" + name;
    p.dataset = "/points";
    test::write_h5_doubles(p.file, "/points", {lat_lon.size() / 2, 2}, lat_lon);
    return p;
  }
  std::string folder_;
};

TEST_F(KnnHdf5, ReadsTheRowsAskedForExactly) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> lat(-90, 90), lon(-180, 180);
  std::vector<double> all;
  for (int i = 0; i < 5000; ++i) {
    all.push_back(lat(rng));
    all.push_back(lon(rng));
  }
  all[0] = -90, all[1] = 180, all[2] = 90, all[3] = -180;  // the limits are inside
  const auto p = points("good.h5", all);
  EXPECT_EQ(count_points(p), 5000);
  EXPECT_EQ(read_points(p, 0, 5000), all);
  EXPECT_EQ(read_points(p, 1234, 321), std::vector<double>(all.begin() + 2 * 1234, all.begin() + 2 * 1555));
  EXPECT_EQ(read_points(p, 4999, 1), std::vector<double>(all.end() - 2, all.end()));
}

TEST_F(KnnHdf5, Float32IsConvertedByHdf5) {
  const std::vector<float> stored = {10.1f, -20.2f, 89.9f, 179.9f};
  knn::PointSource p = points("f32.h5", {0, 0});
  test::write_h5_dataset(p.file, "/points", {2, 2}, stored, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE);
  EXPECT_EQ(read_points(p, 0, 2), (std::vector<double>{10.1f, -20.2f, 89.9f, 179.9f}));
}

TEST_F(KnnHdf5, BadValuesNameDatasetRowAndColumn) {
  const std::string f = folder_ + "/";
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = HUGE_VAL;
  auto error = [&](const std::string& name, const std::vector<double>& v) {
    return test::input_error_message([&] {
      const auto p = points(name, v);
      read_points(p, 0, count_points(p));
    });
  };
  EXPECT_EQ(error("nan.h5", {1, 2, 3, 4, 5, nan}),
            f + "nan.h5: dataset /points, row 3, column 2 (longitude): expected a longitude in "
                "[-180, 180] degrees, got NaN");
  EXPECT_EQ(error("inf.h5", {1, 2, -inf, 4, nan, nan}),
            f + "inf.h5: dataset /points, row 2, column 1 (latitude): expected a latitude in "
                "[-90, 90] degrees, got -inf");
  EXPECT_EQ(error("both.h5", {1, 2, 91, 181}),
            f + "both.h5: dataset /points, row 2, column 1 (latitude): expected a latitude in "
                "[-90, 90] degrees, got 91");
  EXPECT_EQ(error("near.h5", {std::nextafter(-90.0, -91.0), 0}),
            f + "near.h5: dataset /points, row 1, column 1 (latitude): expected a latitude in "
                "[-90, 90] degrees, got -90.00000000000001");
  EXPECT_EQ(error("lon.h5", {0, 180.5}),
            f + "lon.h5: dataset /points, row 1, column 2 (longitude): expected a longitude in "
                "[-180, 180] degrees, got 180.5");
  // Only the rows read are checked: a rank reading rows 1..2 does not see row 3.
  const auto p = points("part.h5", {1, 2, 3, 4, nan, 0});
  EXPECT_EQ(read_points(p, 0, 2), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(test::input_error_message([&] { read_points(p, 1, 2); }),
            f + "part.h5: dataset /points, row 3, column 1 (latitude): expected a latitude in "
                "[-90, 90] degrees, got NaN");
}

TEST_F(KnnHdf5, ShapeOtherThanNBy2IsRefused) {
  knn::PointSource p = points("shape.h5", {0, 0});
  test::write_h5_doubles(p.file, "/points", {2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(test::input_error_message([&] { count_points(p); }),
            p.file + ": dataset /points of knn.references: expected an N x 2 array of (latitude, "
                     "longitude) in degrees, got 2 x 3");
}

}  // namespace
}  // namespace trident::knn
