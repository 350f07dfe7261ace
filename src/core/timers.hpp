#pragma once
// Wall-clock phase timers, summed per phase, with a summary over ranks at the end. Each
// timed scope that opens once Kokkos has started is also a Kokkos Tools region
// ("trident::diffusion::compute").
// A phase named without a dot ("startup", "knn") is a step of the whole run: those steps
// follow each other, and the summary compares their sum with the time since the process
// started. A dotted phase ("knn.search") is a part of some step, shown for detail, indented
// under the step that was running when it was first timed.
#include <mpi.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace trident {

class Timers {
 public:
  class Scope {  // adds the time from construction to destruction to one phase
   public:
    Scope(Timers& timers, std::string phase);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Timers& timers_;
    std::string phase_;
    std::chrono::steady_clock::time_point start_;
    bool region_;  // a Kokkos Tools region too (Kokkos had started when it opened)
  };

  Scope scope(const std::string& phase) { return Scope(*this, phase); }
  void add(const std::string& phase, double seconds);
  double seconds(const std::string& phase) const;
  const std::map<std::string, double>& phases() const { return seconds_; }

  // The phase names of rank 0 in the order they were first timed, on every rank (ranks
  // run the same phases). Collective.
  std::vector<std::string> phase_names(MPI_Comm comm) const;

  // One line per phase (parts indented under their step, named without the step's name
  // unless --verbose): the mean over ranks, the slowest rank and its time; then the
  // whole run so far (process start to now, slowest rank) and the share of it that the
  // steps of the run account for. Collective; every rank must have the same phase names
  // (a phase missing on a rank counts 0).
  std::string summary(MPI_Comm comm) const;
  // The steps' sum (mean over ranks) of the last summary.
  double steps_seconds() const { return last_steps_; }

 private:
  std::map<std::string, double> seconds_;
  std::vector<std::string> order_;  // phase names as first timed
  mutable double last_steps_ = 0;
};

// Seconds since an arbitrary origin, for throughput and progress figures.
double wall_seconds();

// Seconds since this process started (its exec, before the shared libraries are loaded,
// as /proc/self/stat has it; else its static initialization).
double process_seconds();

// After the run's table: the time from process start to exit is known only after MPI and
// Kokkos have finalized, so the table's steps are kept and rank 0 prints, last, how much
// of that time the steps and the shutdown account for (print_exit_report, from ~Runtime).
void set_exit_report(double steps_seconds);
void print_exit_report(int world_rank, double shutdown_seconds);

}  // namespace trident
