// Point ids read by the real CSV and HDF5 readers: integers when a CSV column holds only
// plain integers, texts as given otherwise (quotes, commas, UTF-8, leading zeros), HDF5
// integers of any width and texts of fixed or variable length; the messages for a missing
// column or dataset, a length that differs, an empty id, an id the output reserves.
#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

#include "core/error.hpp"
#include "knn/detail/points.hpp"
#include "support/h5_write.hpp"
#include "support/test_support.hpp"

namespace trident::knn {
namespace {

std::vector<std::string> texts(const PointIds& ids) {
  std::vector<std::string> out;
  for (std::int64_t i = 0; i < ids.size(); ++i) out.emplace_back(ids.text(i));
  return out;
}

// The ids of points first .. first+count-1, settled as a one-rank run settles them.
PointIds read_ids(const knn::PointSource& p, std::int64_t first, std::int64_t count) {
  PointIds ids;
  read_points(p, first, count, &ids);
  settle_ids(ids, p, first, MPI_COMM_SELF);
  return ids;
}

TEST(KnnPointIds, PlainIntegersAreThoseThatPrintBackTheSame) {
  std::int64_t v = 0;
  EXPECT_TRUE(plain_integer("0", v) && v == 0);
  EXPECT_TRUE(plain_integer("-17", v) && v == -17);
  EXPECT_TRUE(plain_integer("9223372036854775807", v) && v == std::numeric_limits<std::int64_t>::max());
  EXPECT_TRUE(plain_integer("-9223372036854775808", v) && v == std::numeric_limits<std::int64_t>::min());
  for (const char* text : {"", "-", "007", "-0", "+7", "7.0", "1e3", " 7", "9223372036854775808", "12a", "0x10"})
    EXPECT_FALSE(plain_integer(text, v)) << text;
}

class KnnIdFiles : public testing::Test {
 protected:
  void SetUp() override { folder_ = test::scratch_folder(MPI_COMM_SELF, "knn_point_ids"); }
  knn::PointSource csv(const std::string& name, const std::string& text, const std::string& id) {
    knn::PointSource p;
    p.kind = knn::PointSource::Kind::csv;
    p.key = "knn.references";
    p.file = folder_ + "/" + name;
    p.latitude = "lat";
    p.longitude = "lon";
    p.ids = id;
    test::write_text(p.file, text);
    return p;
  }
  // An HDF5 point file of `n` points at (i, i) with the ids dataset "/ids" written by `write`.
  template <class Write>
  knn::PointSource hdf5(const std::string& name, std::size_t n, Write write) {
    knn::PointSource p;
    p.kind = knn::PointSource::Kind::hdf5;
    p.key = "knn.observations";
    p.file = folder_ + "/" + name;
    p.dataset = "/points";
    p.ids = "/ids";
    std::vector<double> points;
    for (std::size_t i = 0; i < n; ++i) points.insert(points.end(), {double(i), double(i)});
    const hid_t f = H5Fcreate(p.file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t dims[2] = {n, 2};
    const hid_t space = H5Screate_simple(2, dims, nullptr);
    const hid_t d = H5Dcreate2(f, "/points", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, points.data());
    H5Dclose(d);
    H5Sclose(space);
    write(f);
    H5Fclose(f);
    return p;
  }
  std::string folder_;
};

// Writes `data` as the 1-D dataset /ids of `file_type` (a string type for texts).
template <class T>
void write_ids(hid_t file, hid_t file_type, hid_t memory_type, const std::vector<T>& data, hsize_t n) {
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  const hid_t d = H5Dcreate2(file, "/ids", file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data());
  H5Dclose(d);
  H5Sclose(space);
}

TEST_F(KnnIdFiles, CsvIntegerColumnsBecomeInt64QuotedOrNot) {
  const auto p = csv("ints.csv",
                     "lat,code,lon\n"
                     "1,0,2\n"
                     "3,\"-42\",4\n"
                     "5, 9223372036854775807 ,6\n"
                     "7,-9223372036854775808,8\n",
                     "code");
  ASSERT_EQ(count_points(p), 4);
  const PointIds ids = read_ids(p, 0, 4);
  ASSERT_EQ(ids.kind(), PointIds::Kind::integer);
  EXPECT_EQ(ids.integers(), (std::vector<std::int64_t>{0, -42, std::numeric_limits<std::int64_t>::max(),
                                                       std::numeric_limits<std::int64_t>::min()}));
  EXPECT_EQ(read_ids(p, 2, 1).integers(), (std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::max()}));
}

TEST_F(KnnIdFiles, CsvTextsAreKeptAsGiven) {
  // one value that is no plain integer ("007") keeps the whole column as texts
  const auto p = csv("texts.csv",
                     "\"station id\",lat,lon\n"
                     "12,1,2\n"
                     "007,3,4\n"
                     "\"Washington, Dulles \"\"Intl\"\"\",5,6\n"
                     " Utqiaġvik (Barrow) ,7,8\n",
                     "station id");
  ASSERT_EQ(count_points(p), 4);
  const PointIds ids = read_ids(p, 0, 4);
  ASSERT_EQ(ids.kind(), PointIds::Kind::text);
  EXPECT_EQ(texts(ids), (std::vector<std::string>{"12", "007", "Washington, Dulles \"Intl\"", "Utqiaġvik (Barrow)"}));
  EXPECT_EQ(texts(read_ids(p, 1, 2)), (std::vector<std::string>{"007", "Washington, Dulles \"Intl\""}));
}

TEST_F(KnnIdFiles, CsvMistakesNameTheKeyTheFileAndTheLine) {
  const std::string f = folder_ + "/";
  const auto missing = csv("missing.csv", "lat,lon,name\n1,2,a\n", "code");
  EXPECT_EQ(test::input_error_message([&] { count_points(missing); }),
            f + "missing.csv: the header has no column 'code' (knn.references.csv.id); its columns are 'lat', "
                "'lon', 'name'");
  const auto empty = csv("empty.csv", "lat,lon,name\n1,2,a\n\n3,4,  \n", "name");
  EXPECT_EQ(test::input_error_message([&] { count_points(empty); }),
            f + "empty.csv:4:5: field 3 (column 'name') is empty; knn.references.csv.id needs an id on every row");
  // the reader refuses it too, for a caller that reads without counting
  EXPECT_EQ(test::input_error_message([&] { read_ids(empty, 1, 1); }),
            f + "empty.csv:4:5: field 3 (column 'name') is empty; knn.references.csv.id needs an id on every row");
  const auto fill = csv("fill.csv", "lat,lon,id\n1,2,5\n3,4,-9223372036854775806\n", "id");
  std::string message = "no error";
  try {
    read_ids(fill, 0, 2);
  } catch (const std::exception& e) {
    message = e.what();
  }
  EXPECT_EQ(message, f + "fill.csv: row 2 of knn.references.csv.id: the id -9223372036854775806 is the value the "
                         "output keeps for unfinished rows; give the point another id");
}

TEST_F(KnnIdFiles, Hdf5IntegersOfAnyWidthAreInt64) {
  const std::vector<std::int32_t> stored{-3, 0, 7, 2147483647};
  const auto p = hdf5("int32.h5", 4, [&](hid_t f) { write_ids(f, H5T_STD_I32LE, H5T_NATIVE_INT32, stored, 4); });
  ASSERT_EQ(count_points(p), 4);
  EXPECT_EQ(read_ids(p, 0, 4).integers(), (std::vector<std::int64_t>{-3, 0, 7, 2147483647}));
  EXPECT_EQ(read_ids(p, 1, 2).integers(), (std::vector<std::int64_t>{0, 7}));
  EXPECT_EQ(read_ids(p, 4, 0).kind(), PointIds::Kind::integer);  // a rank without points
  const std::vector<std::uint64_t> big{1, std::uint64_t{1} << 63};
  const auto u = hdf5("uint64.h5", 2, [&](hid_t f) { write_ids(f, H5T_STD_U64LE, H5T_NATIVE_UINT64, big, 2); });
  EXPECT_EQ(read_ids(u, 0, 1).integers(), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(test::input_error_message([&] { read_ids(u, 0, 2); }),
            folder_ + "/uint64.h5: dataset /ids (knn.observations.hdf5.ids): entry 1 is 9223372036854775808, "
                      "beyond the 64-bit signed integers ids are kept as");
}

TEST_F(KnnIdFiles, Hdf5TextsOfVariableAndFixedLength) {
  const std::vector<const char*> names{"Zürich", "b, \"c\"", "x"};
  hid_t vl = H5Tcopy(H5T_C_S1);
  H5Tset_size(vl, H5T_VARIABLE);
  H5Tset_cset(vl, H5T_CSET_UTF8);
  const auto v = hdf5("vl.h5", 3, [&](hid_t f) { write_ids(f, vl, vl, names, 3); });
  EXPECT_EQ(texts(read_ids(v, 0, 3)), (std::vector<std::string>{"Zürich", "b, \"c\"", "x"}));
  EXPECT_EQ(texts(read_ids(v, 2, 1)), (std::vector<std::string>{"x"}));
  EXPECT_EQ(read_ids(v, 3, 0).kind(), PointIds::Kind::text);
  // digits stay texts in an HDF5 text dataset: kept as stored
  for (const H5T_str_t pad : {H5T_STR_NULLPAD, H5T_STR_NULLTERM, H5T_STR_SPACEPAD}) {
    hid_t fixed = H5Tcopy(H5T_C_S1);
    H5Tset_size(fixed, 4);
    H5Tset_strpad(fixed, pad);
    const std::string bytes = pad == H5T_STR_SPACEPAD ? std::string("12  a b 1234") : std::string("12\0\0a b\0" "1234", 12);
    const std::vector<char> data(bytes.begin(), bytes.end());
    const auto p = hdf5("fixed.h5", 3, [&](hid_t f) { write_ids(f, fixed, fixed, data, 3); });
    const PointIds ids = read_ids(p, 0, 3);
    EXPECT_EQ(ids.kind(), PointIds::Kind::text);
    EXPECT_EQ(texts(ids), (std::vector<std::string>{"12", "a b", "1234"})) << pad;
    H5Tclose(fixed);
  }
  const std::vector<const char*> holes{"a", ""};
  const auto e = hdf5("empty.h5", 2, [&](hid_t f) { write_ids(f, vl, vl, holes, 2); });
  EXPECT_EQ(test::input_error_message([&] { read_ids(e, 0, 2); }),
            folder_ + "/empty.h5: dataset /ids (knn.observations.hdf5.ids): entry 1 is empty; every point needs an "
                      "id (an empty one marks an unfinished row in the output)");
  H5Tclose(vl);
}

TEST_F(KnnIdFiles, Hdf5IdsMustBeOneForEachPoint) {
  const std::string f = folder_ + "/";
  const std::vector<std::int64_t> three{1, 2, 3};
  const auto shorter = hdf5("short.h5", 4, [&](hid_t h) { write_ids(h, H5T_STD_I64LE, H5T_NATIVE_INT64, three, 3); });
  EXPECT_EQ(test::input_error_message([&] { count_points(shorter); }),
            f + "short.h5: dataset /ids (knn.observations.hdf5.ids): expected 4 ids, one for each point of /points, "
                "got 3 ids");
  auto missing = shorter;
  missing.ids = "/names";
  EXPECT_EQ(test::input_error_message([&] { count_points(missing); }),
            f + "short.h5: the point file of knn.observations has no dataset '/names' (knn.observations.hdf5.ids)");
  const auto square = hdf5("square.h5", 2, [&](hid_t h) {
    const hsize_t dims[2] = {2, 2};
    const hid_t space = H5Screate_simple(2, dims, nullptr);
    H5Dclose(H5Dcreate2(h, "/ids", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Sclose(space);
  });
  EXPECT_EQ(test::input_error_message([&] { count_points(square); }),
            f + "square.h5: dataset /ids (knn.observations.hdf5.ids): expected 2 ids, one for each point of /points, "
                "got 2 x 2");
  const std::vector<double> reals{1, 2};
  const auto floats = hdf5("floats.h5", 2, [&](hid_t h) { write_ids(h, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, reals, 2); });
  EXPECT_EQ(test::input_error_message([&] { count_points(floats); }),
            f + "floats.h5: dataset /ids (knn.observations.hdf5.ids): expected integers or texts, got floating-point "
                "numbers");
}

}  // namespace
}  // namespace trident::knn
