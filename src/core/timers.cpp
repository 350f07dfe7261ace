#include "core/timers.hpp"

#include <Kokkos_Core.hpp>

#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/comm.hpp"
#include "core/log.hpp"

namespace trident {

namespace {
// Seconds from the exec of this process to now: its start time in /proc/self/stat (clock
// ticks since boot, 10 ms steps) against CLOCK_BOOTTIME. Loading the shared libraries
// (MPI, HDF5, Kokkos, CUDA) comes before any static initializer and can take a good part
// of a second; 0 where /proc is missing.
double seconds_since_exec() {
  std::ifstream stat("/proc/self/stat");
  std::string text;
  std::getline(stat, text);
  const auto close = text.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  for (int k = 3; k < 22 && fields >> field; ++k) {
  }
  unsigned long long start_ticks = 0;
  if (!(fields >> start_ticks)) return 0;
  timespec now{};
  const long ticks = sysconf(_SC_CLK_TCK);
  if (ticks <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return 0;
  const double since = static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec) -
                       static_cast<double>(start_ticks) / static_cast<double>(ticks);
  return since > 0 && since < 3600 ? since : 0;
}

// The origin of process_seconds(): the process's exec, taken while the program is loaded.
const std::chrono::steady_clock::time_point process_start =
    std::chrono::steady_clock::now() -
    std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds_since_exec()));

double exit_report_steps = -1;  // the table's steps, once run_command has printed it

// "diffusion.compute" -> "trident::diffusion::compute": the phase as a Kokkos Tools region.
std::string region_name(const std::string& phase) {
  std::string name = "trident::";
  for (char c : phase) {
    if (c == '.') name += "::";
    else name += c;
  }
  return name;
}
// How the table shows a phase: a step as it is; a part of the step above it without that
// step's name ("search" under "knn" for knn.search), and with --verbose by its full name,
// which is also its Kokkos Tools region and its name in the output's /timings.
std::string shown_name(const std::string& name, const std::string& step) {
  if (log::verbosity() == log::Verbosity::verbose || step.empty()) return name;
  const std::string prefix = step + ".";
  return name.compare(0, prefix.size(), prefix) == 0 ? name.substr(prefix.size()) : name;
}
}  // namespace

Timers::Scope::Scope(Timers& timers, std::string phase)
    : timers_(timers),
      phase_(std::move(phase)),
      start_(std::chrono::steady_clock::now()),
      region_(Kokkos::is_initialized()) {
  timers_.add(phase_, 0.0);  // listed when it opens: a step before the parts inside it
  // a region only once Kokkos has started (the run starts it during `prepare`)
  if (region_) Kokkos::Profiling::pushRegion(region_name(phase_));
}

Timers::Scope::~Scope() {
  const std::chrono::duration<double> d = std::chrono::steady_clock::now() - start_;
  timers_.add(phase_, d.count());
  if (region_) Kokkos::Profiling::popRegion();
}

void Timers::add(const std::string& phase, double seconds) {
  const auto [it, is_new] = seconds_.emplace(phase, 0.0);
  if (is_new) order_.push_back(phase);
  it->second += seconds;
}

double Timers::seconds(const std::string& phase) const {
  const auto it = seconds_.find(phase);
  return it == seconds_.end() ? 0.0 : it->second;
}

std::vector<std::string> Timers::phase_names(MPI_Comm comm) const {
  std::string joined;
  for (const std::string& name : order_) joined += name + "\n";
  joined = mpi::broadcast(comm, joined, 0);
  std::vector<std::string> names;
  for (std::size_t begin = 0; begin < joined.size();) {
    const std::size_t end = joined.find('\n', begin);
    names.push_back(joined.substr(begin, end - begin));
    begin = end + 1;
  }
  return names;
}

std::string Timers::summary(MPI_Comm comm) const {
  const int n = mpi::size(comm);
  std::string out = "timing (seconds)                mean       max  slowest rank\n";
  char line[200];
  double steps = 0;  // the steps of the run (phases without a dot), mean over ranks
  std::string step;  // the step the phases below belong to
  for (const std::string& name : phase_names(comm)) {
    struct {
      double value;
      int rank;
    } mine{seconds(name), mpi::rank(comm)}, slowest{0.0, 0};
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
    const double mean = mpi::sum_over_ranks(comm, mine.value) / n;
    const bool is_step = name.find('.') == std::string::npos;
    if (is_step) step = name;
    std::snprintf(line, sizeof line, is_step ? "  %-28s %9.3f %9.3f  %d\n" : "    %-26s %9.3f %9.3f  %d\n",
                  shown_name(name, step).c_str(), mean, slowest.value, slowest.rank);
    out += line;
    if (is_step) steps += mean;
  }
  const double whole = mpi::sum_over_ranks(comm, process_seconds()) / n;
  std::snprintf(line, sizeof line,
                "  whole run so far %.3f s (process start to this table, mean over ranks); its "
                "steps (the phases not indented) account for %.3f s, %.1f %%\n",
                whole, steps, whole > 0 ? 100.0 * steps / whole : 0.0);
  out += line;
  last_steps_ = steps;
  return out;
}

void set_exit_report(double steps_seconds) { exit_report_steps = steps_seconds; }

void print_exit_report(int world_rank, double shutdown_seconds) {
  if (exit_report_steps < 0 || world_rank != 0) return;
  const double whole = process_seconds();
  std::printf("  process start to exit %.3f s (rank 0): the steps above (%.3f s) and the shutdown after "
              "the table (Kokkos and MPI finalize, %.3f s) account for %.1f %%\n",
              whole, exit_report_steps, shutdown_seconds,
              whole > 0 ? 100.0 * (exit_report_steps + shutdown_seconds) / whole : 0.0);
  std::fflush(stdout);
}

double wall_seconds() {
  const std::chrono::duration<double> d = std::chrono::steady_clock::now().time_since_epoch();
  return d.count();
}

double process_seconds() {
  const std::chrono::duration<double> d = std::chrono::steady_clock::now() - process_start;
  return d.count();
}

}  // namespace trident
