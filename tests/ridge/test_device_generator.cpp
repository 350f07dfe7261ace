// The generated matrix's rows made on the device (device_generator.hpp) against the host
// generator, bit for bit: rows drawn into a bitmap and into a list, on either side of the
// host's choice between them, blocks of rows, empty rows, nearly full rows, a bitmap too
// large for a team's fast scratch; and a ridge problem loaded with its rows made on the
// device, swept, against the same problem made on the host. On host back ends the kernel
// runs there too, so CI checks it.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/overrides.hpp"
#include "ridge/device_generator.hpp"
#include "ridge/generator.hpp"
#include "ridge/lsmr_sweep.hpp"
#include "ridge/matrix_rows.hpp"
#include "ridge/problem.hpp"

namespace trident::ridge {
namespace {

struct Case {
  int rows, columns;
  double density;
  std::int64_t first, count;
};

template <class V>
std::vector<typename V::value_type> on_host(const V& v) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<typename V::value_type>(h.data(), h.data() + h.extent(0));
}

template <class A, class B>
bool same_bits(const A& a, const B& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(*a.data())) == 0;
}

TEST(DeviceGenerator, RowsMadeOnTheDeviceAreTheHostGeneratorsBitForBit) {
  const std::vector<Case> cases = {
      {300, 1000, 0.05, 0, 300},            // 50 a row of 16 words: a bitmap
      {500, 200000, 0.0005, 0, 500},        // 100 a row of 3125 words: a list
      {50, 70, 0.9, 0, 50},                 // nearly every column
      {1000, 5, 0.5, 0, 1000},              // a word, 2 or 3 a row
      {40, 3000, 0.3, 7, 20},               // a block of rows
      {700, 100000, 0.00002, 13, 600},      // 2 a row, a block
      {100, 40, 0.004, 0, 100},             // 16 nonzeros: most rows empty
      {200, 6400, 0.001015625, 0, 200},     // 6 or 7 of 100 words: a list, then a bitmap
      {4, 3000000, 0.001, 0, 4},            // a bitmap of 375 KB
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.rows) + " x " + std::to_string(c.columns) + " at " + std::to_string(c.density) +
                 ", rows " + std::to_string(c.first) + " + " + std::to_string(c.count));
    const HostCsr want = generate_matrix_rows(c.rows, c.columns, c.density, 5, c.first, c.count);
    HostCsr got;
    const auto entries = generate_rows_on_device(c.rows, c.columns, c.density, 5, c.first, c.count, got);
    ASSERT_NE(entries, nullptr);
    EXPECT_GT(want.nonzeros(), 0);
    EXPECT_EQ(got.rows, want.rows);
    EXPECT_EQ(got.columns, want.columns);
    EXPECT_TRUE(same_bits(got.row_ptr, want.row_ptr));
    EXPECT_TRUE(same_bits(got.col_ind, want.col_ind));
    EXPECT_TRUE(same_bits(got.values, want.values));
    EXPECT_TRUE(same_bits(on_host(entries->row_ptr), want.row_ptr));
    EXPECT_TRUE(same_bits(on_host(entries->col_ind), want.col_ind));
    EXPECT_TRUE(same_bits(on_host(entries->values), want.values));
    EXPECT_TRUE(same_bits(on_host(entries->by_column), on_host(DeviceEntries(want).by_column)));
  }
}

// load_rows with the rows made on the device: the same problem on the host, its entries
// kept on the device, and the fused engine's sweep from them the host-made problem's.
TEST(DeviceGenerator, ProblemGeneratedOnTheDeviceSweepsAsTheHostOne) {
  deck::RidgeSettings s;
  s.matrix.kind = deck::RidgeMatrixSettings::Kind::generate;
  s.matrix.rows = 400;
  s.matrix.columns = 150;
  s.matrix.density = 0.2;
  s.matrix.seed = 21;
  s.rhs.kind = deck::RidgeRhsSettings::Kind::generate;
  const MatrixRows rows(s.matrix, MPI_COMM_SELF);
  const Problem host = load_rows(s, rows, 0, 400);
  const Problem device = load_rows(s, rows, 0, 400, true);
  EXPECT_EQ(host.a_on_device, nullptr);
  ASSERT_NE(device.a_on_device, nullptr);
  EXPECT_TRUE(same_bits(device.a.col_ind, host.a.col_ind));
  EXPECT_TRUE(same_bits(device.a.values, host.a.values));
  EXPECT_TRUE(same_bits(device.b, host.b));
  LsmrOptions options;
  options.atol = options.btol = 1e-9;
  const EngineOptions off = EngineOptions::from_overrides(core::parse_overrides({"TRIDENT_RIDGE_DEVICE_SETUP=off"}));
  for (const core::Precision precision : {core::Precision::float64, core::Precision::float32}) {
    SweepSolver from_device(device, precision);
    SweepSolver from_host(host, precision, deck::RidgeKernels::fused, nullptr, off);
    EXPECT_NE(from_device.product_layout().find("entries placed on the device"), std::string::npos);
    const SweepOutcome a = from_device.solve({0.05, 5.0}, options, true);
    const SweepOutcome b = from_host.solve({0.05, 5.0}, options, true);
    EXPECT_GT(a.shared_iterations, 10);
    EXPECT_EQ(a.shared_iterations, b.shared_iterations);
    EXPECT_EQ(a.solutions, b.solutions);
  }
}

}  // namespace
}  // namespace trident::ridge
