// io::OutputFile's description for netCDF readers (describe, describe_flags, describe_text),
// written at commit, read back through HDF5's own dimension-scale and attribute calls, on
// 1-4 ranks in both output modes; a description that does not fit keeps the results.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <hdf5_hl.h>

#include <string>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "support/test_support.hpp"

namespace trident::io {
namespace {

class MpiOutputDescription : public testing::TestWithParam<Mode> {};

// A text attribute of `object` in `file`, "" when it has none.
std::string text_attribute(hid_t file, const std::string& object, const std::string& name) {
  const hid_t o = H5Oopen(file, object.c_str(), H5P_DEFAULT);
  std::string value;
  if (H5Aexists(o, name.c_str()) > 0) {
    const hid_t a = H5Aopen(o, name.c_str(), H5P_DEFAULT);
    const hid_t type = H5Aget_type(a);
    if (H5Tis_variable_str(type) > 0) {
      char* text = nullptr;
      H5Aread(a, type, &text);
      value = text;
      H5free_memory(text);
    } else {
      std::vector<char> text(H5Tget_size(type) + 1, '\0');
      H5Aread(a, type, text.data());
      value = text.data();
    }
    H5Tclose(type);
    H5Aclose(a);
  }
  H5Oclose(o);
  return value;
}

bool attached(hid_t file, const std::string& dataset, const std::string& scale, unsigned axis) {
  const hid_t d = H5Dopen2(file, dataset.c_str(), H5P_DEFAULT), s = H5Dopen2(file, scale.c_str(), H5P_DEFAULT);
  const bool yes = H5DSis_attached(d, s, axis) > 0;
  H5Dclose(d);
  H5Dclose(s);
  return yes;
}

TEST_P(MpiOutputDescription, ScalesAndAttributesAreWrittenAtCommit) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "io_description");
  const std::string path = folder + "/described.h5";
  const int me = mpi::rank(comm), n = mpi::size(comm);
  {
    OutputFile file(comm, path, false, GetParam());
    // a growing (time, x) field written a row per rank, its time coordinate, a flag on time
    file.create_dataset<float>("/g/field", {0, 4}, {0, 4}, {1, 4});
    file.create_dataset<double>("/g/time", {0}, {0}, {8});
    file.extend("/g/field", {static_cast<std::uint64_t>(n), 4});
    file.extend("/g/time", {static_cast<std::uint64_t>(n)});
    const float row[4] = {float(me), 1, 2, 3};
    const double t = 0.5 * me;
    file.write_slab<float>("/g/field", {static_cast<std::uint64_t>(me), 0}, {1, 4}, row);
    file.write_slab<double>("/g/time", {static_cast<std::uint64_t>(me)}, {1}, &t);
    file.write_array<std::int32_t>("/g/flag", std::vector<std::int32_t>(static_cast<std::size_t>(n), 7));
    file.describe("/g/field", {"time", "x"}, "a field", "K");
    file.describe("/g/time", {"time"}, "time", "s", "time");
    file.describe("/g/flag", {"time"}, "a flag", "");
    file.describe_flags("/g/flag", {-1, 7}, "unfinished done");
    file.describe_text("/g/field", "coordinates", "time");
    file.commit();
  }
  MPI_Barrier(comm);
  if (me == 0) {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    // /g/time is the time dimension's coordinate; x, without one, a netCDF dimension-only scale
    const hid_t time = H5Dopen2(f, "/g/time", H5P_DEFAULT), x = H5Dopen2(f, "/g/x", H5P_DEFAULT);
    ASSERT_GE(x, 0) << "no dimension-only scale /g/x";
    EXPECT_GT(H5DSis_scale(time), 0);
    EXPECT_GT(H5DSis_scale(x), 0);
    char name[128] = {};
    H5DSget_scale_name(time, name, sizeof name);
    EXPECT_STREQ(name, "time");
    H5DSget_scale_name(x, name, sizeof name);
    EXPECT_EQ(std::string(name), "This is a netCDF dimension but not a netCDF variable.         4");
    hsize_t length = 0;
    const hid_t space = H5Dget_space(x);
    H5Sget_simple_extent_dims(space, &length, nullptr);
    EXPECT_EQ(length, 4u);
    H5Sclose(space);
    H5Dclose(time);
    H5Dclose(x);
    EXPECT_TRUE(attached(f, "/g/field", "/g/time", 0));
    EXPECT_TRUE(attached(f, "/g/field", "/g/x", 1));
    EXPECT_TRUE(attached(f, "/g/flag", "/g/time", 0));
    EXPECT_FALSE(attached(f, "/g/field", "/g/x", 0));
    EXPECT_EQ(text_attribute(f, "/g/field", "long_name"), "a field");
    EXPECT_EQ(text_attribute(f, "/g/field", "units"), "K");
    EXPECT_EQ(text_attribute(f, "/g/field", "coordinates"), "time");
    EXPECT_EQ(text_attribute(f, "/g/time", "standard_name"), "time");
    EXPECT_EQ(text_attribute(f, "/g/flag", "units"), "");  // unknown: no attribute
    EXPECT_EQ(text_attribute(f, "/g/flag", "flag_meanings"), "unfinished done");
    // flag_values in the flag's own type (int32)
    const hid_t flag = H5Dopen2(f, "/g/flag", H5P_DEFAULT);
    const hid_t a = H5Aopen(flag, "flag_values", H5P_DEFAULT);
    const hid_t type = H5Aget_type(a);
    EXPECT_GT(H5Tequal(type, H5T_STD_I32LE), 0);
    std::int32_t values[2] = {};
    H5Aread(a, H5T_NATIVE_INT32, values);
    EXPECT_EQ(values[0], -1);
    EXPECT_EQ(values[1], 7);
    H5Tclose(type);
    H5Aclose(a);
    H5Dclose(flag);
    H5Fclose(f);
    // the data as written
    const InputFile in(path, "described file");
    const auto field = in.read<float>("/g/field");
    ASSERT_EQ(field.size(), static_cast<std::size_t>(4 * n));
    for (int r = 0; r < n; ++r) EXPECT_EQ(field[static_cast<std::size_t>(4 * r)], float(r));
  }
  MPI_Barrier(comm);
}

