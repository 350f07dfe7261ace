// The host arrays a search makes as long as its observations: the list of rows to search
// and the empty result rows. Both are filled on several threads once they are long enough
// (2^18 entries a thread), without std::vector's serial initialization, so every entry must
// be set whichever thread's range holds it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "knn/detail/row_list.hpp"
#include "knn/detail/search.hpp"

namespace trident::knn {
namespace {

constexpr std::int64_t kLong = (std::int64_t(1) << 20) + 3;  // several threads' ranges, not all equal

TEST(KnnRows, AllRowsListsEveryRowInOrder) {
  const RowList rows = all_rows(kLong);
  ASSERT_EQ(static_cast<std::int64_t>(rows.size()), kLong);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < kLong; ++i) wrong += rows[static_cast<std::size_t>(i)] != i;
  EXPECT_EQ(wrong, 0);
  EXPECT_TRUE(all_rows(0).empty());
}

TEST(KnnRows, EmptyRowsOverwriteWhatTheMemoryHeld) {
  Neighbours rows;
  allocate_rows(rows, static_cast<std::size_t>(kLong));
  // the same vectors again, after their memory held other values: resizing keeps the
  // capacity and leaves the entries as they were, so only the fill can empty them
  std::fill(rows.indices.begin(), rows.indices.end(), NeighbourIndex(7));
  std::fill(rows.distances.begin(), rows.distances.end(), 7.0);
  allocate_rows(rows, static_cast<std::size_t>(kLong));
  ASSERT_EQ(static_cast<std::int64_t>(rows.indices.size()), kLong);
  ASSERT_EQ(static_cast<std::int64_t>(rows.distances.size()), kLong);
  EXPECT_EQ(std::count(rows.indices.begin(), rows.indices.end(), NeighbourIndex(-1)), kLong);
  EXPECT_EQ(std::count(rows.distances.begin(), rows.distances.end(), 0.0), kLong);
}

}  // namespace
}  // namespace trident::knn
