// core::SplitMix64 against the published reference outputs of SplitMix64 (Vigna's
// splitmix64.c), and the diffusion noise's counter-addressed words against the same
// generator stepped by state: one generator for ridge's inputs and diffusion's start field.
#include <gtest/gtest.h>

#include <cstdint>

#include "core/splitmix64.hpp"
#include "diffusion/detail/counter_noise.hpp"

namespace trident::core {
namespace {

TEST(SplitMix64, DrawsTheReferenceOutputs) {
  SplitMix64 g{1234567};
  EXPECT_EQ(g.next(), 6457827717110365317ull);
  EXPECT_EQ(g.next(), 3203168211198807973ull);
  EXPECT_EQ(g.next(), 9817491932198370423ull);
  SplitMix64 zero{0};
  EXPECT_EQ(zero.next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(zero.state, kSplitMixGamma);
}

TEST(SplitMix64, UniformAndBelowUseTheNextDraw) {
  SplitMix64 a{99}, b{99};
  const std::uint64_t word = a.next();
  EXPECT_EQ(b.uniform(), static_cast<double>(word >> 11) * 0x1.0p-53);
  const std::uint64_t second = a.next();
  EXPECT_EQ(b.below(1000), second % 1000);
  SplitMix64 c{7};
  for (int k = 0; k < 1000; ++k) {
    const double u = c.uniform();
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
}

// Word k of a diffusion noise key is draw k + 1 of a generator whose state is the key.
TEST(SplitMix64, CounterWordsAreTheStatesDraws) {
  const std::uint64_t key = diffusion::noise_key(42);
  EXPECT_EQ(key, SplitMix64{42}.next());
  SplitMix64 g{key};
  for (std::uint64_t k = 0; k < 100; ++k) EXPECT_EQ(diffusion::noise_word(key, k), g.next()) << k;
}

}  // namespace
}  // namespace trident::core
