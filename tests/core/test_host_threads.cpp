// Host loops on several threads (core/host_threads.hpp): every item once, ranges in order,
// the affinity mask respected and its threads shared among the ranks that share it, a
// failure in one range reported after all have stopped.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/host_threads.hpp"

namespace trident {
namespace {

using Ranges = std::vector<std::pair<std::int64_t, std::int64_t>>;

Ranges ranges_of(std::int64_t count, std::int64_t min_per_thread) {
  Ranges ranges;
  std::mutex guard;
  core::host_parallel_ranges(count, min_per_thread, [&](std::int64_t begin, std::int64_t end) {
    const std::lock_guard<std::mutex> lock(guard);
    ranges.emplace_back(begin, end);
  });
  std::sort(ranges.begin(), ranges.end());
  return ranges;
}

TEST(HostThreads, RangesCoverEveryItemOnceInContiguousPieces) {
  for (const std::int64_t count : {std::int64_t(0), std::int64_t(1), std::int64_t(7), std::int64_t(1000),
                                   std::int64_t(1) << 20}) {
    for (const std::int64_t min_per_thread : {std::int64_t(1), std::int64_t(100), std::int64_t(1) << 16}) {
      const Ranges ranges = ranges_of(count, min_per_thread);
      SCOPED_TRACE(std::to_string(count) + " items, at least " + std::to_string(min_per_thread) + " a thread");
      if (count == 0) {
        EXPECT_TRUE(ranges.empty());
        continue;
      }
      ASSERT_FALSE(ranges.empty());
      EXPECT_LE(static_cast<int>(ranges.size()), core::host_threads());
      EXPECT_EQ(ranges.front().first, 0);
      EXPECT_EQ(ranges.back().second, count);
      for (std::size_t i = 0; i < ranges.size(); ++i) {
        EXPECT_LT(ranges[i].first, ranges[i].second);
        if (i > 0) EXPECT_EQ(ranges[i].first, ranges[i - 1].second);
        if (ranges.size() > 1) EXPECT_GE(ranges[i].second - ranges[i].first, min_per_thread);
      }
    }
  }
}

TEST(HostThreads, EveryItemIsVisitedExactlyOnce) {
  const std::int64_t count = 300001;
  std::vector<std::atomic<int>> visits(count);
  core::host_parallel_ranges(count, 1000, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) visits[static_cast<std::size_t>(i)].fetch_add(1);
  });
  for (std::int64_t i = 0; i < count; ++i) ASSERT_EQ(visits[static_cast<std::size_t>(i)].load(), 1) << i;
}

TEST(HostThreads, UsableCpusFollowTheAffinityMask) {
  cpu_set_t mine;
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  EXPECT_EQ(core::usable_cpus(), CPU_COUNT(&mine));
  // Bound to one CPU (as a launcher binding a rank to a core), the loops run on one thread.
  int first = 0;
  while (!CPU_ISSET(first, &mine)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  const int bound = core::usable_cpus();
  const Ranges ranges = ranges_of(1 << 20, 1);
  ASSERT_EQ(sched_setaffinity(0, sizeof mine, &mine), 0);
  EXPECT_EQ(bound, 1);
  EXPECT_EQ(ranges.size(), 1u);
}

TEST(HostThreads, RanksSharingTheCpusShareTheThreads) {
  const int cpus = core::usable_cpus(), before = core::cpu_sharers();
  core::set_cpu_sharers(2);
  const int halves = core::host_threads();
  const Ranges two = ranges_of(1 << 20, 1);
  core::set_cpu_sharers(cpus + 1);  // more ranks than CPUs: one thread each
  const int crowded = core::host_threads();
  const Ranges many = ranges_of(1 << 20, 1);
  core::set_cpu_sharers(0);  // as 1
  const int alone = core::host_threads();
  core::set_cpu_sharers(before);
  EXPECT_EQ(halves, std::max(1, cpus / 2));
  EXPECT_EQ(static_cast<int>(two.size()), halves);
  EXPECT_EQ(crowded, 1);
  EXPECT_EQ(many.size(), 1u);
  EXPECT_EQ(alone, cpus);
}

TEST(HostThreads, AFailingRangeIsRethrownAfterTheOthersFinish) {
  const std::int64_t count = std::int64_t(1) << 20;
  std::atomic<std::int64_t> done{0};
  EXPECT_THROW(core::host_parallel_ranges(count, 1, [&](std::int64_t begin, std::int64_t end) {
                 if (begin == 0) throw std::runtime_error("the first range fails");
                 done += end - begin;
               }),
               std::runtime_error);
  // Every other range ran to its end before the call returned.
  const std::int64_t first_range = count / std::min<std::int64_t>(core::host_threads(), count);
  EXPECT_EQ(done.load(), count - first_range);
}

}  // namespace
}  // namespace trident
