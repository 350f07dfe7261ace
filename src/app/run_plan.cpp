// The run's plan and its checks before work, shared by `run` and `validate` (app/run_plan.hpp).
#include "app/run_plan.hpp"

#include <algorithm>

#include "app/study_table.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "io/paths.hpp"

namespace trident::app {

namespace {

// The study a checkpoint belongs to, by the dataset that marks it.
std::string checkpoint_study(const std::string& path) {
  const io::InputFile file(path, "checkpoint (--restart)");
  std::string markers;
  for (const Study& study : study_table()) {
    if (file.has(study.checkpoint_marker)) return study.name;
    markers += (markers.empty() ? "" : ", ") + study.checkpoint_marker;
  }
  throw InputError(path + ": not a trident checkpoint (it holds none of " + markers + ")");
}

// The deck's studies, each section read by its line of the table.
std::vector<PlannedStudy> read_deck(const std::string& path, deck::Deck& deck) {
  std::vector<PlannedStudy> studies;
  std::vector<deck::SectionReader> readers;
  for (const Study& study : study_table())
    readers.push_back({study.name, [&studies, &study](const deck::Section& top) {
                         studies.push_back({&study, study.read(top)});
                       }});
  deck = deck::read_deck(path, readers);
  return studies;
}

}  // namespace

std::string RunPlan::checkpoint_path(const PlannedStudy& study) const {
  const std::string chosen = study.plan->checkpoint_file();
  return chosen.empty() ? io::default_checkpoint_path(output_path) : chosen;
}

std::vector<std::string> RunPlan::checkpoint_paths() const {
  std::vector<std::string> paths;
  for (const PlannedStudy& study : studies) {
    const std::string path = checkpoint_path(study);
    if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
  }
  return paths;
}

RunPlan read_plan(const CommandLine& command_line, MPI_Comm comm) {
  RunPlan plan;
  mpi::collective(comm, [&] {
    plan.studies = read_deck(command_line.deck, plan.deck);
    plan.output_path = command_line.output.empty() ? plan.deck.output.file : command_line.output;
    plan.overwrite = command_line.overwrite || plan.deck.output.overwrite;
    const deck::Source& source = plan.deck.source;
    if (!command_line.output.empty())
      source.resolve({"output.file", deck::yaml_scalar(plan.output_path) + "  # --output", false, "--output"});
    if (command_line.overwrite) source.resolve({"output.overwrite", "true  # --overwrite", false, "--overwrite"});
    if (plan.deck.output.log) {
      plan.log_path = plan.deck.output.log_file.empty() ? io::log_path_for(plan.output_path) : plan.deck.output.log_file;
      if (plan.deck.output.log_file.empty()) source.resolve({"output.log", deck::yaml_scalar(plan.log_path), true, ""});
    }
    plan.restart_path = command_line.restart;
    if (plan.restart_path.empty()) return;
    plan.restart_study = checkpoint_study(plan.restart_path);
    const bool in_deck = std::any_of(plan.studies.begin(), plan.studies.end(),
                                     [&](const PlannedStudy& s) { return s.name() == plan.restart_study; });
    if (!in_deck)
      throw InputError("--restart " + plan.restart_path + ": the checkpoint is a " + plan.restart_study +
                       " checkpoint, but the deck has no " + plan.restart_study + " section");
  });
  return plan;
}

void check_before_work(const RunPlan& plan, MPI_Comm comm, int ranks, Reading reading) {
  io::check_output_destination(comm, plan.output_path, plan.overwrite);
  if (!plan.log_path.empty()) io::check_log_destination(comm, plan.log_path);
  mpi::collective(comm, [&] {
    if (mpi::rank(comm) != 0) return;  // rank 0 reads the headers for the job
    for (const PlannedStudy& study : plan.studies) {
      WorkChecks checks;
      checks.ranks = ranks;
      checks.read_counts = reading == Reading::headers_and_counts;
      checks.restarting = plan.restart_study == study.name();
      checks.checkpoint_path = plan.checkpoint_path(study);
      if (!study.plan->check_before_work(checks)) return;
    }
  });
}

}  // namespace trident::app
