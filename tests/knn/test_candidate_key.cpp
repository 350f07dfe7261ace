// The screening candidates' key, (S, index) ascending, against hand-written expectations
// rather than against KeyLess itself (which the radix tests use as their oracle): equal S
// keep the lower index first, in the comparison, the radix selection and the radix sort.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "knn/detail/candidate_order.hpp"

namespace trident::knn {
namespace {

TEST(CandidateKey, EqualValuesGoLowerIndexFirst) {
  EXPECT_TRUE(key_less(Candidate<float>{1.0f, 3}, Candidate<float>{1.0f, 5}));
  EXPECT_FALSE(key_less(Candidate<float>{1.0f, 5}, Candidate<float>{1.0f, 3}));
  EXPECT_FALSE(key_less(Candidate<double>{2.0, 4}, Candidate<double>{2.0, 4}));
  EXPECT_TRUE(key_less(Candidate<double>{1.0, 9}, Candidate<double>{2.0, 1}));  // the value first
}

// n candidates of one value with shuffled indices: the kc kept are indices 0..kc-1 and the
// sort gives 0..n-1, on both sides of the sizes where the radix algorithms take over.
template <class T>
void check_one_value() {
  for (const int n : {100, 300, 2000}) {
    std::vector<Candidate<T>> input(n);
    for (int i = 0; i < n; ++i) input[i] = Candidate<T>{T(0.5), i};
    std::shuffle(input.begin(), input.end(), std::mt19937_64(n));
    for (const int kc : {1, 7, n / 2}) {
      auto kept = input;
      keep_smallest(kept.data(), n, kc);
      std::vector<int> indices;
      for (int i = 0; i < kc; ++i) indices.push_back(kept[i].index);
      std::sort(indices.begin(), indices.end());
      for (int i = 0; i < kc; ++i) ASSERT_EQ(indices[i], i) << n << " candidates, kc " << kc;
      EXPECT_EQ(kept[kc - 1].index, kc - 1) << "the kc-th at kc - 1";
    }
    auto sorted = input;
    std::vector<Candidate<T>> scratch(n);
    sort_candidates(sorted.data(), n, scratch.data());
    for (int i = 0; i < n; ++i) ASSERT_EQ(sorted[i].index, i) << n << " candidates";
  }
}

TEST(CandidateKey, OneValueKeepsAndSortsByIndexFloat) { check_one_value<float>(); }
TEST(CandidateKey, OneValueKeepsAndSortsByIndexDouble) { check_one_value<double>(); }

}  // namespace
}  // namespace trident::knn
