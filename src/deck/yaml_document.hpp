#pragma once
// The deck file as yaml-cpp reads it: for deck/ alone (deck.cpp makes the top-level Section
// from it); the studies' readers see only deck::Section (reader.hpp).
#include <yaml-cpp/yaml.h>

#include <string>
#include <utility>

#include "deck/reader.hpp"

namespace trident::deck {

// Reads and parses a deck file. Throws InputError for a missing or unreadable file,
// a YAML syntax error (with its line:column), a second YAML document, a key given twice
// in one mapping (see yaml_structure.hpp) or a document that is not a mapping.
std::pair<Source, YAML::Node> load(const std::string& path);
// Parses deck text that did not come from a file (tests); `file` names it in messages.
std::pair<Source, YAML::Node> parse(const std::string& text, const std::string& file,
                                    const std::string& folder);

}  // namespace trident::deck
