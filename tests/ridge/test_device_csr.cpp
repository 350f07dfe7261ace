// The fused engine's device matrix (rows padded to packs, 16- or 32-bit indices, long rows
// cut into segments, column bands) and its row products, against a plain float64 loop; the
// row schedule's choices. The lane count, segment length and bands are parameters
// (ScheduleOptions), so the 32 lanes per row that GPUs use and the split and banded paths
// are checked on host back ends too.
#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/overrides.hpp"
#include "ridge/detail/csr.hpp"
#include "ridge/detail/device_csr.hpp"
#include "ridge/detail/row_products.hpp"
#include "ridge/detail/row_schedule.hpp"
#include "same_device_matrix.hpp"

namespace trident::ridge {
namespace {

// Stores each row's product and gives its square.
struct StoreRow {
  Kokkos::View<double*, RidgeDevice> y;
  KOKKOS_INLINE_FUNCTION double operator()(const int row, const double product) const {
    y(row) = product;
    return product * product;
  }
};

// Rows of every kind: empty, one entry, shorter than a pack, shorter than the lanes' packs,
// long ones, and entries at the last column.
HostCsr awkward_matrix(int rows, int columns, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<Triplet> t;
  for (int i = 0; i < rows; ++i) {
    const int kind = i % 5;
    if (kind == 0) continue;  // empty
    if (kind == 1) {
      t.push_back({i, static_cast<int>(rng() % columns), value(rng)});
      continue;
    }
    // Density 1/2, 1/40 or 1/700.
    const int spacing = kind == 2 ? 2 : kind == 3 ? 40 : 700;
    const auto step = [&] { return 1 + static_cast<int>(rng() % (2 * spacing)); };
    for (int c = static_cast<int>(rng() % spacing); c < columns; c += step())
      t.push_back({i, c, value(rng)});
    t.push_back({i, columns - 1, value(rng)});
  }
  return csr_from_triplets(rows, columns, t);
}

// Each row against a float64 loop over the values and x as the device holds them, and the
// sum of squares against the rows stored.
template <class M, class XHost, class YHost>
void expect_rows_match(const HostCsr& h, const XHost& xh, const YHost& yh, double sum_of_squares) {
  using S = typename XHost::non_const_value_type;

  const double eps = sizeof(M) == 4 || sizeof(S) == 4 ? 1.2e-7 : 2.3e-16;
  double sum_of_stored_squares = 0;  // what the reduction must give, from the rows stored
  for (int i = 0; i < h.rows; ++i) {
    double exact = 0, magnitude = 0;
    for (int k = h.row_ptr[i]; k < h.row_ptr[i + 1]; ++k) {
      const double term =
          static_cast<double>(static_cast<M>(h.values[k])) * static_cast<double>(xh(h.col_ind[k]));
      exact += term;
      magnitude += std::abs(term);
    }
    sum_of_stored_squares += yh(i) * yh(i);
    const double entries = h.row_ptr[i + 1] - h.row_ptr[i];
    EXPECT_NEAR(yh(i), exact, 4 * eps * (magnitude + 1e-300) * std::sqrt(entries + 1.0))
        << "row " << i;
  }
  EXPECT_NEAR(sum_of_squares, sum_of_stored_squares, 1e-12 * sum_of_stored_squares);
}

// Lane counts to try: on CUDA a row's lanes are threads of one warp (powers of two up to
// 32); host back ends run any count in turn, 3 among them to catch a sum that skips lanes.
std::vector<int> lane_counts() {
  if (kLanesAreWarpThreads) return {1, 4, 32};
  return {1, 3, 32};
}

// The products of the device matrix `m` of `h` against the float64 loop.
template <class M, class S>
void expect_device_products_match(const HostCsr& h, const DeviceCsr<M>& m) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> value(-2.0, 2.0);
  Kokkos::View<S*, RidgeDevice> x("x", h.columns);
  auto xh = Kokkos::create_mirror_view(x);
  for (int j = 0; j < h.columns; ++j) xh(j) = static_cast<S>(value(rng));
  Kokkos::deep_copy(x, xh);
  const RowProductScratch scratch({&m});
  Kokkos::View<double*, RidgeDevice> y("y", h.rows);
  const double sum_of_squares = row_products("test::product", m, x, StoreRow{y}, scratch);
  expect_rows_match<M>(h, xh, Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y), sum_of_squares);
}

