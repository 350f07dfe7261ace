// The study end to end on 1-4 ranks: HDF5 points in, /knn written by every rank's slab,
// read back and compared with the brute force; HDF5 bad-data messages.
#include <gtest/gtest.h>

#include "brute_force.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/run_context.hpp"
#include "deck/deck.hpp"
#include "support/study_decks.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "knn/detail/output_rows.hpp"
#include "knn/detail/points.hpp"
#include "knn/detail/search.hpp"
#include "knn/detail/study.hpp"
#include "support/test_support.hpp"

namespace trident::knn {
namespace {

// Writes an N x 2 (latitude, longitude) dataset `/points` to `path` (collective).
void write_points(const std::string& path, const std::vector<test::Point>& points) {
  io::OutputFile out(MPI_COMM_WORLD, path, true);
  std::vector<double> values;
  for (const auto& p : points) values.insert(values.end(), {p.lat, p.lon});
  out.write_array("/points", values, {points.size(), 2});
  out.commit();
}

// A text attribute read with the raw HDF5 API (UTF-8, variable length, as OutputFile writes).
std::string text_attribute(const std::string& file, const std::string& object, const std::string& name) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t a = H5Aopen_by_name(f, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  const hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  char* text = nullptr;
  std::string out = "(unreadable)";
  if (a >= 0 && H5Aread(a, t, &text) >= 0 && text) out = text;
  if (text) H5free_memory(text);
  H5Tclose(t);
  if (a >= 0) H5Aclose(a);
  if (f >= 0) H5Fclose(f);
  return out;
}

// A dataset's integer type read with the raw HDF5 API: "int32", "uint8", ... ("?" otherwise).
std::string integer_type(const std::string& file, const std::string& dataset) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = f >= 0 ? H5Dopen2(f, dataset.c_str(), H5P_DEFAULT) : -1;
  const hid_t t = d >= 0 ? H5Dget_type(d) : -1;
  std::string out = "?";
  if (t >= 0 && H5Tget_class(t) == H5T_INTEGER)
    out = std::string(H5Tget_sign(t) == H5T_SGN_NONE ? "uint" : "int") + std::to_string(8 * H5Tget_size(t));
  if (t >= 0) H5Tclose(t);
  if (d >= 0) H5Dclose(d);
  if (f >= 0) H5Fclose(f);
  return out;
}

class MpiKnnOutputModes : public testing::TestWithParam<io::Mode> {};

// (Mode::gathered on several ranks: each rank writes its rows into the file itself)
TEST_P(MpiKnnOutputModes, WritesNeighboursObservationsAndSettings) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = trident::test::scratch_folder(comm, "knn_output");
  const auto refs = test::random_points(150, 21);
  write_points(folder + "/refs.h5", refs);
  const trident::test::StudyDeck d = trident::test::read_deck_text(
      "knn:\n"
      "  k: 5\n"
      "  observations: {generate: {count: 61, seed: 22}}\n"
      "  references: {hdf5: {file: " + folder + "/refs.h5, dataset: /points}}\n"
      "  batch_size: 6\n"
      "  tile_size: 40\n",
      "deck.yaml", ".");
  {
    Timers timers;
    DeviceBinding binding;
    io::OutputFile out(comm, folder + "/knn.h5", true, GetParam());
    RunContext context{comm, timers, binding};
    run_study(*d.knn, context, out);
    out.commit();
  }
  const io::InputFile in(folder + "/knn.h5", "knn output");
  EXPECT_EQ(in.dims("/knn/indices"), (std::vector<std::uint64_t>{61, 5}));
  EXPECT_EQ(integer_type(folder + "/knn.h5", "/knn/indices"), "int32");  // 12 bytes a neighbour with the distance
  EXPECT_EQ(in.dims("/knn/distances"), (std::vector<std::uint64_t>{61, 5}));
  EXPECT_EQ(in.dims("/knn/observations"), (std::vector<std::uint64_t>{61, 2}));
  const auto ll = in.read<double>("/knn/observations");
  EXPECT_EQ(ll, read_points(d.knn->observations, 0, 61));
  std::vector<test::Point> obs;
  for (std::size_t i = 0; i < ll.size(); i += 2) obs.push_back({ll[i], ll[i + 1]});
  test::expect_same(test::brute_force(obs, refs, 5, 6371008.8), in.read<NeighbourIndex>("/knn/indices"),
                    in.read<double>("/knn/distances"), 5, 6371008.8);
  EXPECT_EQ(in.integer_attribute("/knn", "k"), 5);
  EXPECT_EQ(in.integer_attribute("/knn", "reference_count"), 150);
  EXPECT_EQ(in.real_attribute("/knn", "radius"), 6371008.8);
  EXPECT_EQ(text_attribute(folder + "/knn.h5", "/knn", "precision"), "float32");
  EXPECT_EQ(text_attribute(folder + "/knn.h5", "/knn", "observations"), "generate(count=61, seed=22)");
}

