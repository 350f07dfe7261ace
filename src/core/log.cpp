#include "core/log.hpp"

#include <cstdio>
#include <vector>

#include "core/comm.hpp"

namespace trident::log {

namespace {
bool g_quiet = false;
}

void set_quiet(bool quiet) { g_quiet = quiet; }
bool quiet() { return g_quiet; }

void info(MPI_Comm comm, const std::string& message) {
  if (g_quiet || mpi::rank(comm) != 0) return;
  std::printf("trident: %s\n", message.c_str());
  std::fflush(stdout);
}

void each_rank(MPI_Comm comm, const std::string& line) {
  const std::vector<std::string> lines = mpi::gather_strings(comm, line, 0);
  if (g_quiet) return;
  for (const auto& text : lines) std::printf("trident: %s\n", text.c_str());
  std::fflush(stdout);
}

void warning(MPI_Comm comm, const std::string& message) {
  if (g_quiet || mpi::rank(comm) != 0) return;
  std::fprintf(stderr, "trident: warning: %s\n", message.c_str());
  std::fflush(stderr);
}

void error(const std::string& message) {
  std::fprintf(stderr, "trident: error: %s\n", message.c_str());
  std::fflush(stderr);
}

}  // namespace trident::log
