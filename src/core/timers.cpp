#include "core/timers.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <vector>

#include "core/comm.hpp"

namespace trident {

namespace {
// Taken while the program is loaded, before main(): the origin of process_seconds().
const std::chrono::steady_clock::time_point process_start = std::chrono::steady_clock::now();

// "diffusion.compute" -> "trident::diffusion::compute": the phase as a Kokkos Tools region.
std::string region_name(const std::string& phase) {
  std::string name = "trident::";
  for (char c : phase) {
    if (c == '.') name += "::";
    else name += c;
  }
  return name;
}
}  // namespace

Timers::Scope::Scope(Timers& timers, std::string phase)
    : timers_(timers), phase_(std::move(phase)), start_(std::chrono::steady_clock::now()) {
  timers_.add(phase_, 0.0);  // listed when it opens: a step before the parts inside it
  Kokkos::Profiling::pushRegion(region_name(phase_));
}

Timers::Scope::~Scope() {
  const std::chrono::duration<double> d = std::chrono::steady_clock::now() - start_;
  timers_.add(phase_, d.count());
  Kokkos::Profiling::popRegion();
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
  std::string out = "timing (seconds)            mean       max  slowest rank\n";
  char line[200];
  double steps = 0;  // the steps of the run (phases without a dot), mean over ranks
  for (const std::string& name : phase_names(comm)) {
    struct {
      double value;
      int rank;
    } mine{seconds(name), mpi::rank(comm)}, slowest{0.0, 0};
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
    const double mean = mpi::sum_over_ranks(comm, mine.value) / n;
    std::snprintf(line, sizeof line, "  %-24s %9.3f %9.3f  %d\n", name.c_str(), mean,
                  slowest.value, slowest.rank);
    out += line;
    if (name.find('.') == std::string::npos) steps += mean;
  }
  const double whole = mpi::sum_over_ranks(comm, process_seconds()) / n;
  std::snprintf(line, sizeof line,
                "  whole run so far %.3f s (process start to this table, mean over ranks); its "
                "steps (the phases without a dot) account for %.3f s, %.1f %%\n",
                whole, steps, whole > 0 ? 100.0 * steps / whole : 0.0);
  out += line;
  return out;
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
