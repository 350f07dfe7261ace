#include "core/host_threads.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace trident::core {

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

namespace {
std::atomic<int> sharers{1};
}  // namespace

void set_cpu_sharers(int ranks) { sharers = std::max(1, ranks); }
int cpu_sharers() { return sharers; }
int host_threads_for(int cpus, int ranks) { return std::max(1, cpus / std::max(1, ranks)); }
int host_threads() { return host_threads_for(usable_cpus(), sharers); }

void host_parallel_ranges(std::int64_t count, std::int64_t min_per_thread,
                          const std::function<void(std::int64_t, std::int64_t)>& body) {
  if (count <= 0) return;
  const std::int64_t most = std::max<std::int64_t>(1, count / std::max<std::int64_t>(1, min_per_thread));
  const int threads = static_cast<int>(std::min<std::int64_t>(host_threads(), most));
  if (threads == 1) {
    body(0, count);
    return;
  }
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(threads));
  const auto run = [&](int t) {
    const std::int64_t begin = count * t / threads, end = count * (t + 1) / threads;
    try {
      body(begin, end);
    } catch (...) {
      failures[static_cast<std::size_t>(t)] = std::current_exception();
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(static_cast<std::size_t>(threads - 1));
  for (int t = 1; t < threads; ++t) helpers.emplace_back(run, t);
  run(0);
  for (std::thread& h : helpers) h.join();
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
}

}  // namespace trident::core
