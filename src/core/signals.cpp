#include "core/signals.hpp"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <ctime>

namespace trident::signals {

namespace {
constexpr int kStopSignals[] = {SIGINT, SIGHUP, SIGTERM, SIGUSR1};

volatile std::sig_atomic_t g_pending = 0;
extern "C" void on_stop_signal(int signal) { g_pending = signal; }

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kStopSignals) sigaddset(&set, s);
  return set;
}

// Fixed storage for the partial files' paths: a signal handler may neither allocate nor
// walk a std::vector that the main thread is changing. A slot is in use while its first
// byte is not 0; the path is written before the flag that makes it visible.
constexpr int kSlots = 16;
constexpr std::size_t kPathBytes = 4096;
char g_paths[kSlots][kPathBytes];
std::atomic<bool> g_used[kSlots];

void say(const char* text) {
  const ssize_t ignored = write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

// The second stop signal: remove what is unfinished and end with the signal's own status
// (a shell shows 130 for SIGINT), as a program without a handler would.
extern "C" void on_second_signal(int signal) {
  say("trident: a second stop signal: ending at once, without a checkpoint; unfinished files removed\n");
  remove_remembered_partials();
  struct sigaction plain {};
  plain.sa_handler = SIG_DFL;
  sigemptyset(&plain.sa_mask);
  sigaction(signal, &plain, nullptr);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, signal);
  pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
  raise(signal);
  _exit(128 + signal);  // not reached
}

void set_handler(void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  for (int s : kStopSignals) sigaction(s, &action, nullptr);
}

// Once the first signal is taken, the main thread (the only one that does not block them)
// runs on_second_signal for the next one, wherever it is: in a kernel, a write, an MPI wait.
void arm_second_signal() {
  set_handler(on_second_signal);
  const sigset_t stop = stop_signals();
  pthread_sigmask(SIG_UNBLOCK, &stop, nullptr);
}
}  // namespace

// Why blocked and taken synchronously rather than left to a handler: the kernel runs a
// handler on any thread that does not block the signal (MPI's, the device runtime's, the
// frame writer's), and that thread may run it after the main thread's next check, which
// then misses it. A blocked signal stays pending at the process until pending() takes it,
// so a signal sent before a check is seen by it.
void install() {
  // The handler only keeps the signals from being ignored (an ignored signal is discarded
  // even while blocked, and a launcher or `nohup` may start trident with them ignored); it
  // runs only on a thread that unblocked them by itself, and then records them as before.
  set_handler(on_stop_signal);
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
    if (taken > 0) {
      g_pending = taken;
      arm_second_signal();
    }
  }
  return g_pending;
}

void forget() {
  const sigset_t stop = stop_signals();
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  set_handler(on_stop_signal);
  g_pending = 0;
}

const char* name(int signal) {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGUSR1: return "SIGUSR1";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
  }
}

void remember_partial(const std::string& path) {
  if (path.empty() || path.size() >= kPathBytes) return;
  for (int i = 0; i < kSlots; ++i) {
    if (g_used[i].load()) continue;
    std::memcpy(g_paths[i], path.c_str(), path.size() + 1);
    g_used[i].store(true);
    return;
  }
}

void forget_partial(const std::string& path) {
  for (int i = 0; i < kSlots; ++i)
    if (g_used[i].load() && path == g_paths[i]) g_used[i].store(false);
}

void remove_remembered_partials() noexcept {
  for (int i = 0; i < kSlots; ++i)
    if (g_used[i].load()) unlink(g_paths[i]);
}

}  // namespace trident::signals
