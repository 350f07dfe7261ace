// The fused engine's device matrix (rows padded to packs, 16- or 32-bit indices) and its
// row products, against a plain float64 loop. The lane count is a parameter, so the 32
// lanes per row that GPUs use are checked on host back ends too.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ridge/csr.hpp"
#include "ridge/device_csr.hpp"

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

template <class M, class S>
void expect_products_match(const HostCsr& h, int lanes) {
  SCOPED_TRACE("lanes " + std::to_string(lanes) + ", " + std::to_string(h.rows) + " x " +
               std::to_string(h.columns) + ", " + (sizeof(M) == 4 ? "float" : "double") + " matrix, " +
               (sizeof(S) == 4 ? "float" : "double") + " vector");
  const DeviceCsr<M> m(h, "test::A", lanes);
  ASSERT_EQ(m.narrow_indices(), h.columns <= 65536);

  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> value(-2.0, 2.0);
  Kokkos::View<S*, RidgeDevice> x("x", h.columns);
  auto xh = Kokkos::create_mirror_view(x);
  for (int j = 0; j < h.columns; ++j) xh(j) = static_cast<S>(value(rng));
  Kokkos::deep_copy(x, xh);
  const RowProductScratch<LaneSum<M, S>> scratch(h.rows, lanes);
  Kokkos::View<double*, RidgeDevice> y("y", h.rows);
  const double sum_of_squares = row_products("test::product", m, x, StoreRow{y}, scratch);
  expect_rows_match<M>(h, xh, Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y), sum_of_squares);
}

TEST(DeviceCsr, ProductsMatchAFloat64LoopForAnyLaneCount) {
  const HostCsr narrow = awkward_matrix(41, 3000, 1);
  const HostCsr wide = awkward_matrix(13, 70000, 2);  // columns past 16 bits: 32-bit indices
  for (const int lanes : {1, 3, 32}) {
    expect_products_match<float, float>(narrow, lanes);
    expect_products_match<float, double>(narrow, lanes);
    expect_products_match<double, double>(narrow, lanes);
    expect_products_match<float, float>(wide, lanes);
    expect_products_match<double, double>(wide, lanes);
  }
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

}  // namespace
}  // namespace trident::ridge
