#pragma once
// SIGUSR1 and SIGTERM ask a run to stop cleanly: each study notices at its next collective
// check (diffusion: a step; knn: a round of batches; ridge: a block of iterations), writes
// a checkpoint and the outputs so far, and the run exits with kExitStopped (75).
namespace trident::signals {

void install();        // idempotent; unblocks both (a pending one is recorded at once)
int pending();         // the signal received (SIGUSR1 or SIGTERM), 0 if none
const char* name(int signal);
void clear();          // tests

}  // namespace trident::signals
