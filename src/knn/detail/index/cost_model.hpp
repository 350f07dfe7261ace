#pragma once
// knn.method: which search a run takes. `brute` and `index` as the deck asks; `auto`
// estimates both from the counts and k (a cost model of each back end) and takes the
// cheaper, so that small reference sets keep the brute force's screen and catalogues get
// the index. The answer is the same either way; only the time differs.
#include <cstdint>
#include <string>

#include "knn/settings.hpp"

namespace trident::knn {

struct MethodChoice {
  bool use_index = false;
  double brute_seconds = 0.0, index_seconds = 0.0;  // the estimates (auto only)
  std::string reason;  // for the run log: the method and why
};

// `method` is the deck's knn.method; `on_device` whether the search runs on a GPU.
MethodChoice choose_method(KnnMethod method, std::int64_t n_obs, std::int64_t n_refs, int k,
                           bool on_device);

}  // namespace trident::knn
