#include "core/spelling.hpp"

#include <algorithm>

namespace trident::core {

std::string closest(const std::string& word, const std::vector<std::string>& known) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& candidate : known) {
    // Levenshtein distance, two rows.
    std::vector<std::size_t> prev(candidate.size() + 1), cur(candidate.size() + 1);
    for (std::size_t j = 0; j <= candidate.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= word.size(); ++i) {
      cur[0] = i;
      for (std::size_t j = 1; j <= candidate.size(); ++j) {
        const std::size_t substitute = prev[j - 1] + (word[i - 1] == candidate[j - 1] ? 0 : 1);
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, substitute});
      }
      std::swap(prev, cur);
    }
    if (prev[candidate.size()] < best_distance) {
      best_distance = prev[candidate.size()];
      best = candidate;
    }
  }
  return best;
}

}  // namespace trident::core
