#pragma once
// Logging: rank 0 speaks for the job; per-rank lines are gathered and printed in rank order.
// How much a run says is set once from the command line: --quiet keeps errors and the final
// line, the default adds the set-up, progress and the timer table, --verbose adds the
// diagnostics meant for tuning.
#include <mpi.h>

#include <string>

namespace trident::log {

enum class Verbosity { quiet, normal, verbose };
void set_verbosity(Verbosity verbosity);
Verbosity verbosity();

// Prints "trident: MESSAGE" on rank 0 of `comm` (stdout, flushed), unless quiet.
void info(MPI_Comm comm, const std::string& message);

// The same, only with --verbose: figures for tuning (a search's parts, kernel layouts,
// timelines) that a plain run does not need.
void detail(MPI_Comm comm, const std::string& message);

// The same, even when quiet: the line that ends a command (where a run wrote, that a deck
// is valid, where a stopped run left its checkpoint).
void result(MPI_Comm comm, const std::string& message);

// Every rank passes its own line; rank 0 prints them all in rank order, unless quiet.
// Collective.
void each_rank(MPI_Comm comm, const std::string& line);

// Prints "trident: warning: MESSAGE" on rank 0 of `comm` (stderr, flushed), unless quiet.
void warning(MPI_Comm comm, const std::string& message);

// Prints "trident: error: MESSAGE" on stderr from the calling rank (no collective), always.
void error(const std::string& message);

// set_quiet(true) is set_verbosity(quiet), set_quiet(false) the default (tests set it to
// keep their output readable); quiet() is verbosity() == quiet.
void set_quiet(bool quiet);
bool quiet();

}  // namespace trident::log
