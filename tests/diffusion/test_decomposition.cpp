// split() and its inverse split_owner(): the parts tile the axis in order, sizes differ by at
// most one, and split_owner names the part of every cell, on the host and in a kernel.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "diffusion/decomposition.hpp"

namespace trident {
namespace {

using diffusion::Extent;
using diffusion::split;
using diffusion::split_owner;

TEST(Split, PartsTileTheAxisInOrderWithSizesOneApart) {
  for (std::int64_t cells = 0; cells <= 70; ++cells) {
    for (int parts = 1; parts <= 13; ++parts) {
      std::int64_t next = 0;
      for (int p = 0; p < parts; ++p) {
        const Extent e = split(cells, parts, p);
        ASSERT_EQ(e.offset, next) << cells << " cells, part " << p << " of " << parts;
        ASSERT_TRUE(e.size == cells / parts || e.size == cells / parts + 1);
        next += e.size;
      }
      ASSERT_EQ(next, cells) << parts << " parts";
    }
  }
}

TEST(Split, OwnerInvertsSplit) {
  for (std::int64_t cells = 1; cells <= 70; ++cells) {
    for (int parts = 1; parts <= 13; ++parts) {
      for (int p = 0; p < parts; ++p) {
        const Extent e = split(cells, parts, p);
        for (std::int64_t c = e.offset; c < e.offset + e.size; ++c)
          ASSERT_EQ(split_owner(cells, parts, c), p) << "cell " << c << " of " << cells << ", " << parts << " parts";
      }
    }
  }
}

TEST(Split, OwnerInvertsSplitOnAxesBeyond32Bits) {
  const std::int64_t cells = (std::int64_t{1} << 40) + 7;
  for (int parts : {3, 8, 1000}) {
    for (int p = 0; p < parts; ++p) {
      const Extent e = split(cells, parts, p);
      EXPECT_EQ(split_owner(cells, parts, e.offset), p);
      EXPECT_EQ(split_owner(cells, parts, e.offset + e.size - 1), p);
    }
  }
}

// Cells whose owner's part, by split_owner in a kernel, does not hold them. A free function:
// CUDA allows no device lambda in a test body (a private member function).
int misplaced_in_a_kernel(std::int64_t cells, int parts) {
  int wrong = 0;
  Kokkos::parallel_reduce(
      "trident::test::split_owner", Kokkos::RangePolicy<>(0, cells),
      KOKKOS_LAMBDA(std::int64_t c, int& bad) {
        const Extent e = split(cells, parts, split_owner(cells, parts, c));
        if (c < e.offset || c >= e.offset + e.size) ++bad;
      },
      wrong);
  return wrong;
}

// The slab exchange calls split_owner inside kernels: the device build must agree too.
TEST(Split, OwnerInvertsSplitInAKernel) {
  EXPECT_EQ(misplaced_in_a_kernel(1009, 12), 0);
  EXPECT_EQ(misplaced_in_a_kernel(12, 12), 0);
}

}  // namespace
}  // namespace trident
