#pragma once
// SIGUSR1 and SIGTERM ask a run to stop cleanly: each study notices at its next collective
// check (diffusion: a step; knn: a round of batches; ridge: a block of iterations), writes
// a checkpoint and the outputs so far, and the run exits with kExitStopped (75).
namespace trident::signals {

// Idempotent; call it first in main, before MPI or the device runtime start threads. It
// blocks both signals in the calling thread, so every thread started after it inherits the
// block and the signals wait at the process until pending() takes them on the main thread.
void install();
int pending();         // the signal received (SIGUSR1 or SIGTERM), 0 if none; main thread
const char* name(int signal);
void forget();         // tests: pending() returns 0 again

}  // namespace trident::signals
