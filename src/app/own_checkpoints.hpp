#pragma once
// A run that completes removes its own checkpoints: those it wrote, and the one it resumed
// from when that is its own (a requeued job's). A checkpoint brought from elsewhere with
// --restart stays, and so does one this run neither wrote nor resumed from. A run that
// stops keeps them all: the job templates requeue it and find its checkpoint.
#include <mpi.h>

#include <string>
#include <sys/stat.h>
#include <vector>

namespace trident::app {

class OwnCheckpoints {
 public:
  // Notes, on rank 0, what stands at each of `paths` (the run's checkpoint paths) before
  // the run works. Not collective.
  OwnCheckpoints(MPI_Comm comm, std::vector<std::string> paths, std::string restart_path);

  // After the run completed: removes, on rank 0, each checkpoint written since the
  // constructor or resumed from, and logs it. A file that cannot be removed is warned
  // about (the results are safe). Not collective.
  void remove_after_completion() const;

 private:
  MPI_Comm comm_;
  std::vector<std::string> paths_;
  std::string restart_path_;
  std::vector<struct stat> before_;  // what stood at each path; st_nlink 0 where nothing did
};

}  // namespace trident::app