template <class M, class S>
void expect_products_match(const HostCsr& h, int lanes, int segment_packs = 0) {
  SCOPED_TRACE("lanes " + std::to_string(lanes) + ", segments of " + std::to_string(segment_packs) +
               " packs, " + std::to_string(h.rows) + " x " +
               std::to_string(h.columns) + ", " + (sizeof(M) == 4 ? "float" : "double") + " matrix, " +
               (sizeof(S) == 4 ? "float" : "double") + " vector");
  const DeviceCsr<M> m(h, "test::A", lanes, segment_packs);
  ASSERT_EQ(m.narrow_indices(), h.columns <= 65536);
  ASSERT_EQ(m.split(), segment_packs > 0);  // every test matrix has rows longer than 5 packs
  expect_device_products_match<M, S>(h, m);
}

// `bands` column bands on any matrix (-1: none), with rows never cut into segments (a GPU
// would cut these few rows to fill itself, and cut rows are never banded) unless bands are
// off; `segments` as ScheduleOptions::row_segments otherwise.
ScheduleOptions forced_bands(int bands, int segments = 0) {
  ScheduleOptions o;
  o.column_bands = bands;
  o.bands_on_any_matrix = bands > 0;
  o.row_segments = bands > 0 ? -1 : segments;
  return o;
}

// Columns in 2, 3 or 7 bands (each row stored as its pieces, one work item per row and
// band, band 0 of every row first, the pieces' sums added in band order) give every row as
// the plain loop does, empty rows and empty pieces included.
TEST(DeviceCsr, BandedRowsMatchAFloat64LoopForAnyBandCount) {
  const HostCsr narrow = awkward_matrix(41, 3000, 8);
  const HostCsr wide = awkward_matrix(13, 70000, 9);
  for (const int bands : {2, 3, 7}) {
    const ScheduleOptions forced = forced_bands(bands);
    for (const int lanes : lane_counts()) {
      SCOPED_TRACE(std::to_string(bands) + " bands, " + std::to_string(lanes) + " lanes");
      const auto f = DeviceCsr<float>::scheduled(narrow, "test::A", lanes, 0, forced);
      ASSERT_EQ(f.bands, bands);
      EXPECT_EQ(f.work_items, 41 * bands);
      EXPECT_FALSE(f.split());
      expect_device_products_match<float, float>(narrow, f);
      expect_device_products_match<float, double>(narrow, f);
      expect_device_products_match<double, double>(narrow,
                                                   DeviceCsr<double>::scheduled(narrow, "test::A", lanes, 0, forced));
      expect_device_products_match<float, float>(wide, DeviceCsr<float>::scheduled(wide, "test::A", lanes, 0, forced));
    }
  }
}

// Two bands of 5 columns: each row's pieces padded to packs of 4 floats, in row order;
// the work items run band-major; the product reads the items' starts and ends.
TEST(DeviceCsr, BandsStoreEachRowAsItsPiecesAndRunBandByBand) {
  // Row 0: columns 0, 1, 7; row 1: none; row 2: columns 5..9.
  const HostCsr h = csr_from_triplets(3, 10, {{0, 0, 1.0}, {0, 1, 2.0}, {0, 7, 3.0}, {2, 5, 1.0}, {2, 6, 1.0},
                                              {2, 7, 1.0}, {2, 8, 1.0}, {2, 9, 1.0}});
  const auto m = DeviceCsr<float>::scheduled(h, "test::A", 1, 0, forced_bands(2));
  ASSERT_EQ(m.bands, 2);
  EXPECT_EQ(m.band_columns, 5);
  EXPECT_EQ(m.rows, 3);
  EXPECT_EQ(m.work_items, 6);
  EXPECT_EQ(m.stored, 4 + 4 + 0 + 0 + 0 + 8);
  const auto ints = [](const auto& v) {
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    return std::vector<int>(h.data(), h.data() + h.extent(0));
  };
  EXPECT_EQ(ints(m.row_ptr), (std::vector<int>{0, 4, 8, 8, 8, 8, 16}));  // pieces (0,0) (0,1) (1,0) (1,1) (2,0) (2,1)
  EXPECT_EQ(ints(m.work_begin), (std::vector<int>{0, 8, 8, 4, 8, 8}));    // band 0 of rows 0-2, then band 1
  EXPECT_EQ(ints(m.work_end), (std::vector<int>{4, 8, 8, 8, 8, 16}));
  EXPECT_EQ(ints(m.narrow), (std::vector<int>{0, 1, 1, 1, 7, 7, 7, 7, 5, 6, 7, 8, 9, 9, 9, 9}));
  EXPECT_EQ(m.product_bytes(), 16 * (4 + 2) + 2 * 6 * 4);
  EXPECT_NE(m.schedule.describe().find("columns in 2 bands of 5"), std::string::npos) << m.schedule.describe();
}

