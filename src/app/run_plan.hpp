#pragma once
// What `run` settles before any work, shared with `validate` so that both refuse the same
// decks with the same words: the deck and each of its studies' plans, the output's path,
// the study a --restart checkpoint belongs to, each study's checkpoint path; and the checks
// that need no data read (the output's and the checkpoints' places, the rank layout, the
// input files' headers).
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "app/command_line.hpp"
#include "core/study.hpp"
#include "deck/deck.hpp"

namespace trident::app {

// One of the deck's studies: its line of the table and its section, read.
struct PlannedStudy {
  const Study* study = nullptr;
  std::unique_ptr<StudyPlan> plan;
  const std::string& name() const { return study->name; }
};

struct RunPlan {
  deck::Deck deck;
  std::vector<PlannedStudy> studies;  // the deck's, in the table's order
  std::string output_path;    // --output, else the deck's output.file
  bool overwrite = false;     // --overwrite or output.overwrite
  std::string restart_path;   // --restart CHECKPOINT, or empty
  std::string restart_study;  // the study that resumes from it, or empty
  std::string log_path;       // the log file (output.log), empty for none

  // Where a study writes a checkpoint: the file its section names (diffusion.checkpoint_file),
  // else OUTPUT.checkpoint.h5 beside the output.
  std::string checkpoint_path(const PlannedStudy& study) const;
  // Those of the deck's studies, each once.
  std::vector<std::string> checkpoint_paths() const;
};

// Reads and checks the deck and the kind of the --restart checkpoint (which must belong to
// one of the deck's studies). Collective: every rank throws the same error.
RunPlan read_plan(const CommandLine& command_line, MPI_Comm comm);

// How far check_before_work reads. `run` leaves to the studies what they read first thing
// anyway (a CSV's rows, counted against knn.k; an HDF5 matrix's row offsets); `validate`
// reads those too.
enum class Reading { headers, headers_and_counts };

// The checks before work, in the order the run meets them, with its messages: the output's
// place and the log's; then each study's (StudyPlan::check_before_work) for a job of `ranks`
// ranks. No value of the data is read and no device memory is taken (the device memory
// check is the run's alone). Collective: rank 0 looks, every rank throws the same
// CollectiveError (exit 2) at the first fault.
void check_before_work(const RunPlan& plan, MPI_Comm comm, int ranks, Reading reading);

}  // namespace trident::app
