// A Kokkos Tools library for tests/slurm/run_templates.sh: it holds a trident rank at the
// end of its first checkpoint, so that a test can signal a long run that has not ended yet,
// however fast the machine. The rank stops itself (SIGSTOP) right after the region
// trident::diffusion::checkpoint closes (the checkpoint is on disk and logged), after
// writing its pid to TRIDENT_HOLD_DIR/held.JOBID.PID; the test sends its signal, waits until
// it is pending at every held rank, creates TRIDENT_HOLD_DIR/released and continues them
// (SIGCONT). A process holds at most once, and not at all once "released" exists, so the
// resumed run of a requeued or follow-up job runs straight through.
// Studies without periodic checkpoints (knn, ridge) are held where their work starts
// instead: TRIDENT_HOLD_ENTER=REGION holds when REGION opens (e.g. trident::knn::total), so
// the signal is pending before the first batch or block of iterations ends.
// Loaded through KOKKOS_TOOLS_LIBS (Kokkos 4) or KOKKOS_PROFILE_LIBRARY (Kokkos 3).
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {
std::vector<std::string> regions;  // the open regions, innermost last
bool held = false;

void hold() {
  const char* dir = std::getenv("TRIDENT_HOLD_DIR");
  if (!dir || held) return;
  held = true;
  struct stat st;
  if (stat((std::string(dir) + "/released").c_str(), &st) == 0) return;
  const char* job = std::getenv("SLURM_JOB_ID");
  const std::string path =
      std::string(dir) + "/held." + (job ? job : "none") + "." + std::to_string(static_cast<long>(getpid()));
  // The file is written completely before it gets its name (the test reads it as soon as it
  // appears), under a hidden name that the test's glob held.JOBID.* does not match.
  const std::string tmp = std::string(dir) + "/.held." + std::to_string(static_cast<long>(getpid()));
  if (std::FILE* f = std::fopen(tmp.c_str(), "w")) {
    std::fprintf(f, "%ld\n", static_cast<long>(getpid()));
    std::fclose(f);
    std::rename(tmp.c_str(), path.c_str());
  }
  std::raise(SIGSTOP);
}
}  // namespace

extern "C" {

void kokkosp_push_profile_region(const char* name) {
  regions.emplace_back(name ? name : "");
  const char* enter = std::getenv("TRIDENT_HOLD_ENTER");
  if (enter && regions.back() == enter) hold();
}

void kokkosp_pop_profile_region() {
  if (regions.empty()) return;
  const bool checkpoint = regions.back() == "trident::diffusion::checkpoint" && !std::getenv("TRIDENT_HOLD_ENTER");
  regions.pop_back();
  if (checkpoint) hold();
}

}  // extern "C"
