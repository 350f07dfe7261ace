#pragma once
// Test hooks of the search: layouts that the automatic choices take on GPUs only, forced
// on host back ends so that the CPU tests run the GPUs' code paths, and a fixed segment
// count; and the list bound on its own. Production code leaves them unset (the study and
// the rounds never include this header); tests pass them to the nearest() below.
#include <vector>

#include "knn/detail/geometry.hpp"
#include "knn/detail/list_bound.hpp"
#include "knn/detail/result_rows.hpp"
#include "knn/detail/search_options.hpp"
#include "knn/detail/search_profile.hpp"

namespace trident::knn {

struct SearchTestHooks {
  bool centre_per_team = false;      // per-team screening centres (ScreenFrame) on host back ends too
  bool long_register_lists = false;  // register lists longer than 32 on host back ends too
  int segments = 0;                  // reference segments per tile (0: enough to fill the device)
};

// search.hpp's nearest() with `hooks`.
Neighbours nearest(const std::vector<Vec4<double>>& observations, const std::vector<Vec4<double>>& references,
                   const SearchOptions& options, const SearchTestHooks& hooks, SearchProfile* profile = nullptr);

// The whole bound for lists of at least kc entries over `references` (defined with the
// search, whose screen finds the reaches; `options` give the precision and the list kind),
// from at most `most_places` places. Empty (off) when kc exceeds the references or
// most_places < 1. The search builds its own.
ListBound list_bound(const std::vector<Vec4<double>>& references, int kc, std::int64_t most_places,
                     const SearchOptions& options);

}  // namespace trident::knn
