// Logging on rank 0 at three levels of detail (core/log.hpp).
#include "core/log.hpp"

#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"

namespace trident::log {

namespace {
Verbosity g_verbosity = Verbosity::normal;

// The log file once open; before that, the lines said so far (rank 0 only).
std::FILE* g_file = nullptr;
std::string g_path;       // the log file's path, once open
long g_size_before = -1;  // its size when this run opened it; -1: this run created it
bool g_file_off = false;  // closed for good: nothing more is kept
std::vector<std::string> g_early;

}  // namespace

std::string utc_time() {
  timeval now{};
  gettimeofday(&now, nullptr);
  std::tm parts{};
  gmtime_r(&now.tv_sec, &parts);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &parts);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", text, static_cast<int>(now.tv_usec / 1000));
  return out;
}

namespace {

// Each line of `text` (a trailing newline ends the last) into the file, stamped.
void keep(const std::string& text) {
  if (g_file_off) return;
  const std::string stamp = utc_time();
  std::size_t from = 0;
  while (from < text.size()) {
    std::size_t end = text.find('\n', from);
    if (end == std::string::npos) end = text.size();
    const std::string line = stamp + " " + text.substr(from, end - from);
    if (g_file) std::fprintf(g_file, "%s\n", line.c_str());
    else g_early.push_back(line);
    from = end + 1;
  }
  if (g_file) std::fflush(g_file);
}

void say(MPI_Comm comm, const std::string& message, bool shown = true) {
  if (mpi::rank(comm) != 0) return;
  keep("trident: " + message);
  if (!shown) return;
  std::printf("trident: %s\n", message.c_str());
  std::fflush(stdout);
}
}  // namespace

void open_file(MPI_Comm comm, const std::string& path) {
  if (mpi::rank(comm) != 0 || g_file) return;
  struct stat info;
  g_size_before = stat(path.c_str(), &info) == 0 ? static_cast<long>(info.st_size) : -1;
  g_file = std::fopen(path.c_str(), "a");
  if (!g_file) throw RunError(path + ": cannot open the log file: " + std::strerror(errno));
  g_path = path;
  std::fprintf(g_file, "%s trident: log of a run started; earlier runs' logs, if any, are above\n",
               utc_time().c_str());
  for (const std::string& line : g_early) std::fprintf(g_file, "%s\n", line.c_str());
  g_early.clear();
  std::fflush(g_file);
}

void close_file() {
  if (g_file) std::fclose(g_file);
  g_file = nullptr;
  g_file_off = true;
  g_early.clear();
}

void discard_file() {
  if (!g_file) return;
  std::fclose(g_file);
  g_file = nullptr;
  g_file_off = true;
  if (g_size_before < 0) std::remove(g_path.c_str());
  else if (truncate(g_path.c_str(), g_size_before) != 0) return;  // the earlier runs' lines stay either way
}

void to_file(MPI_Comm comm, const std::string& text) {
  if (mpi::rank(comm) == 0) keep(text);
}

void block(MPI_Comm comm, const std::string& text) {
  if (mpi::rank(comm) != 0) return;
  keep(text);
  if (g_verbosity == Verbosity::quiet) return;
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

void progress_line(const std::string& line) {
  keep("trident: " + line);
  std::printf("trident: %s\n", line.c_str());
  std::fflush(stdout);
}

void set_verbosity(Verbosity verbosity) { g_verbosity = verbosity; }
Verbosity verbosity() { return g_verbosity; }
void set_quiet(bool quiet) { g_verbosity = quiet ? Verbosity::quiet : Verbosity::normal; }
bool quiet() { return g_verbosity == Verbosity::quiet; }

void info(MPI_Comm comm, const std::string& message) { say(comm, message, g_verbosity != Verbosity::quiet); }

void detail(MPI_Comm comm, const std::string& message) {
  if (g_verbosity == Verbosity::verbose) say(comm, message);
}

void result(MPI_Comm comm, const std::string& message) { say(comm, message); }

void each_rank(MPI_Comm comm, const std::string& line) {
  const std::vector<std::string> lines = mpi::gather_strings(comm, line, 0);
  for (const auto& text : lines) say(comm, text, g_verbosity != Verbosity::quiet);
}

void warning(MPI_Comm comm, const std::string& message) {
  if (mpi::rank(comm) != 0) return;
  keep("trident: warning: " + message);
  if (g_verbosity == Verbosity::quiet) return;
  std::fprintf(stderr, "trident: warning: %s\n", message.c_str());
  std::fflush(stderr);
}

// Any rank may call it; the file is rank 0's (another rank's error reaches the console).
void error(const std::string& message) {
  keep("trident: error: " + message);
  std::fprintf(stderr, "trident: error: %s\n", message.c_str());
  std::fflush(stderr);
}

}  // namespace trident::log
