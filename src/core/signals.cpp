#include "core/signals.hpp"

#include <csignal>

namespace trident::signals {

namespace {
volatile std::sig_atomic_t g_pending = 0;
extern "C" void on_stop_signal(int signal) { g_pending = signal; }
}  // namespace

void install() {
  std::signal(SIGUSR1, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  // A launcher or job script may start trident with these signals blocked (the mask is
  // inherited through exec), where a stop request would wait unseen; one that is already
  // pending (it survives exec too) is delivered now and recorded.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGUSR1);
  sigaddset(&stop, SIGTERM);
  sigprocmask(SIG_UNBLOCK, &stop, nullptr);
}

int pending() { return g_pending; }
void clear() { g_pending = 0; }

const char* name(int signal) {
  switch (signal) {
    case SIGUSR1: return "SIGUSR1";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
  }
}

}  // namespace trident::signals
