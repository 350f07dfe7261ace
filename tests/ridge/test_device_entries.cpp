// A's and A^T's device layouts filled on the device from A's entries there
// (device_entries.hpp) against the host's fill, array by array and bit for bit: whole
// rows, rows cut into segments, column bands, 16- and 32-bit indices, float and double;
// and a sweep of the fused engine with its set-up on the device against one on the host.
// On host back ends the device path runs there too, so CI checks it; on a GPU the sort by
// column is the device's.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/overrides.hpp"
#include "ridge/detail/csr.hpp"
#include "ridge/detail/device_csr.hpp"
#include "ridge/detail/device_entries.hpp"
#include "ridge/detail/generator.hpp"
#include "ridge/detail/lsmr_sweep.hpp"
#include "ridge/detail/problem.hpp"
#include "same_device_matrix.hpp"

namespace trident::ridge {
namespace {

// Rows of 0 to `most` entries at random columns, some at column 0 and the last, a column
// every row reaches (a long row of A^T), and values of both signs, some tiny (subnormal
// in float) and some large.
HostCsr uneven_matrix(int rows, int columns, int most, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<Triplet> t;
  for (int i = 0; i < rows; ++i) {
    const int count = static_cast<int>(rng() % static_cast<std::uint64_t>(most + 1));
    for (int e = 0; e < count; ++e) {
      double v = value(rng);
      if (e % 11 == 5) v *= 1e-41;
      if (e % 13 == 7) v *= 3e38;
      t.push_back({i, static_cast<int>(rng() % static_cast<std::uint64_t>(columns)), v});
    }
    if (i % 3 == 0) t.push_back({i, columns / 2, value(rng)});
    if (i % 17 == 0) t.push_back({i, 0, value(rng)});
    if (i % 19 == 0) t.push_back({i, columns - 1, value(rng)});
  }
  return csr_from_triplets(rows, columns, t);  // sums the repeated columns
}

template <class M>
void expect_device_fill_matches(const HostCsr& a, const DeviceEntries& entries, const ScheduleOptions& o, int lanes) {
  test::expect_same_device_matrix(DeviceCsr<M>::scheduled(a, "A", lanes, sizeof(float), o, &entries),
                     DeviceCsr<M>::scheduled(a, "A", lanes, sizeof(float), o));
  test::expect_same_device_matrix(DeviceCsr<M>::transpose_of(a, "At", lanes, sizeof(float), o, &entries),
                     DeviceCsr<M>::transpose_of(a, "At", lanes, sizeof(float), o));
}

TEST(DeviceEntries, FillOnTheDeviceStoresTheHostFillsBits) {
  // narrow (columns and rows <= 65536) and wide indices both ways; more rows than the host
  // passes' one-part minimum, so that their ranges of rows split over the CPUs
  const std::vector<HostCsr> matrices{uneven_matrix(700, 300, 12, 1), uneven_matrix(90000, 40, 6, 2),
                                      uneven_matrix(300, 70000, 40, 3), uneven_matrix(1, 5, 3, 4)};
  for (const HostCsr& a : matrices) {
    const DeviceEntries entries(a);
    for (const auto [segments, bands] : {std::pair{-1, -1}, std::pair{2, -1}, std::pair{-1, 2}, std::pair{-1, 5}}) {
      ScheduleOptions o;
      o.column_bands = bands;
      o.bands_on_any_matrix = bands > 0;
      o.row_segments = segments;
      for (const int lanes : {1, 4}) {
        SCOPED_TRACE(std::to_string(a.rows) + " x " + std::to_string(a.columns) + ", segments " +
                     std::to_string(segments) + ", bands " + std::to_string(bands) + ", lanes " +
                     std::to_string(lanes));
        expect_device_fill_matches<float>(a, entries, o, lanes);
        expect_device_fill_matches<double>(a, entries, o, lanes);
      }
    }
  }
}

TEST(DeviceEntries, EntriesByColumnKeepTheRowsAscending) {
  const HostCsr a = uneven_matrix(5000, 64, 9, 5);
  const DeviceEntries entries(a);
  const auto order = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), entries.by_column);
  ASSERT_EQ(static_cast<std::int64_t>(order.extent(0)), a.nonzeros());
  std::vector<int> row_of(static_cast<std::size_t>(a.nonzeros()));
  for (int i = 0; i < a.rows; ++i)
    for (int k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) row_of[static_cast<std::size_t>(k)] = i;
  std::vector<char> seen(row_of.size(), 0);
  for (std::size_t p = 0; p < order.extent(0); ++p) {
    const int k = order(p);
    ASSERT_GE(k, 0);
    ASSERT_LT(k, a.nonzeros());
    ASSERT_FALSE(seen[static_cast<std::size_t>(k)]) << "entry " << k << " twice";
    seen[static_cast<std::size_t>(k)] = 1;
    if (p == 0) continue;
    const int before = order(p - 1);
    const int c = a.col_ind[static_cast<std::size_t>(k)], cb = a.col_ind[static_cast<std::size_t>(before)];
    ASSERT_TRUE(cb < c || (cb == c && row_of[static_cast<std::size_t>(before)] < row_of[static_cast<std::size_t>(k)]))
        << "at " << p;
  }
}

// The fused engine placed on the device and on the host: the same sweep, bit for bit.
TEST(DeviceEntries, SweepWithTheSetUpOnTheDeviceIsTheHostSetUpsSweep) {
  Problem p;
  p.a = generate_matrix(400, 150, 0.2, 21);
  p.b = generate_rhs(400, 0.5, 2.0, 22);
  LsmrOptions options;
  options.atol = options.btol = 1e-9;
  const std::vector<double> lambdas = {0.05, 5.0};
  for (const core::Precision precision : {core::Precision::float64, core::Precision::float32}) {
    const EngineOptions on = EngineOptions::from_overrides(core::parse_overrides({"TRIDENT_RIDGE_DEVICE_SETUP=on"}));
    const EngineOptions off = EngineOptions::from_overrides(core::parse_overrides({"TRIDENT_RIDGE_DEVICE_SETUP=off"}));
    SweepSolver device(p, precision, ridge::RidgeKernels::fused, nullptr, on);
    SweepSolver host(p, precision, ridge::RidgeKernels::fused, nullptr, off);
    EXPECT_NE(device.product_layout().find("entries placed on the device"), std::string::npos)
        << device.product_layout();
    EXPECT_NE(host.product_layout().find("entries placed on the host"), std::string::npos) << host.product_layout();
    const SweepOutcome a = device.solve(lambdas, options, true);
    const SweepOutcome b = host.solve(lambdas, options, true);
    EXPECT_GT(a.shared_iterations, 10);
    EXPECT_EQ(a.shared_iterations, b.shared_iterations);
    EXPECT_EQ(a.solutions, b.solutions);
  }
}

}  // namespace
}  // namespace trident::ridge
