#pragma once
// Checks of a deck's YAML structure that yaml-cpp does not make itself. Without them a
// deck can say something that trident silently ignores:
//  - a key given twice in one mapping: yaml-cpp keeps both pairs and `node[key]` finds
//    the first, so `{nx: 8, nx: 9}` would run with nx = 8;
//  - a second YAML document after `---`: YAML::Load reads the first document only, so a
//    section placed after `---` would be dropped.
// Both throw InputError in the deck's message style (FILE:LINE:COLUMN: ...).
#include <yaml-cpp/yaml.h>

#include <string>

namespace trident::deck {

// Fails when `text` holds more than one YAML document, naming the line and column where
// the second one starts (its `---`, or its first token after a `...`). A leading `---` or
// a trailing `...` around a single document is fine. Call it once `text` parsed as YAML.
void require_one_document(const std::string& text, const std::string& file);

// Fails at the first key (in the order of the text) that repeats an earlier key of the
// same mapping, at any depth: inside sections, lists and flow mappings alike. The message
// names both places and the key path, lists as `path[index]` (from 0):
//   FILE:3:5: diffusion.nx: the key is given twice (first at line 2, column 5); keep one
void require_unique_keys(const YAML::Node& root, const std::string& file);

}  // namespace trident::deck