// Rows handed over after each round, up to the first row not finished, and the rest at the
// end, over an uneven split of the rows: the file holds every rank's rows, and where the file
// takes rows straight (not parallel HDF5) the finished prefix went before the end.
TEST_P(MpiKnnOutputModes, RowsWrittenWhileTheSearchGoesOnAreTheFilesRows) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int rank = mpi::rank(comm), size = mpi::size(comm), k = 3;
  const std::string folder = trident::test::scratch_folder(comm, "knn_output_rows");
  const std::int64_t n = 37 + 5 * size, first = n * rank / size, count = n * (rank + 1) / size - first;
  const auto value = [](std::int64_t row, int j) { return 1000.0 * static_cast<double>(row) + j + 0.25; };
  std::vector<double> lat_lon;
  for (std::int64_t i = 0; i < count; ++i) lat_lon.insert(lat_lon.end(), {value(first + i, 7), -value(first + i, 8)});
  Neighbours rows;
  rows.indices.assign(static_cast<std::size_t>(count * k), -1);
  rows.distances.assign(static_cast<std::size_t>(count * k), 0.0);
  std::vector<std::uint8_t> done(static_cast<std::size_t>(count), 0);
  const auto finish_row = [&](std::int64_t i) {
    for (int j = 0; j < k; ++j) {
      rows.indices[static_cast<std::size_t>(i * k + j)] = static_cast<NeighbourIndex>((first + i) * 10 + j);
      rows.distances[static_cast<std::size_t>(i * k + j)] = value(first + i, j);
    }
    done[static_cast<std::size_t>(i)] = 1;
  };
  const std::int64_t half = count / 2;
  std::int64_t early = 0;
  bool straight = false;
  {
    io::OutputFile out(comm, folder + "/rows.h5", true, GetParam());
    straight = !out.parallel();
    OutputRows writer(out, n, k, first, count, lat_lon, rows);
    for (std::int64_t i = 0; i < half; ++i) finish_row(i);
    if (half + 1 < count) finish_row(half + 1);  // past a row not finished: waits for it
    writer.after_round(done);
    Neighbours moved = std::move(rows);  // as the study moves them: the arrays stay
    rows = std::move(moved);
    for (std::int64_t i = half; i < count; ++i) finish_row(i);
    writer.finish();
    early = writer.rows_written_early();
    out.attribute("/knn", "k", static_cast<std::int64_t>(k));
    out.commit();
  }
  EXPECT_EQ(early, straight ? half : 0);
  const io::InputFile in(folder + "/rows.h5", "knn output");
  const auto indices = in.read<NeighbourIndex>("/knn/indices");
  const auto distances = in.read<double>("/knn/distances");
  const auto observations = in.read<double>("/knn/observations");
  ASSERT_EQ(indices.size(), static_cast<std::size_t>(n * k));
  ASSERT_EQ(observations.size(), static_cast<std::size_t>(n * 2));
  int wrong = 0;
  for (std::int64_t row = 0; row < n; ++row) {
    for (int j = 0; j < k; ++j) {
      wrong += indices[static_cast<std::size_t>(row * k + j)] != static_cast<NeighbourIndex>(row * 10 + j);
      wrong += distances[static_cast<std::size_t>(row * k + j)] != value(row, j);
    }
    wrong += observations[static_cast<std::size_t>(2 * row)] != value(row, 7);
    wrong += observations[static_cast<std::size_t>(2 * row + 1)] != -value(row, 8);
  }
  EXPECT_EQ(wrong, 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, MpiKnnOutputModes, testing::Values(io::Mode::automatic, io::Mode::gathered),
                         [](const testing::TestParamInfo<io::Mode>& info) {
                           return info.param == io::Mode::automatic ? "automatic" : "gathered";
                         });

