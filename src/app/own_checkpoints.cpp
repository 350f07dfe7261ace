// Removing a completed run's own checkpoints (app/own_checkpoints.hpp).
#include "app/own_checkpoints.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/comm.hpp"
#include "core/log.hpp"

namespace trident::app {

namespace {

// What stands at `path`, st_nlink 0 for nothing.
struct stat look(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) st = {};
  return st;
}

bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_nlink > 0 && b.st_nlink > 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// A checkpoint is written to a new file or over the old one: either way its file, size or
// modification time differs from what stood there.
bool changed(const struct stat& before, const struct stat& now) {
  return !same_file(before, now) || before.st_size != now.st_size ||
         before.st_mtim.tv_sec != now.st_mtim.tv_sec || before.st_mtim.tv_nsec != now.st_mtim.tv_nsec;
}

}  // namespace

OwnCheckpoints::OwnCheckpoints(MPI_Comm comm, std::vector<std::string> paths, std::string restart_path)
    : comm_(comm), paths_(std::move(paths)), restart_path_(std::move(restart_path)) {
  if (mpi::rank(comm_) != 0) return;
  for (const std::string& path : paths_) before_.push_back(look(path));
}

void OwnCheckpoints::remove_after_completion() const {
  if (mpi::rank(comm_) != 0) return;
  struct stat resumed {};
  if (!restart_path_.empty()) resumed = look(restart_path_);
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    const struct stat now = look(paths_[i]);
    if (now.st_nlink == 0 || !(changed(before_[i], now) || same_file(now, resumed))) continue;
    if (std::remove(paths_[i].c_str()) == 0) {
      log::info(comm_, "removed the checkpoint " + paths_[i] + ": the run completed");
    } else {
      log::warning(comm_, "the run completed but its checkpoint " + paths_[i] + " could not be removed (" +
                              std::strerror(errno) + ")");
    }
  }
}

}  // namespace trident::app
