#pragma once
// "Did you mean": the closest known word to a misspelt one, shared by the deck reader,
// the command line and the environment overrides.
#include <string>
#include <vector>

namespace trident::core {

// The closest of `known` to `word` by edit distance, or "" when none is close.
std::string closest(const std::string& word, const std::vector<std::string>& known);

}  // namespace trident::core