TEST(MpiKnnOutput, Hdf5BadDataMessages) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = trident::test::scratch_folder(comm, "knn_hdf5_bad");
  write_points(folder + "/lat.h5", {{1, 2}, {3, 4}, {-91, 5}});
  write_points(folder + "/lon.h5", {{1, 2}, {3, 180.5}});
  write_points(folder + "/nan.h5", {{1, 2}, {3, std::nan("")}});
  {
    io::OutputFile out(comm, folder + "/shape.h5", true);
    out.write_array("/points", std::vector<double>(6, 1.0), {2, 3});
    out.create_dataset<double>("/empty", {0, 2});
    out.commit();
  }
  knn::PointSource p;
  p.kind = knn::PointSource::Kind::hdf5;
  p.key = "knn.observations";
  p.dataset = "/points";
  auto read_all = [&](const std::string& file) {
    p.file = folder + "/" + file;
    read_points(p, 0, count_points(p));
  };
  const std::string f = folder + "/";
  EXPECT_EQ(trident::test::input_error_message([&] { read_all("lat.h5"); }),
            f + "lat.h5: dataset /points, row 3, column 1 (latitude): expected a latitude in "
                "[-90, 90] degrees, got -91");
  EXPECT_EQ(trident::test::input_error_message([&] { read_all("lon.h5"); }),
            f + "lon.h5: dataset /points, row 2, column 2 (longitude): expected a longitude in "
                "[-180, 180] degrees, got 180.5");
  EXPECT_EQ(trident::test::input_error_message([&] { read_all("nan.h5"); }),
            f + "nan.h5: dataset /points, row 2, column 2 (longitude): expected a longitude in "
                "[-180, 180] degrees, got NaN");
  EXPECT_EQ(trident::test::input_error_message([&] { read_all("shape.h5"); }),
            f + "shape.h5: dataset /points of knn.observations: expected an N x 2 array of "
                "(latitude, longitude) in degrees, got 2 x 3");
  p.dataset = "/empty";
  EXPECT_EQ(trident::test::input_error_message([&] { read_all("shape.h5"); }),
            f + "shape.h5: dataset /empty: holds no points; knn.observations needs at least one");
  p.dataset = "/points";
  const std::string missing = trident::test::input_error_message([&] { read_all("missing.h5"); });
  EXPECT_EQ(missing.rfind(f + "missing.h5: cannot open the point file of knn.observations", 0), 0u)
      << missing;
}

}  // namespace
}  // namespace trident::knn

namespace trident::knn {
namespace {

// The example deck CI runs: it must run on any rank count and give the exact answer.
TEST(MpiKnnOutput, SmallDeckRuns) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = trident::test::scratch_folder(comm, "knn_small_deck");
  const trident::test::StudyDeck d = trident::test::read_deck(trident::test::source_path("inputs/knn_small.yaml"));
  ASSERT_TRUE(d.knn.has_value());
  {
    Timers timers;
    DeviceBinding binding;
    io::OutputFile out(comm, folder + "/knn_small.h5", true);
    RunContext context{comm, timers, binding};
    run_study(*d.knn, context, out);
    out.commit();
  }
  const io::InputFile in(folder + "/knn_small.h5", "knn output");
  const auto k = static_cast<std::size_t>(d.knn->k);
  ASSERT_EQ(in.dims("/knn/indices"), (std::vector<std::uint64_t>{4096, k}));
  // the first and last 20 observations against the brute force
  const auto ll = read_points(d.knn->references, 0, 2048);
  std::vector<test::Point> refs;
  for (std::size_t i = 0; i < ll.size(); i += 2) refs.push_back({ll[i], ll[i + 1]});
  for (std::uint64_t first : {0, 4076}) {
    const auto o = read_points(d.knn->observations, static_cast<std::int64_t>(first), 20);
    std::vector<test::Point> obs;
    for (std::size_t i = 0; i < o.size(); i += 2) obs.push_back({o[i], o[i + 1]});
    test::expect_same(test::brute_force(obs, refs, static_cast<int>(k), d.knn->radius),
                      in.read<NeighbourIndex>("/knn/indices", {first, 0}, {20, k}),
                      in.read<double>("/knn/distances", {first, 0}, {20, k}), static_cast<int>(k),
                      d.knn->radius);
  }
}

}  // namespace
}  // namespace trident::knn
