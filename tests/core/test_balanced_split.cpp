// core::balanced_part and its inverse core::balanced_owner (the split of a knn run's
// observations and of diffusion's axes over ranks): the parts tile the items in order,
// counts differ by at most one, and balanced_owner names the part of every item, on the
// host and in a kernel.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "core/balanced_split.hpp"

namespace trident {
namespace {

using core::balanced_owner;
using core::balanced_part;
using core::BalancedPart;

TEST(BalancedSplit, PartsTileTheItemsInOrderWithCountsOneApart) {
  for (std::int64_t n = 0; n <= 70; ++n) {
    for (int parts = 1; parts <= 13; ++parts) {
      std::int64_t next = 0;
      for (int p = 0; p < parts; ++p) {
        const BalancedPart e = balanced_part(n, parts, p);
        ASSERT_EQ(e.first, next) << n << " items, part " << p << " of " << parts;
        ASSERT_TRUE(e.count == n / parts || e.count == n / parts + 1);
        ASSERT_EQ(e.count == n / parts + 1, p < n % parts) << "the first n % parts parts take one more";
        next += e.count;
      }
      ASSERT_EQ(next, n) << parts << " parts";
    }
  }
}

TEST(BalancedSplit, OwnerInvertsTheSplit) {
  for (std::int64_t n = 1; n <= 70; ++n) {
    for (int parts = 1; parts <= 13; ++parts) {
      for (int p = 0; p < parts; ++p) {
        const BalancedPart e = balanced_part(n, parts, p);
        for (std::int64_t i = e.first; i < e.first + e.count; ++i)
          ASSERT_EQ(balanced_owner(n, parts, i), p) << "item " << i << " of " << n << ", " << parts << " parts";
      }
    }
  }
}

TEST(BalancedSplit, OwnerInvertsTheSplitBeyond32Bits) {
  const std::int64_t n = (std::int64_t{1} << 40) + 7;
  for (int parts : {3, 8, 1000}) {
    for (int p = 0; p < parts; ++p) {
      const BalancedPart e = balanced_part(n, parts, p);
      EXPECT_EQ(balanced_owner(n, parts, e.first), p);
      EXPECT_EQ(balanced_owner(n, parts, e.first + e.count - 1), p);
    }
  }
}

// Items whose owner's part, by balanced_owner in a kernel, does not hold them. A free
// function: CUDA allows no device lambda in a test body (a private member function).
int misplaced_in_a_kernel(std::int64_t n, int parts) {
  int wrong = 0;
  Kokkos::parallel_reduce(
      "trident::test::balanced_owner", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(std::int64_t i, int& bad) {
        const BalancedPart e = balanced_part(n, parts, balanced_owner(n, parts, i));
        if (i < e.first || i >= e.first + e.count) ++bad;
      },
      wrong);
  return wrong;
}

// diffusion's slab exchange calls both inside kernels: the device build must agree too.
TEST(BalancedSplit, OwnerInvertsTheSplitInAKernel) {
  EXPECT_EQ(misplaced_in_a_kernel(1009, 12), 0);
  EXPECT_EQ(misplaced_in_a_kernel(12, 12), 0);
}

}  // namespace
}  // namespace trident
