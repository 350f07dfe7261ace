#pragma once
// The whole deck, read and validated before any work starts: the output section here, each
// study's section by the reader the table of studies gives (app/study_table.hpp).
#include <functional>
#include <string>
#include <vector>

#include "deck/reader.hpp"

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
  std::vector<std::string> studies;  // the sections read by `readers`, in their order
};

// A study's section: its name at the deck's top level and what reads it, given the top
// level (a reader keeps what it read; the Section lives only during the call).
struct SectionReader {
  std::string name;
  std::function<void(const Section& top)> read;
};

// Reads and validates a deck file: the output section, then each reader's section the deck
// holds, in the readers' order; another top-level key, or none of the readers' sections, is
// an error. Throws InputError with the first mistake.
Deck read_deck(const std::string& path, const std::vector<SectionReader>& readers);
// The same for deck text (tests).
Deck read_deck_text(const std::string& text, const std::string& file, const std::string& folder,
                    const std::vector<SectionReader>& readers);

}  // namespace trident::deck
