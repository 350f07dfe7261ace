// The knn deck section and the point readers: values, defaults and every bad-data message.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "deck/deck.hpp"
#include "support/study_decks.hpp"
#include "knn/detail/points.hpp"
#include "support/test_support.hpp"

namespace trident::knn {
namespace {

trident::test::StudyDeck deck_text(const std::string& knn) {
  return trident::test::read_deck_text("knn:\n" + knn, "deck.yaml", "/decks");
}

TEST(KnnDeck, ReadsEveryKey) {
  const auto d = deck_text(
      "  k: 16\n"
      "  radius: 1.5\n"
      "  precision: float64\n"
      "  observations: {csv: {file: obs.csv, latitude: lat, longitude: lon}}\n"
      "  references: {hdf5: {file: /data/refs.h5, dataset: /points}}\n"
      "  batch_size: 1000\n"
      "  tile_size: 500\n");
  ASSERT_TRUE(d.knn.has_value());
  const auto& s = *d.knn;
  EXPECT_EQ(s.k, 16);
  EXPECT_EQ(s.radius, 1.5);
  EXPECT_EQ(s.precision, core::Precision::float64);
  EXPECT_EQ(s.observations.kind, PointSource::Kind::csv);
  EXPECT_EQ(s.observations.file, "/decks/obs.csv");
  EXPECT_EQ(s.observations.latitude, "lat");
  EXPECT_EQ(s.observations.longitude, "lon");
  EXPECT_EQ(s.observations.key, "knn.observations");
  EXPECT_EQ(s.references.kind, PointSource::Kind::hdf5);
  EXPECT_EQ(s.references.file, "/data/refs.h5");
  EXPECT_EQ(s.references.dataset, "/points");
  EXPECT_EQ(s.batch_size, 1000);
  EXPECT_EQ(s.tile_size, 500);
  EXPECT_EQ(s.k_where, "deck.yaml:2:6");
}

TEST(KnnDeck, Defaults) {
  const auto d = deck_text(
      "  observations: {generate: {count: 10}}\n"
      "  references: {csv: {file: r.csv}}\n");
  const auto& s = *d.knn;
  EXPECT_EQ(s.k, 1);
  EXPECT_EQ(s.radius, 6371008.8);
  EXPECT_EQ(s.precision, core::Precision::float32);
  EXPECT_EQ(s.observations.count, 10);
  EXPECT_EQ(s.observations.seed, 1u);
  EXPECT_EQ(s.references.latitude, "latitude");
  EXPECT_EQ(s.references.longitude, "longitude");
  EXPECT_EQ(s.batch_size, 0);
  EXPECT_EQ(s.tile_size, 0);
}

TEST(KnnDeck, BadKeysNameTheKey) {
  const std::string refs = "  references: {generate: {count: 5}}\n";
  EXPECT_EQ(trident::test::input_error_message([&] { deck_text("  k: 0\n  observations: {generate: {count: 5}}\n" + refs); }),
            "deck.yaml:2:6: knn.k: expected an integer at least 1, got '0'");
  EXPECT_EQ(trident::test::input_error_message([&] { deck_text("  k: 6\n  observations: {generate: {count: 5}}\n" + refs); }),
            "deck.yaml:2:6: knn.k: expected at most the number of references (5), got 6");
  EXPECT_EQ(trident::test::input_error_message([&] { deck_text("  observations: {}\n" + refs); }),
            "deck.yaml:2:17: knn.observations: expected exactly one of generate, csv or hdf5, got 0");
  EXPECT_EQ(trident::test::input_error_message([&] {
              deck_text("  observations: {generate: {count: 5}, csv: {file: a.csv}}\n" + refs);
            }),
            "deck.yaml:2:17: knn.observations: expected exactly one of generate, csv or hdf5, got 2");
  EXPECT_EQ(trident::test::input_error_message([&] { deck_text("  observations: {generate: {count: 0}}\n" + refs); }),
            "deck.yaml:2:36: knn.observations.generate.count: expected an integer at least 1, got '0'");
  EXPECT_EQ(trident::test::input_error_message([&] { deck_text("  observations: {generate: {count: 5}}\n" + refs + "  precision: half\n"); }),
            "deck.yaml:4:14: knn.precision: expected one of float32 or float64, got 'half'");
  const std::string unknown = trident::test::input_error_message([&] {
    deck_text("  observations: {generate: {count: 5}}\n" + refs + "  tile: 5\n");
  });
  EXPECT_EQ(unknown.rfind("deck.yaml:4:3: knn.tile: unknown key", 0), 0u) << unknown;
}

class KnnCsv : public testing::Test {
 protected:
  void SetUp() override { folder_ = test::scratch_folder(MPI_COMM_SELF, "knn_csv"); }
  knn::PointSource csv(const std::string& name, const std::string& text) {
    knn::PointSource p;
    p.kind = knn::PointSource::Kind::csv;
    p.key = "knn.references";
    p.file = folder_ + "/" + name;
    p.latitude = "lat";
    p.longitude = "lon";
    test::write_text(p.file, text);
    return p;
  }
  std::string folder_;
};

TEST_F(KnnCsv, ReadsColumnsInAnyOrderAndSkipsBlankLines) {
  const auto p = csv("good.csv", "id, lon ,lat\n1,10.5,-20\n\n2,-180,90\n3,180,-90\n");
  EXPECT_EQ(count_points(p), 3);
  EXPECT_EQ(read_points(p, 0, 3), (std::vector<double>{-20, 10.5, 90, -180, -90, 180}));
  EXPECT_EQ(read_points(p, 1, 2), (std::vector<double>{90, -180, -90, 180}));
}

TEST_F(KnnCsv, BadDataMessagesNameFileRowAndColumn) {
  const std::string f = folder_ + "/";
  auto read_all = [&](const knn::PointSource& p) { read_points(p, 0, count_points(p)); };
  EXPECT_EQ(trident::test::input_error_message([&] { read_all(csv("lat.csv", "lat,lon\n1,2\n90.5,3\n")); }),
            f + "lat.csv: row 2, column 'lat': expected a latitude in [-90, 90] degrees, got 90.5");
  EXPECT_EQ(trident::test::input_error_message([&] { read_all(csv("lon.csv", "lat,lon\n1,2\n3,-180.25\n")); }),
            f + "lon.csv: row 2, column 'lon': expected a longitude in [-180, 180] degrees, got -180.25");
  EXPECT_EQ(trident::test::input_error_message([&] { read_all(csv("nan.csv", "lat,lon\n1,2\n\n4,5\nnan,3\n")); }),
            f + "nan.csv: row 3, column 'lat': expected a latitude in [-90, 90] degrees, got NaN");
  EXPECT_EQ(trident::test::input_error_message([&] { read_all(csv("text.csv", "lat,lon\n1,east\n")); }),
            f + "text.csv: row 1, column 'lon': expected a number, got 'east'");
  EXPECT_EQ(trident::test::input_error_message([&] { read_all(csv("short.csv", "lat,lon\n1,2\n3\n")); }),
            f + "short.csv: row 2, column 'lon': the row has no value there (it has 1 fields)");
  EXPECT_EQ(trident::test::input_error_message([&] { read_all(csv("column.csv", "latitude,lon\n1,2\n")); }),
            f + "column.csv: the header has no column 'lat' (knn.references); its columns are "
                "'latitude', 'lon'");
  EXPECT_EQ(trident::test::input_error_message([&] { read_all(csv("empty.csv", "lat,lon\n\n")); }),
            f + "empty.csv: holds no points; knn.references needs at least one");
  EXPECT_EQ(trident::test::input_error_message([&] { read_all(csv("nothing.csv", "")); }),
            f + "nothing.csv: the CSV file of knn.references is empty; expected a header row "
                "naming the columns 'lat' and 'lon'");
  knn::PointSource missing = csv("x.csv", "");
  missing.file = f + "missing.csv";
  EXPECT_EQ(trident::test::input_error_message([&] { read_all(missing); }),
            f + "missing.csv: cannot open the CSV file of knn.references");
}

TEST(KnnGenerate, UniformOnTheSphereAndIndexedBySeed) {
  knn::PointSource g;
  g.kind = knn::PointSource::Kind::generate;
  g.count = 20000;
  g.seed = 7;
  const auto all = read_points(g, 0, g.count);
  const auto tail = read_points(g, 15000, 5000);
  EXPECT_EQ(std::vector<double>(all.begin() + 30000, all.end()), tail);  // any rank can make its part
  double north = 0, east = 0;
  for (std::size_t i = 0; i < all.size(); i += 2) {
    ASSERT_LE(std::fabs(all[i]), 90.0);
    ASSERT_LE(std::fabs(all[i + 1]), 180.0);
    north += all[i] > 30.0 ? 1 : 0;  // area above 30N: (1 - sin 30)/2 = 1/4 of the sphere
    east += all[i + 1] > 0 ? 1 : 0;
  }
  EXPECT_NEAR(north / 20000, 0.25, 0.015);
  EXPECT_NEAR(east / 20000, 0.5, 0.015);
  g.seed = 8;
  EXPECT_NE(read_points(g, 0, 1), std::vector<double>(all.begin(), all.begin() + 2));
}

TEST(KnnChunks, BalancedAndContiguous) {
  for (int parts : {1, 2, 3, 4, 7}) {
    std::int64_t next = 0;
    for (int part = 0; part < parts; ++part) {
      std::int64_t first = 0, count = 0;
      chunk_of(10, parts, part, first, count);
      EXPECT_EQ(first, next);
      EXPECT_GE(count, 10 / parts);
      EXPECT_LE(count, 10 / parts + 1);
      next = first + count;
    }
    EXPECT_EQ(next, 10);
  }
}

}  // namespace
}  // namespace trident::knn