TEST(DeviceCsr, ProductsMatchAFloat64LoopForAnyLaneCount) {
  const HostCsr narrow = awkward_matrix(41, 3000, 1);
  const HostCsr wide = awkward_matrix(13, 70000, 2);  // columns past 16 bits: 32-bit indices
  for (const int lanes : lane_counts()) {
    expect_products_match<float, float>(narrow, lanes);
    expect_products_match<float, double>(narrow, lanes);
    expect_products_match<double, double>(narrow, lanes);
    expect_products_match<float, float>(wide, lanes);
    expect_products_match<double, double>(wide, lanes);
  }
}

// A lane count that the back end cannot run is refused when the matrix is made, naming it.
TEST(DeviceCsr, RefusesLaneCountsTheBackEndCannotRun) {
  const HostCsr h = awkward_matrix(5, 100, 5);
  for (const int lanes : {0, 3, 64}) {
    const bool runs = lanes > 0 && !kLanesAreWarpThreads;
    try {
      const DeviceCsr<float> m(h, "test::A", lanes);
      EXPECT_TRUE(runs) << lanes << " lanes accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_FALSE(runs) << e.what();
      EXPECT_EQ(std::string(e.what()), "test::A: " + std::to_string(lanes) +
                                           " lanes a row; expected 1 or more (on CUDA a power of two up to 32)");
    }
  }
}

// Long rows cut into segments of 1, 2 or 5 packs (each a work item of its own, the
// segments' sums added in order) give every row as the plain loop does, empty rows included.
TEST(DeviceCsr, SplitRowsMatchAFloat64LoopForAnySegmentLength) {
  const HostCsr narrow = awkward_matrix(41, 3000, 3);
  const HostCsr wide = awkward_matrix(13, 70000, 4);
  for (const int segment : {1, 2, 5}) {
    for (const int lanes : lane_counts()) {
      expect_products_match<float, float>(narrow, lanes, segment);
      expect_products_match<float, double>(narrow, lanes, segment);
      expect_products_match<double, double>(narrow, lanes, segment);
    }
    expect_products_match<float, float>(wide, 4, segment);
    expect_products_match<double, double>(wide, 2, segment);
  }
}

