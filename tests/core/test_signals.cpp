// The stop signals wait for the main thread's checks (core/signals.hpp): threads started
// after install() do not take them, and the check takes a waiting one, so a signal sent
// before a check is seen by that check. (This test process started MPI's threads before
// install(), which trident's main does not; so the tests look at masks and at signals sent
// to the main thread, not at where a signal sent to the process lands.)
#include <gtest/gtest.h>
#include <pthread.h>

#include <csignal>
#include <thread>

#include "core/signals.hpp"

namespace trident {
namespace {

sigset_t this_threads_mask() {
  sigset_t mask;
  pthread_sigmask(SIG_BLOCK, nullptr, &mask);
  return mask;
}

bool waiting(int signal) {
  sigset_t set;
  sigpending(&set);
  return sigismember(&set, signal);
}

TEST(StopSignals, AThreadStartedAfterInstallBlocksThem) {
  const sigset_t before = this_threads_mask();
  signals::install();
  sigset_t in_thread;
  std::thread([&in_thread] { in_thread = this_threads_mask(); }).join();
  EXPECT_TRUE(sigismember(&in_thread, SIGUSR1));
  EXPECT_TRUE(sigismember(&in_thread, SIGTERM));
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
}

TEST(StopSignals, TheCheckTakesOneThatWaits) {
  const sigset_t before = this_threads_mask();
  signals::install();
  ASSERT_EQ(signals::pending(), 0);
  raise(SIGTERM);  // to this thread, which blocks it: it waits, no handler runs
  EXPECT_TRUE(waiting(SIGTERM));
  EXPECT_EQ(signals::pending(), SIGTERM);
  EXPECT_FALSE(waiting(SIGTERM)) << "pending() did not take the signal";
  EXPECT_EQ(signals::pending(), SIGTERM);  // remembered once taken
  signals::forget();
  EXPECT_EQ(signals::pending(), 0);
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
}

}  // namespace
}  // namespace trident
