#pragma once
// SIGINT (Ctrl-C), SIGHUP, SIGTERM and SIGUSR1 ask a run to stop cleanly: each study notices
// at its next collective check (diffusion: a step; knn: a round of batches; ridge: a block
// of iterations), writes a checkpoint and the outputs so far, and the run exits with
// kExitStopped (75). A second stop signal while the first is being handled ends the process
// at once: the unfinished (.partial) files are removed, finished ones are left as they are.
#include <string>

namespace trident::signals {

// Idempotent; call it first in main, before MPI or the device runtime start threads. It
// blocks the stop signals in the calling thread, so every thread started after it inherits
// the block and the signals wait at the process until pending() takes them on the main
// thread.
void install();
// The signal received (SIGINT, SIGHUP, SIGTERM or SIGUSR1), 0 if none; main thread. Taking
// the first one arms the second: from then on a stop signal ends the process at once.
int pending();
const char* name(int signal);
void forget();  // tests: pending() returns 0 again, the second signal disarmed

// Files to remove when the process ends at once (a second stop signal, or MPI_Abort):
// an output's FILE.partial while it is written. remember() copies the path into fixed
// storage so that remove_remembered() can run inside a signal handler; paths past the
// storage's room (16 files of 4095 bytes) are ignored.
void remember_partial(const std::string& path);
void forget_partial(const std::string& path);
void remove_remembered_partials() noexcept;  // async-signal-safe

}  // namespace trident::signals
