// The cost model behind knn.method: auto. Each method's time is a rate times its work:
// the brute force screens every pair; the index is built once over the references (a sort)
// and then screens a few leaves a row, whose cost grows with k and, through cache misses,
// slowly with the references. The rates are those bench/knn/refs.sh measures (host: one
// core of the development machine; device: one H100, docs/benchmarks.md); they need only be right within a
// factor of two or so, since the two costs part by orders of magnitude away from the
// crossing.
#include "knn/detail/index/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace trident::knn {

namespace {

struct Rates {
  double brute_pairs_per_second;  // at k = 16
  double build_seconds_per_reference;
  double row_seconds, row_seconds_per_neighbour;  // an index row at 2^14 references: a + b k
  double row_growth_per_doubling;                 // its relative growth per doubling of the references beyond
};

constexpr Rates kHostRates{4.0e8, 2.0e-7, 0.6e-6, 0.17e-6, 0.05};
constexpr Rates kDeviceRates{1.78e12, 7.0e-9, 1.0e-7, 1.2e-8, 0.015};

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g s", s);
  return text;
}

}  // namespace

MethodChoice choose_method(KnnMethod method, std::int64_t n_obs, std::int64_t n_refs, int k, bool on_device) {
  MethodChoice choice;
  if (method != KnnMethod::automatic) {
    choice.use_index = method == KnnMethod::index;
    const std::string name = method_name(method);
    choice.reason = name + " (knn.method: " + name + ")";
    return choice;
  }
  const Rates& r = on_device ? kDeviceRates : kHostRates;
  const double obs = static_cast<double>(n_obs), refs = static_cast<double>(n_refs);
  // longer lists screen slower in the brute force too (more insertions), less than in proportion
  const double list_factor = std::sqrt(std::max(1.0, k / 16.0));
  choice.brute_seconds = obs * refs / r.brute_pairs_per_second * list_factor;
  const double doublings = std::max(0.0, std::log2(refs) - 14.0);
  choice.index_seconds = refs * r.build_seconds_per_reference +
                         obs * (r.row_seconds + r.row_seconds_per_neighbour * k) *
                             (1.0 + r.row_growth_per_doubling * doublings);
  choice.use_index = choice.index_seconds < choice.brute_seconds;
  choice.reason = std::string(choice.use_index ? "index" : "brute") + " (knn.method: auto; estimated " +
                  seconds_text(choice.index_seconds) + " through the index against " +
                  seconds_text(choice.brute_seconds) + " by brute force for " + std::to_string(n_obs) +
                  " x " + std::to_string(n_refs) + ", k = " + std::to_string(k) + ")";
  return choice;
}

}  // namespace trident::knn
