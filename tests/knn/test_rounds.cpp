// The size of a search's first round (rounds.hpp): on GPUs a rank's whole share in one
// round while it is small enough to search in well under the round's length, so that the
// fixed cost of a round is paid once; on host back ends a fixed probe of 65536 rows.
#include <gtest/gtest.h>

#include <cstdint>

#include "knn/rounds.hpp"

namespace trident::knn {
namespace {

constexpr std::int64_t kRefs = 16384;

TEST(KnnRounds, BatchSizeSetsTheFirstRound) {
  EXPECT_EQ(first_round_size(1 << 20, kRefs, 16, 1000, true), 1000);
  EXPECT_EQ(first_round_size(1 << 20, kRefs, 16, 1000, false), 1000);
}

TEST(KnnRounds, HostBackEndsProbeWith65536Rows) {
  EXPECT_EQ(first_round_size(std::int64_t(1) << 24, kRefs, 16, 0, false), 65536);
  EXPECT_EQ(first_round_size(1000, kRefs, 16, 0, false), 65536);  // (a round takes what is left)
}

TEST(KnnRounds, OnDevicesARankOfUpToFourBudgetsIsOneRound) {
  // the budget: 2^36 pairs, 2^22 observations at 2^14 references
  EXPECT_EQ(first_round_size(std::int64_t(1) << 22, kRefs, 16, 0, true), std::int64_t(1) << 22);
  EXPECT_EQ(first_round_size(std::int64_t(1) << 24, kRefs, 16, 0, true), std::int64_t(1) << 24);
  EXPECT_EQ(first_round_size((std::int64_t(1) << 24) + 1, kRefs, 16, 0, true), std::int64_t(1) << 22);
  EXPECT_EQ(first_round_size(std::int64_t(1) << 24, kRefs, 64, 0, true), std::int64_t(1) << 24);
  EXPECT_EQ(first_round_size(5, kRefs, 1, 0, true), 5);
}

TEST(KnnRounds, OnDevicesTheBudgetShrinksPastK64AndWithReferences) {
  // k = 1024: 2^32 pairs, 2^18 observations at 2^14 references
  EXPECT_EQ(first_round_size(std::int64_t(1) << 21, kRefs, 1024, 0, true), std::int64_t(1) << 18);
  EXPECT_EQ(first_round_size(std::int64_t(1) << 20, kRefs, 1024, 0, true), std::int64_t(1) << 20);
  // 2^26 references: 1024 observations by the budget, never fewer than the host's 65536
  EXPECT_EQ(first_round_size(std::int64_t(1) << 24, std::int64_t(1) << 26, 16, 0, true), 65536);
}

}  // namespace
}  // namespace trident::knn
