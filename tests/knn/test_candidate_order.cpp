// The host's radix selection and sort of screening candidates (candidate_order.hpp)
// against std::sort on (S, index): random values, many ties, +inf padding entries, lists
// on both sides of the sizes where they switch from the comparison algorithms, float and
// double.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "knn/detail/candidate_order.hpp"

namespace trident::knn {
namespace {

// n candidates, indices a shuffled 0..n-1; values from `distinct` levels (ties when
// small), some +inf with no index as the running list's empty slots are.
template <class T>
std::vector<Candidate<T>> candidates(int n, int distinct, int infinite, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> level(0, distinct - 1);
  std::vector<int> index(n);
  for (int i = 0; i < n; ++i) index[i] = i;
  std::shuffle(index.begin(), index.end(), rng);
  std::vector<Candidate<T>> c(n);
  for (int i = 0; i < n; ++i) {
    c[i].index = index[i];
    c[i].value = static_cast<T>(4.0 * level(rng) / distinct);
  }
  for (int i = 0; i < infinite && i < n; ++i) c[i] = Candidate<T>{std::numeric_limits<T>::infinity(), -1 - i};
  return c;
}

template <class T>
bool same(const Candidate<T>& a, const Candidate<T>& b) {
  return a.value == b.value && a.index == b.index;
}

template <class T>
void check_all() {
  for (const int n : {5, 127, 128, 191, 192, 200, 322, 511, 512, 700, 1023, 1024, 1282, 5000}) {
    for (const int distinct : {3, 50, 1 << 20}) {
      for (const int infinite : {0, n / 3}) {
        SCOPED_TRACE("n " + std::to_string(n) + ", levels " + std::to_string(distinct) + ", inf " +
                     std::to_string(infinite));
        const auto input = candidates<T>(n, distinct, infinite, n * 7 + distinct + infinite);
        auto sorted = input;
        std::sort(sorted.begin(), sorted.end(), KeyLess{});
        for (const int kc : {1, n / 4 + 1, n / 2, n}) {
          auto kept = input;
          keep_smallest(kept.data(), n, kc);
          auto front = std::vector<Candidate<T>>(kept.begin(), kept.begin() + kc);
          std::sort(front.begin(), front.end(), KeyLess{});
          for (int i = 0; i < kc; ++i) ASSERT_TRUE(same(front[i], sorted[i])) << "kept " << i << " of " << kc;
          ASSERT_TRUE(same(kept[kc - 1], sorted[kc - 1])) << "the kc-th at kc - 1, kc " << kc;
        }
        auto radix = input;
        std::vector<Candidate<T>> scratch(n);
        sort_candidates(radix.data(), n, scratch.data());
        for (int i = 0; i < n; ++i) ASSERT_TRUE(same(radix[i], sorted[i])) << "sorted " << i;
      }
    }
  }
}

TEST(CandidateOrder, RadixSelectionAndSortMatchStdSortFloat) { check_all<float>(); }
TEST(CandidateOrder, RadixSelectionAndSortMatchStdSortDouble) { check_all<double>(); }

}  // namespace
}  // namespace trident::knn
