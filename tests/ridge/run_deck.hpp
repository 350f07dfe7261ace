#pragma once
// The whole ridge study from a deck's text into a real HDF5 output, as a run drives it: the
// tests that check what /ridge holds start from here.
#include <mpi.h>

#include <string>

#include "core/overrides.hpp"
#include "core/run_context.hpp"
#include "deck/deck.hpp"
#include "support/study_decks.hpp"
#include "io/output_file.hpp"
#include "ridge/detail/study.hpp"

namespace trident::ridge::test {

// Runs the `ridge:` section of `deck_text` (its files relative to `folder`) on every rank
// of MPI_COMM_WORLD and commits `output`. Collective.
inline void run_deck(const std::string& folder, const std::string& deck_text, const std::string& output,
                     const core::Overrides& overrides = {}) {
  const trident::test::StudyDeck deck = trident::test::read_deck_text(deck_text, folder + "/deck.yaml", folder);
  io::OutputFile file(MPI_COMM_WORLD, output, true);
  Timers timers;
  DeviceBinding binding;
  RunContext context{MPI_COMM_WORLD, timers, binding};
  context.overrides = overrides;
  run_study(*deck.ridge, context, file);
  file.commit();
}

}  // namespace trident::ridge::test
