#pragma once
// The whole deck, read and validated before any work starts.
#include <optional>
#include <string>

#include "deck/diffusion_settings.hpp"
#include "deck/knn_settings.hpp"
#include "deck/reader.hpp"
#include "deck/ridge_settings.hpp"

namespace trident::deck {

struct OutputSettings {
  std::string file;        // output.file, resolved against the deck's folder; without it
                           // DECKNAME.h5 in the working folder
  bool overwrite = false;  // replace an existing file
  double progress_seconds = 10.0;
  int compression = 0;  // deflate level (with shuffle) of the diffusion frames; 0: none
  bool log = true;       // output.log: false writes no log file
  std::string log_file;  // output.log: FILE; empty: the output's name with .log
};

struct Deck {
  Source source;
  OutputSettings output;
  std::optional<DiffusionSettings> diffusion;
  std::optional<KnnSettings> knn;
  std::optional<RidgeSettings> ridge;
};

// Reads and validates a deck file; throws InputError with the first mistake.
Deck read_deck(const std::string& path);
// The same for deck text (tests).
Deck read_deck_text(const std::string& text, const std::string& file, const std::string& folder);

}  // namespace trident::deck