// Segments: rows of 0, 1, 7 and 3 packs cut at 3 packs. Each row's first segment is the
// item of its number (empty for the empty row); the 7-pack row's further segments follow
// the rows. The product reads the items' starts and ends and the long rows' lists.
TEST(DeviceCsr, CutsLongRowsIntoSegmentsOfWholePacks) {
  const RowSegments cut = cut_segments({0, 1, 7, 3}, 3);
  EXPECT_EQ(cut.begin, (std::vector<std::int64_t>{0, 0, 1, 8, 4, 7}));
  EXPECT_EQ(cut.end, (std::vector<std::int64_t>{0, 1, 4, 11, 7, 8}));
  EXPECT_EQ(cut.long_rows, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(cut.further_first, (std::vector<std::int64_t>{0, 2}));
  // Row 0: 1 entry (1 pack of 4), row 1: 9 entries (3 packs), row 2: none.
  std::vector<Triplet> t{{0, 5, 1.0}};
  for (int c = 0; c < 9; ++c) t.push_back({1, c, 1.0});
  const DeviceCsr<float> f(csr_from_triplets(3, 100, t), "t", 2, 2);
  ASSERT_TRUE(f.split());
  EXPECT_EQ(f.work_items, 4);  // 3 rows + 1 further segment
  EXPECT_EQ(f.stored, 16);
  // entries, item starts and ends, long rows and their segment offsets, one word of bits
  EXPECT_EQ(f.product_bytes(), 16 * (4 + 2) + (2 * 4 + 2 * 1 + 1 + 1) * 4);
  const auto ints = [](const auto& v) {
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    return std::vector<int>(h.data(), h.data() + h.extent(0));
  };
  EXPECT_EQ(ints(f.work_begin), (std::vector<int>{0, 4, 16, 12}));
  EXPECT_EQ(ints(f.work_end), (std::vector<int>{4, 12, 16, 16}));
  EXPECT_EQ(ints(f.long_rows), (std::vector<int>{1}));
  EXPECT_EQ(ints(f.further_first), (std::vector<int>{0, 1}));
  const auto bits = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.long_row_bits);
  ASSERT_EQ(bits.extent(0), 1u);
  EXPECT_EQ(bits(0), 2u);  // row 1
  // A segment as long as the longest row cuts nothing: the fast path.
  EXPECT_FALSE(DeviceCsr<float>(csr_from_triplets(3, 100, t), "t", 2, 3).split());
}

// Each of `bad` as the value of `variable` is refused by the one reader of the overrides,
// "VARIABLE: EXPECTED, got 'BAD'", before any schedule is made.
void expect_refused(const char* variable, std::initializer_list<const char*> bad, const std::string& expected) {
  for (const char* value : bad) {
    try {
      core::parse_overrides({std::string(variable) + "=" + value});
      ADD_FAILURE() << variable << "=" << value << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), std::string(variable) + ": " + expected + ", got '" + value + "'");
    }
  }
}

// The schedule options a deck's run takes from the environment.
ScheduleOptions from_environment(std::initializer_list<const char*> environment) {
  return ScheduleOptions::from_overrides(core::parse_overrides(std::vector<std::string>(environment.begin(), environment.end())));
}

