// The ordered sum of the ridge finishing passes (ridge/detail/ordered_sum.hpp): one warp ends it,
// the total matches a float64 loop, and it is the same bits launch after launch.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "ridge/detail/ordered_sum.hpp"

namespace trident::ridge {
namespace {

// Thread t adds values(t) (0 past the values); the warp that ends last stores the total
// and counts itself.
struct AddValues {
  Kokkos::View<const double*, RidgeDevice> values;
  OrderedSum sum;
  std::int64_t threads;
  Kokkos::View<double, RidgeDevice> total;
  Kokkos::View<int, RidgeDevice> finishers;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t t) const {
    const double value = t < static_cast<std::int64_t>(values.extent(0)) ? values(t) : 0.0;
    double all = 0;
    if (!sum.add(t, threads, value, all)) return;
    if (warp_lane(t) == 0) {
      total() = all;
      Kokkos::atomic_add(&finishers(), 1);
    }
  }
};

struct Launched {
  double total;
  int finishers;
};

Launched add_all(const std::vector<double>& host_values, const OrderedSum& sum) {
  Kokkos::View<double*, RidgeDevice> values("values", host_values.size());
  auto h = Kokkos::create_mirror_view(values);
  for (std::size_t i = 0; i < host_values.size(); ++i) h(i) = host_values[i];
  Kokkos::deep_copy(values, h);
  const std::int64_t threads = OrderedSum::padded(std::max<std::int64_t>(1, h.extent(0)));
  Kokkos::View<double, RidgeDevice> total("total");
  Kokkos::View<int, RidgeDevice> finishers("finishers");
  Kokkos::parallel_for("test::ordered_sum", Kokkos::RangePolicy<RidgeExec, Kokkos::IndexType<std::int64_t>>(0, threads),
                       AddValues{values, sum, threads, total, finishers});
  Launched out{};
  Kokkos::deep_copy(out.total, total);
  Kokkos::deep_copy(out.finishers, finishers);
  return out;
}

// Counts that fill part of a warp, one warp, one group (64 warps of 32 on CUDA, 64 threads
// elsewhere) and a little more, many groups with a partial last one, and more groups than
// a warp's lanes can add in one batch.
const std::int64_t kCounts[] = {1, 31, 32, 33, 64, 65, 2048, 2049, 64 * 64 * 32 + 7, 3 * 64 * 64 * 32 * 32 + 100};

TEST(OrderedSum, IntegersAddUpExactlyAndOneWarpEndsEachLaunch) {
  const OrderedSum sum(kCounts[std::size(kCounts) - 1]);
  for (const std::int64_t n : kCounts) {
    SCOPED_TRACE(std::to_string(n) + " values");
    std::vector<double> values(static_cast<std::size_t>(n));
    double expected = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      values[i] = static_cast<double>((i * 7919) % 1000 - 300);  // sums exact in double
      expected += values[i];
    }
    const Launched got = add_all(values, sum);
    EXPECT_EQ(got.finishers, 1);
    EXPECT_EQ(got.total, expected);
  }
}

TEST(OrderedSum, RandomValuesMatchAFloat64LoopAndRepeatBitForBit) {
  const OrderedSum sum(kCounts[std::size(kCounts) - 1]);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> value(-1.0, 3.0);
  for (const std::int64_t n : kCounts) {
    SCOPED_TRACE(std::to_string(n) + " values");
    std::vector<double> values(static_cast<std::size_t>(n));
    long double expected = 0;  // with a compensation term: a reference more exact than the sum tested
    long double carry = 0;
    double magnitude = 0;
    for (double& v : values) {
      v = value(rng);
      const long double y = v - carry, t = expected + y;
      carry = (t - expected) - y;
      expected = t;
      magnitude += std::abs(v);
    }
    // A value passes through at most 5 + 64 + 5 additions in its warp and group, and one
    // per group in the last sum (on host back ends, where a warp is one thread: 64 and n / 64).
    const double additions = 128.0 + static_cast<double>(n) / 64.0;
    const Launched first = add_all(values, sum);
    EXPECT_NEAR(first.total, static_cast<double>(expected), additions * 2.3e-16 * magnitude);
    // The counts went back to zero: the next launches finish once each, with the same bits.
    for (int again = 0; again < 3; ++again) {
      const Launched next = add_all(values, sum);
      EXPECT_EQ(next.finishers, 1);
      EXPECT_EQ(next.total, first.total);
    }
  }
}

}  // namespace
}  // namespace trident::ridge
