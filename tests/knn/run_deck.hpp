#pragma once
// The knn study from a deck's text into a real HDF5 output, the path a run takes
// (prepare_study, then run in rounds with a checkpoint when stopped), and /knn read back:
// the MPI tests start from here.
#include <gtest/gtest.h>
#include <mpi.h>

#include <csignal>
#include <cstdint>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/run_context.hpp"
#include "core/signals.hpp"
#include "deck/deck.hpp"
#include "support/study_decks.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "knn/detail/result_rows.hpp"
#include "knn/detail/study.hpp"
#include "knn/detail/study_test_hooks.hpp"

namespace trident::knn::test {

struct Output {
  std::vector<NeighbourIndex> indices;
  std::vector<double> distances;
  std::vector<double> observations;  // n x 2, degrees
  std::vector<std::int64_t> offsets;  // k: all (ragged rows), n + 1; else empty
  std::vector<std::int64_t> counts;   // k: count, n; else empty
  std::string method;
  double build_seconds = -1.0;
  SearchProfile profile;  // this rank's search (rank 0's tiles and batches)
};

inline Output read_output(const std::string& file) {
  const io::InputFile in(file, "knn output");
  Output o;
  if (in.has("/knn/indices")) {  // (k: count writes counts alone)
    o.indices = in.read<NeighbourIndex>("/knn/indices");
    o.distances = in.read<double>("/knn/distances");
  }
  if (in.has("/knn/counts")) o.counts = in.read<std::int64_t>("/knn/counts");
  o.observations = in.read<double>("/knn/observations");
  if (in.has("/knn/offsets")) o.offsets = in.read<std::int64_t>("/knn/offsets");
  o.method = in.string_attribute("/knn", "method");
  o.build_seconds = in.real_attribute("/knn", "index_build_seconds");
  return o;
}

// Runs the knn: section `knn` (its lines) into `file` as a run does, resuming from
// `restart` when given. With `stop`, a stop signal is pending on every rank before the
// search, so the run ends after its first round with a checkpoint (`file`.checkpoint.h5)
// and StudyStopped, which is caught here (returns true then). Collective.
inline bool run_study_deck(const std::string& knn, const std::string& file, const std::string& restart = "",
                           bool stop = false, SearchProfile* profile = nullptr) {
  const trident::test::StudyDeck d = trident::test::read_deck_text("knn:\n" + knn, "deck.yaml", ".");
  Timers timers;
  DeviceBinding binding;
  bool stopped = false;
  {
    io::OutputFile out(MPI_COMM_WORLD, file, true);
    RunContext context{MPI_COMM_WORLD, timers, binding, restart};
    StudyTestHooks hooks;
    hooks.profile = profile;
    auto study = prepare_study(*d.knn, context, file + ".checkpoint.h5", hooks);
    if (stop) {
      signals::install();
      std::raise(SIGUSR1);  // waits at this thread, which blocks it, until the rounds take it
    }
    try {
      study->run(out);
    } catch (const StudyStopped& e) {
      stopped = true;
      EXPECT_EQ(e.exit_code(), kExitStopped);
    }
    if (stop) signals::forget();
    out.commit();
  }
  return stopped;
}

// run_study_deck() and its output read back.
inline Output run_deck(const std::string& knn, const std::string& file) {
  SearchProfile profile;
  run_study_deck(knn, file, "", false, &profile);
  Output o = read_output(file);
  o.profile = profile;
  return o;
}

// The same deck stopped after its first round and resumed from the checkpoint: the
// resumed output, which must equal an uninterrupted run's. Fails the test when the first
// run was not stopped (the deck must take more than one round).
inline Output stopped_and_resumed(const std::string& knn, const std::string& file) {
  EXPECT_TRUE(run_study_deck(knn, file + ".stopped.h5", "", true));
  EXPECT_FALSE(run_study_deck(knn, file, file + ".stopped.h5.checkpoint.h5"));
  return read_output(file);
}

}  // namespace trident::knn::test
