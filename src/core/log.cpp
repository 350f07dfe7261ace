// Logging on rank 0 at three levels of detail (core/log.hpp).
#include "core/log.hpp"

#include <cstdio>
#include <vector>

#include "core/comm.hpp"

namespace trident::log {

namespace {
Verbosity g_verbosity = Verbosity::normal;

void say(MPI_Comm comm, const std::string& message) {
  if (mpi::rank(comm) != 0) return;
  std::printf("trident: %s\n", message.c_str());
  std::fflush(stdout);
}
}  // namespace

void set_verbosity(Verbosity verbosity) { g_verbosity = verbosity; }
Verbosity verbosity() { return g_verbosity; }
void set_quiet(bool quiet) { g_verbosity = quiet ? Verbosity::quiet : Verbosity::normal; }
bool quiet() { return g_verbosity == Verbosity::quiet; }

void info(MPI_Comm comm, const std::string& message) {
  if (g_verbosity != Verbosity::quiet) say(comm, message);
}

void detail(MPI_Comm comm, const std::string& message) {
  if (g_verbosity == Verbosity::verbose) say(comm, message);
}

void result(MPI_Comm comm, const std::string& message) { say(comm, message); }

void each_rank(MPI_Comm comm, const std::string& line) {
  const std::vector<std::string> lines = mpi::gather_strings(comm, line, 0);
  if (g_verbosity == Verbosity::quiet) return;
  for (const auto& text : lines) std::printf("trident: %s\n", text.c_str());
  std::fflush(stdout);
}

void warning(MPI_Comm comm, const std::string& message) {
  if (g_verbosity == Verbosity::quiet || mpi::rank(comm) != 0) return;
  std::fprintf(stderr, "trident: warning: %s\n", message.c_str());
  std::fflush(stderr);
}

void error(const std::string& message) {
  std::fprintf(stderr, "trident: error: %s\n", message.c_str());
  std::fflush(stderr);
}

}  // namespace trident::log