// The schedule from row statistics: a lane per 4 entries of the mean row, up to the back
// end's most; rows cut only when the longest is far past the mean and past 16 packs per
// lane.
TEST(RowSchedule, CutsOnlySkewedRowsAndFitsLanesToTheMeanRow) {
  const std::vector<std::int64_t> even(1000, 4);
  RowSchedule s = choose_row_schedule(even, 16);
  EXPECT_EQ(s.lanes, 4);
  EXPECT_FALSE(s.split());
  EXPECT_EQ(s.segments, 1000);
  EXPECT_EQ(choose_row_schedule(std::vector<std::int64_t>(50, 375), 16).lanes, 16);  // the tutorial's rows
  EXPECT_EQ(choose_row_schedule(std::vector<std::int64_t>(50, 375), 1).lanes, 1);    // host back ends
  // A lane per 4 entries: packs of 2 doubles get half the lanes of packs of 4 floats.
  EXPECT_EQ(choose_row_schedule(std::vector<std::int64_t>(1000, 8), 32, 0, 2).lanes, 4);
  EXPECT_EQ(choose_row_schedule(std::vector<std::int64_t>(1000, 8), 32, 0, 4).lanes, 8);
  EXPECT_EQ(choose_row_schedule(std::vector<std::int64_t>(1000, 9), 32, 0, 2).lanes, 8);  // 4.5 rounds up

  std::vector<std::int64_t> skewed(1000, 4);
  skewed[7] = 32768;  // a dense row of 2^17 floats
  s = choose_row_schedule(skewed, 16);
  EXPECT_EQ(s.lanes, 16);  // mean 36.8 packs: the most lanes
  ASSERT_TRUE(s.split());
  EXPECT_EQ(s.segment_packs, 16 * s.lanes);
  EXPECT_EQ(s.segments, 999 + 32768 / (16 * s.lanes));
  EXPECT_NE(s.describe().find("cut into segments"), std::string::npos);

  // Even long rows (all 10x past 16 packs a lane, none skewed) stay whole, unless they are
  // too few to fill the device: 100 rows x 16 lanes against 2^17 threads.
  EXPECT_FALSE(choose_row_schedule(std::vector<std::int64_t>(100, 2560), 16).split());
  s = choose_row_schedule(std::vector<std::int64_t>(100, 2560), 16, 1 << 17);
  EXPECT_TRUE(s.split());
  EXPECT_EQ(s.segments, 100 * 10);
  EXPECT_FALSE(choose_row_schedule(std::vector<std::int64_t>(100, 2560), 16, 1600).split());
  // Many more packs than that: segments as long as still give twice the fill in threads
  // (1024 rows of 2^15 packs, 16 lanes, 2^17 threads: 2^14 items of 2048 packs).
  s = choose_row_schedule(std::vector<std::int64_t>(1024, 1 << 15), 16, 1 << 17);
  EXPECT_EQ(s.segment_packs, 2048);
  EXPECT_EQ(s.segments, 1024 * 16);
  // A row past 4096 segments' worth gets longer segments, whole strides of the lanes.
  std::vector<std::int64_t> huge(100000, 1);
  huge[0] = std::int64_t(1) << 24;
  s = choose_row_schedule(huge, 32);
  EXPECT_EQ(s.segment_packs, (std::int64_t(1) << 24) / 4096);
  EXPECT_EQ(s.segment_packs % s.lanes, 0);

  // Segments asked for: on any row longer, or never.
  ScheduleOptions o;
  o.row_segments = 2;
  EXPECT_EQ(choose_row_schedule(even, 16, 0, 4, o).segment_packs, 2);
  o.row_segments = -1;
  EXPECT_FALSE(choose_row_schedule(skewed, 16, 0, 4, o).split());
  o.row_segments = 0;
  EXPECT_TRUE(choose_row_schedule(skewed, 16, 0, 4, o).split());

  // The same from the environment, as a run reads it.
  EXPECT_FALSE(choose_row_schedule(skewed, 16, 0, 4, from_environment({"TRIDENT_RIDGE_ROW_SEGMENTS=off"})).split());
  EXPECT_EQ(choose_row_schedule(even, 16, 0, 4, from_environment({"TRIDENT_RIDGE_ROW_SEGMENTS=3"})).segment_packs, 3);
  EXPECT_TRUE(choose_row_schedule(skewed, 16, 0, 4, from_environment({"TRIDENT_RIDGE_ROW_SEGMENTS=auto"})).split());
  expect_refused("TRIDENT_RIDGE_ROW_SEGMENTS", {"0", "-2", "12x", "many", "99999999999"},
                 "expected auto, off or a segment length in packs (a positive integer)");

  // Lanes asked for, at most the back end's most.
  const int chosen = choose_row_schedule(even, 16).lanes;
  const ScheduleOptions two = from_environment({"TRIDENT_RIDGE_ROW_LANES=2"});
  EXPECT_EQ(choose_row_schedule(even, 16, 0, 4, two).lanes, 2);
  EXPECT_EQ(choose_row_schedule(even, 1, 0, 4, two).lanes, 1);
  EXPECT_EQ(choose_row_schedule(even, 16, 0, 4, from_environment({"TRIDENT_RIDGE_ROW_LANES=auto"})).lanes, chosen);
  expect_refused("TRIDENT_RIDGE_ROW_LANES", {"0", "3", "64", "4x", "many", "4294967300"},
                 "expected auto or lanes per row (1, 2, 4, 8, 16 or 32)");
}

