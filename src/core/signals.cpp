#include "core/signals.hpp"

#include <pthread.h>

#include <csignal>
#include <ctime>

namespace trident::signals {

namespace {
volatile std::sig_atomic_t g_pending = 0;
extern "C" void on_stop_signal(int signal) { g_pending = signal; }

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGTERM);
  return set;
}
}  // namespace

// Why blocked and taken synchronously rather than left to a handler: the kernel runs a
// handler on any thread that does not block the signal (MPI's, the device runtime's, the
// frame writer's), and that thread may run it after the main thread's next check, which
// then misses it. A blocked signal stays pending at the process until pending() takes it,
// so a signal sent before a check is seen by it.
void install() {
  // The handler only keeps the signals from being ignored (an ignored signal is discarded
  // even while blocked, and a launcher may start trident with them ignored); it runs only
  // on a thread that unblocked them by itself, and then records them as before.
  std::signal(SIGUSR1, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  const sigset_t stop = stop_signals();
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
}

int pending() {
  if (g_pending == 0) {
    // Takes one that waits at the process or this thread (one sent before exec included);
    // returns at once when none does.
    const sigset_t stop = stop_signals();
    const timespec now{0, 0};
    const int taken = sigtimedwait(&stop, nullptr, &now);
    if (taken > 0) g_pending = taken;
  }
  return g_pending;
}

void forget() { g_pending = 0; }

const char* name(int signal) {
  switch (signal) {
    case SIGUSR1: return "SIGUSR1";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
  }
}

}  // namespace trident::signals
