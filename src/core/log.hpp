#pragma once
// Logging: rank 0 speaks for the job; per-rank lines are gathered and printed in rank order.
#include <mpi.h>

#include <string>

namespace trident::log {

// Prints "trident: MESSAGE" on rank 0 of `comm` (stdout, flushed).
void info(MPI_Comm comm, const std::string& message);

// Every rank passes its own line; rank 0 prints them all in rank order. Collective.
void each_rank(MPI_Comm comm, const std::string& line);

// Prints "trident: warning: MESSAGE" on rank 0 of `comm` (stderr, flushed).
void warning(MPI_Comm comm, const std::string& message);

// Prints "trident: error: MESSAGE" on stderr from the calling rank (no collective).
void error(const std::string& message);

// Silences info()/each_rank() (tests set this to keep their output readable).
void set_quiet(bool quiet);
bool quiet();

}  // namespace trident::log