// Column bands: none while the gathered vector fits half the cache (or on a host back end,
// cache 0); else a band per quarter of the cache, at most one per 16 entries of the mean row.
TEST(RowSchedule, BandsColumnsOnlyWhenTheGatheredVectorOutgrowsTheCache) {
  const std::int64_t l2 = 50 << 20;  // an H200's
  EXPECT_EQ(choose_column_bands(1 << 20, 4, 128, l2), 1);    // 4 MB of float
  EXPECT_EQ(choose_column_bands(1 << 23, 4, 128, l2), 3);    // 32 MB: 2.6 quarters
  EXPECT_EQ(choose_column_bands(1 << 23, 8, 128, l2), 6);    // 64 MB of double
  EXPECT_EQ(choose_column_bands(1 << 23, 8, 40, l2), 2);     // rows of 40: at most 2
  EXPECT_EQ(choose_column_bands(1 << 23, 8, 20, l2), 1);     // rows of 20: pieces too short
  EXPECT_EQ(choose_column_bands(1 << 23, 4, 128, 0), 1);     // host back ends
  EXPECT_EQ(choose_column_bands(1 << 23, 0, 128, l2), 1);    // vector unknown
  EXPECT_EQ(choose_column_bands(1 << 23, 4, 128, l2, from_environment({"TRIDENT_RIDGE_COLUMN_BANDS=off"})), 1);
  const ScheduleOptions five = from_environment({"TRIDENT_RIDGE_COLUMN_BANDS=5"});  // the count where bands are used
  EXPECT_EQ(choose_column_bands(1 << 23, 4, 128, l2, five), 5);
  EXPECT_EQ(choose_column_bands(1 << 20, 4, 128, l2, five), 1);
  EXPECT_EQ(choose_column_bands(1 << 23, 4, 20, l2, five), 1);
  EXPECT_EQ(choose_column_bands(1 << 23, 4, 128, l2, forced_bands(-1)), 1);
  // bands on any matrix, never more than columns
  EXPECT_EQ(choose_column_bands(1 << 10, 4, 2, 0, forced_bands(4)), 4);
  EXPECT_EQ(choose_column_bands(3, 4, 2, 0, forced_bands(4)), 3);
  EXPECT_EQ(choose_column_bands(1 << 23, 4, 128, l2, from_environment({"TRIDENT_RIDGE_COLUMN_BANDS=auto"})), 3);
  expect_refused("TRIDENT_RIDGE_COLUMN_BANDS", {"0", "-3", "2x", "many", "99999999999"},
                 "expected auto, off or a number of column bands (a positive integer)");

  // Rows whose columns lie close together (banded, block diagonal) would leave most pieces
  // empty: no bands. Rows over all of them (uniform, or most pieces full): bands.
  EXPECT_TRUE(rows_spread_over_bands({5, 4, 6, 3, 3, 2, 0, 0, 0}, 3));     // an empty row does not count
  EXPECT_TRUE(rows_spread_over_bands({5, 4, 0, 3, 3, 2, 1, 1, 1}, 3));     // 8 of 9: 3/4 or more
  EXPECT_FALSE(rows_spread_over_bands({9, 0, 0, 0, 8, 1, 0, 0, 7}, 3));    // 4 of 9
  EXPECT_FALSE(rows_spread_over_bands({9, 0, 0, 0, 8, 1, 0, 0, 7}, 3, five));
  // bands asked for on any matrix are kept on any matrix
  EXPECT_TRUE(rows_spread_over_bands({9, 0, 0, 0, 8, 1, 0, 0, 7}, 3, forced_bands(3)));
}

