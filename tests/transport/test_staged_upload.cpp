// StagedUpload: the bytes arrive whole and in place, in one chunk, over many chunks with a
// short last one, from pageable memory and from memory already page-locked (the straight
// copy); page_locked() tells the two apart on a CUDA build.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "transport/page_lock.hpp"
#include "transport/staged_upload.hpp"

namespace trident {
namespace {

// `bytes` random bytes (from `seed`) uploaded with chunks of `chunk` bytes, read back.
std::vector<unsigned char> uploaded(const std::vector<unsigned char>& bytes, std::size_t chunk) {
  Kokkos::View<unsigned char*> device("staged_upload_test", bytes.size() + 16);
  Kokkos::deep_copy(device, static_cast<unsigned char>(0xA5));
  transport::StagedUpload upload(chunk);
  upload.copy(device.data() + 8, bytes.data(), bytes.size());
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), device);
  for (int i = 0; i < 8; ++i) {  // the bytes around the destination are left alone
    EXPECT_EQ(host(static_cast<std::size_t>(i)), 0xA5);
    EXPECT_EQ(host(bytes.size() + 8 + static_cast<std::size_t>(i)), 0xA5);
  }
  return std::vector<unsigned char>(host.data() + 8, host.data() + 8 + bytes.size());
}

std::vector<unsigned char> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 random(seed);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(random());
  return v;
}

TEST(StagedUpload, ManyChunksWithAShortLastOneArriveWholeAndInPlace) {
  const std::vector<unsigned char> bytes = random_bytes((std::size_t(11) << 20) / 2 + 12345, 7);
  EXPECT_EQ(uploaded(bytes, std::size_t(1) << 20), bytes);  // 5 whole chunks and a short one
  EXPECT_EQ(uploaded(bytes, bytes.size()), bytes);            // one chunk
  EXPECT_FALSE(transport::page_locked(bytes.data()));
}

TEST(StagedUpload, PageLockedMemoryGoesStraightAndArrivesWhole) {
  std::vector<unsigned char> bytes = random_bytes(std::size_t(3) << 20, 11);
  const transport::PageLock lock(bytes.data(), bytes.size());
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::is_same<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>::value)
    EXPECT_TRUE(transport::page_locked(bytes.data()));
#endif
  EXPECT_EQ(uploaded(bytes, std::size_t(1) << 20), bytes);
}

TEST(StagedUpload, NothingToCopyChangesNothing) {
  const std::vector<unsigned char> none;
  EXPECT_TRUE(uploaded(none, std::size_t(1) << 20).empty());
}

}  // namespace
}  // namespace trident
