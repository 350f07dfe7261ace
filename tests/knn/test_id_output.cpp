// /knn/reference_ids and /knn/observation_ids written by write_point_ids on 1-4 ranks over
// an uneven split: integer ids by every rank (both output modes), text ids by the rank that
// holds the file from every rank's rows; unfinished rows get the fill. Read back with the raw
// HDF5 API and compared with ids[indices] made here.
#include <gtest/gtest.h>

#include <hdf5.h>

#include <string>

#include "core/comm.hpp"
#include "io/output_file.hpp"
#include "knn/detail/id_output.hpp"
#include "support/test_support.hpp"

namespace trident::knn {
namespace {

constexpr int kK = 3;
constexpr std::int64_t kReferences = 11;

NeighbourIndex neighbour(std::int64_t row, int j) { return static_cast<NeighbourIndex>((row * 7 + j * 3) % kReferences); }
bool finished(std::int64_t row) { return row % 5 != 4; }
std::string reference_name(std::int64_t i) { return "ref \"" + std::to_string(i) + "\", é"; }
std::string observation_name(std::int64_t i) { return "obs-" + std::to_string(i); }

std::vector<std::int64_t> read_int64(const std::string& file, const std::string& dataset) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, dataset.c_str(), H5P_DEFAULT);
  const hid_t t = H5Dget_type(d);
  const hid_t s = H5Dget_space(d);
  std::vector<std::int64_t> out(static_cast<std::size_t>(H5Sget_simple_extent_npoints(s)));
  EXPECT_TRUE(H5Tget_class(t) == H5T_INTEGER && H5Tget_size(t) == 8 && H5Tget_sign(t) == H5T_SGN_2) << dataset;
  H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data());
  H5Sclose(s);
  H5Tclose(t);
  H5Dclose(d);
  H5Fclose(f);
  return out;
}

std::vector<std::string> read_texts(const std::string& file, const std::string& dataset) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, dataset.c_str(), H5P_DEFAULT);
  const hid_t stored = H5Dget_type(d);
  EXPECT_TRUE(H5Tis_variable_str(stored) > 0 && H5Tget_cset(stored) == H5T_CSET_UTF8) << dataset;
  const hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  const hid_t s = H5Dget_space(d);
  std::vector<char*> raw(static_cast<std::size_t>(H5Sget_simple_extent_npoints(s)), nullptr);
  H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data());
  std::vector<std::string> out;
  for (char* p : raw) out.emplace_back(p != nullptr ? p : "(null)");
  H5Dvlen_reclaim(t, s, H5P_DEFAULT, raw.data());
  H5Sclose(s);
  H5Tclose(t);
  H5Tclose(stored);
  H5Dclose(d);
  H5Fclose(f);
  return out;
}

struct Case {
  io::Mode mode;
  bool texts;
};

class MpiKnnIdOutput : public testing::TestWithParam<Case> {};

TEST_P(MpiKnnIdOutput, EachNeighbourHasItsReferencesId) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = mpi::rank(comm), size = mpi::size(comm);
  const std::string folder = test::scratch_folder(comm, "knn_id_output");
  const std::int64_t n = 37 + 5 * size, first = n * rank / size, count = n * (rank + 1) / size - first;
  PointIds references, observations;
  if (GetParam().texts) {
    for (std::int64_t i = 0; i < kReferences; ++i) references.add_text(reference_name(i));
    observations = PointIds::empty(PointIds::Kind::text);
    for (std::int64_t i = first; i < first + count; ++i) observations.add_text(observation_name(i));
  } else {
    std::vector<std::int64_t> r, o;
    for (std::int64_t i = 0; i < kReferences; ++i) r.push_back(1000000000000LL * i - 3);
    for (std::int64_t i = first; i < first + count; ++i) o.push_back(-i);
    references = PointIds::from_integers(r);
    observations = PointIds::from_integers(o);
  }
  std::vector<NeighbourIndex> indices;
  std::vector<std::uint8_t> done;
  for (std::int64_t i = first; i < first + count; ++i) {
    done.push_back(finished(i) ? 1 : 0);
    for (int j = 0; j < kK; ++j) indices.push_back(finished(i) ? neighbour(i, j) : -1);
  }
  const std::string path = folder + "/ids.h5";
  {
    io::OutputFile out(comm, path, true, GetParam().mode);
    write_point_ids(out, references, observations, {n, first, count, kK, indices.data(), &done});
    out.commit();
  }
  if (rank != 0) return;
  if (GetParam().texts) {
    const std::vector<std::string> got = read_texts(path, "/knn/reference_ids");
    const std::vector<std::string> names = read_texts(path, "/knn/observation_ids");
    ASSERT_EQ(got.size(), static_cast<std::size_t>(n * kK));
    ASSERT_EQ(names.size(), static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      EXPECT_EQ(names[static_cast<std::size_t>(i)], observation_name(i));
      for (int j = 0; j < kK; ++j)
        EXPECT_EQ(got[static_cast<std::size_t>(i * kK + j)], finished(i) ? reference_name(neighbour(i, j)) : "")
            << "row " << i;
    }
  } else {
    const std::vector<std::int64_t> got = read_int64(path, "/knn/reference_ids");
    const std::vector<std::int64_t> ids = read_int64(path, "/knn/observation_ids");
    ASSERT_EQ(got.size(), static_cast<std::size_t>(n * kK));
    ASSERT_EQ(ids.size(), static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      EXPECT_EQ(ids[static_cast<std::size_t>(i)], -i);
      for (int j = 0; j < kK; ++j)
        EXPECT_EQ(got[static_cast<std::size_t>(i * kK + j)],
                  finished(i) ? 1000000000000LL * neighbour(i, j) - 3 : kIntegerIdFill)
            << "row " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, MpiKnnIdOutput,
                         testing::Values(Case{io::Mode::automatic, false}, Case{io::Mode::gathered, false},
                                         Case{io::Mode::gathered, true}),
                         [](const testing::TestParamInfo<Case>& c) {
                           return std::string(c.param.texts ? "texts" : "integers") +
                                  (c.param.mode == io::Mode::gathered ? "_gathered" : "_automatic");
                         });

}  // namespace
}  // namespace trident::knn