TEST_P(MpiOutputDescription, ADescriptionThatDoesNotFitKeepsTheResultsInThePartialFile) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "io_description_misfit");
  const std::string path = folder + "/misfit.h5";
  {
    OutputFile file(comm, path, false, GetParam());
    file.write_array<double>("/g/a", {1, 2, 3});
    file.write_array<double>("/g/b", {1, 2, 3, 4});
    file.describe("/g/a", {"n"}, "a", "1");
    file.describe("/g/b", {"n"}, "b", "1");  // the same dimension, another length
    try {
      file.commit();
      FAIL() << "a dimension of two lengths was described";
    } catch (const CollectiveError& e) {
      EXPECT_EQ(e.exit_code(), 1);
      EXPECT_EQ(std::string(e.what()),
                path + ": the run finished but its datasets could not be described for netCDF readers "
                       "(dimension n of /g is 3 long in /g/a but 4 in /g/b); the results are kept in " +
                    path + ".partial");
    }
  }
  MPI_Barrier(comm);
  EXPECT_FALSE(test::file_exists(path));
  const InputFile kept(path + ".partial", "kept result");
  EXPECT_EQ(kept.read<double>("/g/b"), (std::vector<double>{1, 2, 3, 4}));
}

INSTANTIATE_TEST_SUITE_P(Modes, MpiOutputDescription, testing::Values(Mode::automatic, Mode::gathered),
                         [](const testing::TestParamInfo<Mode>& info) {
                           return info.param == Mode::automatic ? "automatic" : "gathered";
                         });

TEST(OutputDescription, DimensionOnlyNamesAreNetcdfs) {
  // netCDF-C writes "%s%10d": the marker, then the length right-aligned in 10 characters
  EXPECT_EQ(dimension_only_name(5), "This is a netCDF dimension but not a netCDF variable.         5");
  EXPECT_EQ(dimension_only_name(1234567890), "This is a netCDF dimension but not a netCDF variable.1234567890");
}

}  // namespace
}  // namespace trident::io
