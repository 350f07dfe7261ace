#pragma once
// The clocks the benchmark helpers read: wall seconds since a start, and the process's CPU
// seconds (all threads), which on a shared machine tell the time a run worked from the time
// it waited for a core.
#include <time.h>

#include <chrono>

namespace trident::bench {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

}  // namespace trident::bench
