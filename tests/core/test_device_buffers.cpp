// Device buffers kept between uses (core/device_buffers.hpp): views of different names never
// share memory, a buffer is reused while it is large enough and grows when a use wants more,
// held() counts every byte kept, and the instances it hands out are usable.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "core/device_buffers.hpp"

namespace trident {
namespace {

using Memory = core::DeviceBuffers::Memory;
using Ints = Kokkos::View<std::int32_t*, Memory>;
using Doubles = Kokkos::View<double**, Kokkos::LayoutRight, Memory>;

// Fills every view with its own value on the device and reads them all back: views that
// overlapped would read another's value.
TEST(DeviceBuffers, ViewsOfDifferentNamesHoldTheirOwnValues) {
  core::DeviceBuffers buffers;
  const Ints a = buffers.view<Ints>("a", 1000);
  const Doubles b = buffers.view<Doubles>("b", 30, 7);
  const Ints c = buffers.view<Ints>("c", 1);
  ASSERT_EQ(a.extent(0), 1000u);
  ASSERT_EQ(b.extent(0), 30u);
  ASSERT_EQ(b.extent(1), 7u);
  Kokkos::deep_copy(a, 1);
  Kokkos::deep_copy(b, 2.5);
  Kokkos::deep_copy(c, 3);
  const auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  const auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c);
  for (std::size_t i = 0; i < ha.extent(0); ++i) ASSERT_EQ(ha(i), 1) << i;
  for (std::size_t i = 0; i < hb.extent(0); ++i)
    for (std::size_t j = 0; j < hb.extent(1); ++j) ASSERT_EQ(hb(i, j), 2.5) << i << ", " << j;
  EXPECT_EQ(hc(0), 3);
  EXPECT_EQ(buffers.held(), 1000 * sizeof(std::int32_t) + 30 * 7 * sizeof(double) + sizeof(std::int32_t));
}

TEST(DeviceBuffers, ABufferIsReusedWhileLargeEnoughAndGrowsWhenNot) {
  core::DeviceBuffers buffers;
  const Ints first = buffers.view<Ints>("rows", 1000);
  const Ints smaller = buffers.view<Ints>("rows", 10);
  EXPECT_EQ(smaller.data(), first.data());  // the same memory, no new allocation
  EXPECT_EQ(smaller.extent(0), 10u);
  EXPECT_EQ(buffers.held(), 1000 * sizeof(std::int32_t));
  const Ints larger = buffers.view<Ints>("rows", 5000);
  EXPECT_EQ(larger.extent(0), 5000u);
  EXPECT_EQ(buffers.held(), 5000 * sizeof(std::int32_t));
  Kokkos::deep_copy(larger, 7);  // the grown buffer is usable to its end
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), larger);
  EXPECT_EQ(host(4999), 7);
  const Ints empty = buffers.view<Ints>("none", 0);
  EXPECT_EQ(empty.extent(0), 0u);
}

// A buffer's label (what its user last filled it with) stays while the buffer is reused
// and is forgotten once it grows (the new memory holds nothing); other names keep theirs.
TEST(DeviceBuffers, AFillLabelLastsUntilTheBufferGrows) {
  core::DeviceBuffers buffers;
  EXPECT_EQ(buffers.filled_with("a"), "");
  (void)buffers.view<Ints>("a", 100);
  (void)buffers.view<Ints>("b", 100);
  buffers.mark_filled("a", "references 1");
  buffers.mark_filled("b", "references 2");
  (void)buffers.view<Ints>("a", 50);  // reused
  EXPECT_EQ(buffers.filled_with("a"), "references 1");
  (void)buffers.view<Ints>("a", 101);  // grown
  EXPECT_EQ(buffers.filled_with("a"), "");
  EXPECT_EQ(buffers.filled_with("b"), "references 2");
  buffers.mark_filled("b", "references 3");
  EXPECT_EQ(buffers.filled_with("b"), "references 3");
}

TEST(DeviceBuffers, PrioritizedSpacesRunWork) {
  core::DeviceBuffers buffers;
  const auto spaces = buffers.prioritized_spaces(3);
  ASSERT_GE(spaces.size(), 1u);
  ASSERT_LE(spaces.size(), 3u);
  const Ints sums = buffers.view<Ints>("sums", spaces.size());
  for (std::size_t s = 0; s < spaces.size(); ++s) {
    Kokkos::deep_copy(spaces[s], Kokkos::subview(sums, std::make_pair(s, s + 1)), static_cast<int>(s) + 1);
  }
  for (const auto& space : spaces) space.fence();
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sums);
  for (std::size_t s = 0; s < spaces.size(); ++s) EXPECT_EQ(host(s), static_cast<int>(s) + 1);
  EXPECT_EQ(buffers.prioritized_spaces(2).size(), std::min<std::size_t>(2, spaces.size()));
}

}  // namespace
}  // namespace trident
