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

// The time now in UTC, ISO 8601 to the millisecond: "2026-11-28T22:57:41.536Z".
std::string utc_time();

// The log file (LAMMPS' log.lammps, GROMACS' md.log): rank 0's console text, each line
// with its UTC time, appended to PATH (a run adds to an older log instead of replacing it).
// Lines said before the file opens are kept and written first; every line is flushed as
// it is said. Only rank 0 of `comm` opens it; --quiet shortens the console, not the file.
// Throws RunError naming the file and the system's reason when it cannot be opened.
void open_file(MPI_Comm comm, const std::string& path);
// No log file (output.log: false): the lines said so far are dropped, no more are kept.
void close_file();
// Bad input found after the file opened (a value in an input file): the run writes nothing,
// so the file goes (or, when it was there before, loses what this run added).
void discard_file();
// Text for the file only (the resolved deck), each line stamped. Rank 0 of `comm`.
void to_file(MPI_Comm comm, const std::string& text);
// Text printed on stdout as it is (the timer table) and into the file, stamped. Rank 0.
void block(MPI_Comm comm, const std::string& text);
// The progress lines (core/progress.cpp): stdout and the file. Rank 0 only; no collective.
void progress_line(const std::string& line);

// set_quiet(true) is set_verbosity(quiet), set_quiet(false) the default (tests set it to
// keep their output readable); quiet() is verbosity() == quiet.
void set_quiet(bool quiet);
bool quiet();

}  // namespace trident::log
