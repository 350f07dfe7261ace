// The sizes of a search's rounds (rounds.hpp): a probe first (whose share searched again
// decides the order by place), then on GPUs the rest of a rank's share in one round while
// it is small enough to search in well under the round's length, so that the fixed cost of
// a round is paid twice, not once per round of a measured rate.
#include <gtest/gtest.h>

#include <cstdint>

#include "knn/detail/rounds.hpp"

namespace trident::knn {
namespace {

constexpr std::int64_t kRefs = 16384;

TEST(KnnRounds, BatchSizeSetsTheProbe) {
  EXPECT_EQ(probe_round_size(1000, true, kRefs), 1000);
  EXPECT_EQ(probe_round_size(1000, false, kRefs), 1000);
}

TEST(KnnRounds, HostBackEndsProbeWithAboutAFixedNumberOfPairs) {
  // 2^26 pairs: 4096 rows over 2^14 references, 65536 at most, 256 at least
  EXPECT_EQ(probe_round_size(0, false, kRefs), 4096);
  EXPECT_EQ(probe_round_size(0, false, 20000), 3355);
  EXPECT_EQ(probe_round_size(0, false, 100), 65536);
  EXPECT_EQ(probe_round_size(0, false, std::int64_t(1) << 24), 256);
  EXPECT_EQ(probe_round_size(0, true, kRefs), 4096);
  EXPECT_EQ(probe_round_size(0, true, 100), 4096);
}

TEST(KnnRounds, OnDevicesARankOfUpToFourBudgetsIsOneRound) {
  // the budget: 2^36 pairs, 2^22 observations at 2^14 references
  EXPECT_EQ(device_round_size(std::int64_t(1) << 22, kRefs, 16), std::int64_t(1) << 22);
  EXPECT_EQ(device_round_size(std::int64_t(1) << 24, kRefs, 16), std::int64_t(1) << 24);
  EXPECT_EQ(device_round_size((std::int64_t(1) << 24) + 1, kRefs, 16), std::int64_t(1) << 22);
  EXPECT_EQ(device_round_size(std::int64_t(1) << 24, kRefs, 64), std::int64_t(1) << 24);
  EXPECT_EQ(device_round_size(5, kRefs, 1), 5);
}

TEST(KnnRounds, OnDevicesTheBudgetShrinksPastK64AndWithReferences) {
  // k = 1024: 2^32 pairs, 2^18 observations at 2^14 references
  EXPECT_EQ(device_round_size(std::int64_t(1) << 21, kRefs, 1024), std::int64_t(1) << 18);
  EXPECT_EQ(device_round_size(std::int64_t(1) << 20, kRefs, 1024), std::int64_t(1) << 20);
  // 2^26 references: 1024 observations by the budget, never fewer than the host's 65536
  EXPECT_EQ(device_round_size(std::int64_t(1) << 24, std::int64_t(1) << 26, 16), 65536);
}

}  // namespace
}  // namespace trident::knn