// Rows pad to whole packs of 16 bytes with zeros; the bytes a product reads count them.
TEST(DeviceCsr, PadsRowsToPacksAndCountsTheBytesAProductReads) {
  // Row 0: one entry, row 1: five, row 2: none.
  const HostCsr h = csr_from_triplets(3, 700, {{0, 9, 1.0}, {1, 0, 2.0}, {1, 1, 3.0}, {1, 2, 4.0},
                                               {1, 600, 5.0}, {1, 699, 6.0}});
  const DeviceCsr<float> f(h, "t", 1);  // packs of 4: 4 + 8 + 0 entries
  EXPECT_EQ(f.stored, 12);
  EXPECT_EQ(f.product_bytes(), 12 * (4 + 2) + 4 * 4);
  const DeviceCsr<double> d(h, "t", 1);  // packs of 2: 2 + 6 + 0
  EXPECT_EQ(d.stored, 8);
  EXPECT_EQ(d.product_bytes(), 8 * (8 + 2) + 4 * 4);
  const DeviceCsr<float> w(csr_from_triplets(1, 70000, {{0, 69999, 1.0}}), "t", 1);
  EXPECT_EQ(w.product_bytes(), 4 * (4 + 4) + 2 * 4);  // 32-bit indices
  // The padding repeats the row's last column with value 0.
  auto rp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.row_ptr);
  auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.narrow);
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.values);
  EXPECT_EQ((std::vector<int>{rp(0), rp(1), rp(2), rp(3)}), (std::vector<int>{0, 4, 12, 12}));
  for (int k = 1; k < 4; ++k) {
    EXPECT_EQ(c(k), 9);
    EXPECT_EQ(v(k), 0.0f);
  }
  for (int k = 9; k < 12; ++k) {
    EXPECT_EQ(c(k), 699);
    EXPECT_EQ(v(k), 0.0f);
  }
}

using test::expect_same_device_matrix;

// The transpose built straight into the device layout equals, array for array, the device
// matrix of ridge::transpose's HostCsr: columns ascending within each row of A^T (so the
// sums keep their order), the same padding, schedule and segments; both index widths
// (A^T has 32-bit indices past 65536 rows of A), dense columns of A (long rows of A^T),
// empty rows and columns, float and double.

HostCsr dense_columns(int rows, int columns, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<Triplet> t;
  for (int i = 0; i < rows; ++i) {
    if (i % 7 == 3) continue;  // an empty row of A: a column of A^T that no row reaches
    for (int c = 0; c < 3; ++c) t.push_back({i, c, value(rng)});  // columns 0..2 of A full
    t.push_back({i, 3 + static_cast<int>(rng() % (columns - 4)), value(rng)});  // the last column stays empty
  }
  return csr_from_triplets(rows, columns, t);
}

TEST(DeviceCsr, TransposeBuiltDirectlyEqualsTheTransposedHostMatrix) {
  const std::vector<HostCsr> matrices{awkward_matrix(300, 1000, 5), awkward_matrix(70001, 30, 6),
                                      dense_columns(5000, 200, 7)};
  for (const auto [segments, bands] : {std::pair{-1, -1}, std::pair{2, -1}, std::pair{-1, 3}}) {
    const ScheduleOptions o = forced_bands(bands, segments);
    for (const HostCsr& a : matrices) {
      for (const int lanes : {1, 4}) {
        SCOPED_TRACE(std::to_string(a.rows) + " x " + std::to_string(a.columns) + ", " + std::to_string(lanes) +
                     " lanes, segments " + std::to_string(segments) + ", bands " + std::to_string(bands));
        EXPECT_EQ(DeviceCsr<float>::transpose_of(a, "t", lanes, 0, o).bands, bands > 0 ? bands : 1);
        expect_same_device_matrix(DeviceCsr<float>::transpose_of(a, "t", lanes, 0, o),
                                  DeviceCsr<float>::scheduled(transpose(a), "t", lanes, 0, o));
        expect_same_device_matrix(DeviceCsr<double>::transpose_of(a, "t", lanes, 0, o),
                                  DeviceCsr<double>::scheduled(transpose(a), "t", lanes, 0, o));
      }
    }
  }
  // Large enough that the passes over A split its rows among the CPUs (on 2 or more).
  const HostCsr big = dense_columns(40000, 300, 8);
  for (const int bands : {-1, 3}) {
    const ScheduleOptions o = forced_bands(bands);
    expect_same_device_matrix(DeviceCsr<float>::transpose_of(big, "t", 4, 0, o),
                              DeviceCsr<float>::scheduled(transpose(big), "t", 4, 0, o));
  }
  ASSERT_TRUE(DeviceCsr<float>::transpose_of(matrices[2], "t", 1).wide.extent(0) == 0);  // narrow: 5000 rows of A
  ASSERT_TRUE(DeviceCsr<float>::transpose_of(matrices[1], "t", 1).narrow.extent(0) == 0);  // wide: 70001
}

}  // namespace
}  // namespace trident::ridge
