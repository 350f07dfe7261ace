#pragma once
// The face every study shows the program: its name (the deck's section, the output's group,
// the timers' and the log's prefix), the dataset that marks its checkpoints, and the reader
// of its section. The reader gives a StudyPlan: what `validate` and `run` ask of the study
// before, during and after the work. app/study_table.cpp lists the studies; nothing else in
// app names one.
#include <memory>
#include <string>

#include "core/run_context.hpp"

namespace trident {
namespace deck {
class Section;  // deck/reader.hpp: a mapping of the deck, typed and located reading
}

// What a study's checks before work are told.
struct WorkChecks {
  int ranks = 1;                // the job's ranks (validate --ranks, or the run's)
  bool read_counts = false;     // validate: also read what the run reads first thing (a
                                // CSV's rows, an HDF5 matrix's row offsets)
  bool restarting = false;      // this study resumes from --restart
  std::string checkpoint_path;  // where its checkpoints go
};

// One study's section of the deck, read and range-checked.
class StudyPlan {
 public:
  virtual ~StudyPlan() = default;
  // validate's words for it: "knn (k = 4, observations ..., references ...)".
  virtual std::string summary() const = 0;
  // A checkpoint file the deck names (diffusion.checkpoint_file); empty: the default beside
  // the output.
  virtual std::string checkpoint_file() const { return {}; }
  // The checks that need no value of the data: the rank layout for checks.ranks, the input
  // files' headers, the checkpoint's place, in the order prepare meets them, with its
  // words. Runs on rank 0 alone; throws InputError. False where it left the rest to the
  // study (the run reads it first thing): the later studies' checks are then left too.
  virtual bool check_before_work(const WorkChecks& checks) const = 0;
  // Whether prepare needs the device from its start; else the study calls
  // RunContext::device_ready once it has read its inputs on the host.
  virtual bool device_from_start() const { return false; }
  // Reads the inputs (or the checkpoint), settles the rank layout and allocates; every
  // mistake shows here, before the output exists. Collective.
  virtual std::unique_ptr<PreparedStudy> prepare(RunContext& context, const std::string& checkpoint_path) const = 0;
  // After the output is committed, on rank 0: the files a study keeps beside it
  // (diffusion's XDMF).
  virtual void after_output(const std::string& output_path) const { (void)output_path; }
};

// One line of the table of studies.
struct Study {
  std::string name;               // deck section, output group, --restart kind
  std::string checkpoint_marker;  // a dataset only this study's checkpoints hold
  // Reads the section `name` of the deck's top level (the caller checked it is there).
  std::unique_ptr<StudyPlan> (*read)(const deck::Section& top) = nullptr;
};

}  // namespace trident
