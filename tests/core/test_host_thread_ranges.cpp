// Host loops on more than one thread whatever the launcher bound this process to: mpirun binds
// a one-rank test to one core, where host_parallel_ranges runs a single range and a gap
// between two threads' ranges would go unseen. The test widens its own affinity mask.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

#include "core/host_threads.hpp"

namespace trident {
namespace {

TEST(HostThreadRanges, SeveralThreadsTileTheItemsWithoutGaps) {
  cpu_set_t before, every;
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  CPU_ZERO(&every);
  for (int c = 0; c < CPU_SETSIZE; ++c) CPU_SET(c, &every);  // the kernel keeps those this process may use
  ASSERT_EQ(sched_setaffinity(0, sizeof every, &every), 0);
  const int sharers = core::cpu_sharers();
  core::set_cpu_sharers(1);
  const int threads = core::host_threads();
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> runs;
  for (const std::int64_t count : {std::int64_t(2), std::int64_t(1001), std::int64_t(1) << 20}) {
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
    std::mutex guard;
    core::host_parallel_ranges(count, 1, [&](std::int64_t begin, std::int64_t end) {
      const std::lock_guard<std::mutex> lock(guard);
      ranges.emplace_back(begin, end);
    });
    std::sort(ranges.begin(), ranges.end());
    runs.push_back(ranges);
  }
  core::set_cpu_sharers(sharers);
  ASSERT_EQ(sched_setaffinity(0, sizeof before, &before), 0);
  if (threads < 2) GTEST_SKIP() << "one CPU: nothing to split";
  const std::int64_t counts[] = {2, 1001, std::int64_t(1) << 20};
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const auto& ranges = runs[r];
    SCOPED_TRACE(std::to_string(counts[r]) + " items on " + std::to_string(threads) + " threads");
    ASSERT_EQ(static_cast<std::int64_t>(ranges.size()), std::min<std::int64_t>(threads, counts[r]));
    EXPECT_EQ(ranges.front().first, 0);
    EXPECT_EQ(ranges.back().second, counts[r]);
    for (std::size_t i = 1; i < ranges.size(); ++i) EXPECT_EQ(ranges[i].first, ranges[i - 1].second);
  }
}

}  // namespace
}  // namespace trident
