// The CSV point reader: values read exactly as strtod reads the text written, in every
// spelling a file may use, and one exact message for each malformed row.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>

#include "core/error.hpp"
#include "knn/detail/points.hpp"
#include "support/test_support.hpp"

namespace trident::knn {
namespace {

class KnnCsvRows : public testing::Test {
 protected:
  void SetUp() override { folder_ = test::scratch_folder(MPI_COMM_SELF, "knn_csv_rows"); }
  knn::PointSource csv(const std::string& name, const std::string& text) {
    knn::PointSource p;
    p.kind = knn::PointSource::Kind::csv;
    p.key = "knn.observations";
    p.file = folder_ + "/" + name;
    p.latitude = "lat";
    p.longitude = "lon";
    test::write_text(p.file, text);
    return p;
  }
  std::string error(const std::string& name, const std::string& text) {
    return test::input_error_message([&] {
      const auto p = csv(name, text);
      read_points(p, 0, count_points(p));
    });
  }
  std::string folder_;
};

// A number in one of the spellings files use; `plain` gets the bare text for strtod.
std::string spelled(double v, std::mt19937& rng, std::string& plain) {
  static const char* formats[] = {"%.17g", "%.6f", "%.3e", "%g", "%+.5f", "%.0f", "%.10E"};
  char text[64];
  std::snprintf(text, sizeof text, formats[rng() % 7], v);
  plain = text;
  switch (rng() % 4) {
    case 0: return "\"" + plain + "\"";
    case 1: return "  " + plain + "\t";
    case 2: return " \" " + plain + " \" ";
    default: return plain;
  }
}

TEST_F(KnnCsvRows, ReadsWhatStrtodReadsInEverySpellingAcrossBlocks) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> lat(-90, 90), lon(-180, 180);
  std::string text = "id,\"name, with comma\",lon , \"lat\"\r\n";
  std::vector<double> expected;
  const int rows = 40000;  // about 2.5 MB: lines cross the reader's 1 MB blocks
  for (int i = 0; i < rows; ++i) {
    std::string lat_plain, lon_plain;
    const std::string lon_text = spelled(lon(rng), rng, lon_plain);
    const std::string lat_text = spelled(lat(rng), rng, lat_plain);
    text += std::to_string(i) + ",\"a, \"\"b\"\"\"," + lon_text + "," + lat_text + (i % 3 ? "\n" : "\r\n");
    if (i % 1000 == 7) text += "\n  \t\n";
    expected.push_back(std::strtod(lat_plain.c_str(), nullptr));
    expected.push_back(std::strtod(lon_plain.c_str(), nullptr));
  }
  const auto p = csv("spellings.csv", text);
  ASSERT_EQ(count_points(p), rows);
  EXPECT_EQ(read_points(p, 0, rows), expected);
  const std::vector<double> middle = read_points(p, 12345, 777);
  EXPECT_EQ(middle, std::vector<double>(expected.begin() + 2 * 12345, expected.begin() + 2 * (12345 + 777)));
  EXPECT_EQ(read_points(p, rows - 1, 1), std::vector<double>(expected.end() - 2, expected.end()));
}

TEST_F(KnnCsvRows, QuotedFieldsMayHoldCommasAndDoubledQuotes) {
  const auto p = csv("quoted.csv",
                     "\"na,me\",\"lat\",\"lon\"\n"
                     "\"Paris, France\",48.85,2.35\n"
                     "\"say \"\"hi\"\"\" , \" -1.5 \" ,\"2\"  \n");
  EXPECT_EQ(read_points(p, 0, count_points(p)), (std::vector<double>{48.85, 2.35, -1.5, 2}));
}

TEST_F(KnnCsvRows, MalformedRowsNameFileLineAndColumn) {
  const std::string f = folder_ + "/";
  EXPECT_EQ(error("open.csv", "lat,lon\n1,2\n\"3,4\n"),
            f + "open.csv:3:1: the quoted field that opens here is not closed on this line");
  EXPECT_EQ(error("open2.csv", "lat,lon\n\n1, \"2\n3,4\n"),
            f + "open2.csv:3:4: the quoted field that opens here is not closed on this line");
  EXPECT_EQ(error("header.csv", "\"lat,lon\n1,2\n"),
            f + "header.csv:1:1: the quoted field that opens here is not closed on this line");
  EXPECT_EQ(error("after.csv", "lat,lon\n\"1\"x,2\n"),
            f + "after.csv:2:4: expected a comma or the end of the line after the closing quote, got 'x'");
  EXPECT_EQ(error("after2.csv", "lat,lon\n1,\"2\" \"\n"),
            f + "after2.csv:2:7: expected a comma or the end of the line after the closing quote, got '\"'");
  EXPECT_EQ(error("many.csv", "lat,lon\n1,2\n1,2,3\n"),
            f + "many.csv:3:5: expected 2 fields as in the header, got 3");
  EXPECT_EQ(error("trailing.csv", "lat,lon\n1,2,\n"),
            f + "trailing.csv:2:5: expected 2 fields as in the header, got 3");
  EXPECT_EQ(error("few.csv", "lat,lon,name\n1,2,x\n1,2\r\n"),
            f + "few.csv:3:4: expected 3 fields as in the header, got 2");
  EXPECT_EQ(error("empty.csv", "name,lat,lon,elevation\n,1,,\n"),
            f + "empty.csv:2:4: field 3 (column 'lon') is empty");
  EXPECT_EQ(error("empty4.csv", "lon,x,lat\n , ,\"\"\n"),
            f + "empty4.csv:2:1: field 1 (column 'lon') is empty");
  EXPECT_EQ(error("empty2.csv", "lat,lon\n1, \n"),
            f + "empty2.csv:2:3: field 2 (column 'lon') is empty");
  EXPECT_EQ(error("empty3.csv", "lat,lon\n\"\",2\n"),
            f + "empty3.csv:2:1: field 1 (column 'lat') is empty");
  // The messages that name the data row stay as they were.
  EXPECT_EQ(error("short.csv", "id,lat,lon\n1,2\n"),
            f + "short.csv: row 1, column 'lon': the row has no value there (it has 2 fields)");
  EXPECT_EQ(error("inf.csv", "lat,lon\n1,2\n1,-inf\n"),
            f + "inf.csv: row 2, column 'lon': expected a longitude in [-180, 180] degrees, got -inf");
  EXPECT_EQ(error("nan.csv", "lat,lon\n\"NaN\",2\n"),
            f + "nan.csv: row 1, column 'lat': expected a latitude in [-90, 90] degrees, got NaN");
  EXPECT_EQ(error("hex.csv", "lat,lon\n0x1p2,1e999\n"),
            f + "hex.csv: row 1, column 'lon': expected a longitude in [-180, 180] degrees, got 1e999");
  EXPECT_EQ(error("word.csv", "lat,lon\n1,\"2 3\"\n"),
            f + "word.csv: row 1, column 'lon': expected a number, got '2 3'");
}

TEST_F(KnnCsvRows, EmptyFieldsAreAcceptedInColumnsNotRead) {
  // Station lists leave gaps (a missing elevation or name); only latitude and longitude must hold a value.
  const auto p = csv("gaps.csv",
                     "id,name,lat,elevation,lon\n"
                     ",Paris,48.85,,2.35\n"
                     "2,\"\", -1.5 ,  ,2\n"
                     "3,,10,\"\",-20\n");
  EXPECT_EQ(read_points(p, 0, count_points(p)), (std::vector<double>{48.85, 2.35, -1.5, 2, 10, -20}));
}

TEST_F(KnnCsvRows, OnlyTheRowsReadAreChecked) {
  // Each rank reads its own rows: a bad row outside them is another rank's to report.
  const auto p = csv("part.csv", "lat,lon\n1,2\n3,4\n\"5,6\n");
  EXPECT_EQ(count_points(p), 3);
  EXPECT_EQ(read_points(p, 0, 2), (std::vector<double>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace trident::knn
