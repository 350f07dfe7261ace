#pragma once
// SplitMix64 (Steele, Lea and Flood 2014), the generator of trident's generated inputs: its
// state moves by a constant per draw, so a stream can be entered at any position in one
// step, and every machine and back end draws the same numbers. Usable on the host and in
// device kernels.
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace trident::core {

// The step of the state per draw (2^64 / the golden ratio, odd).
inline constexpr std::uint64_t kSplitMixGamma = 0x9E3779B97F4A7C15ull;

// SplitMix64's output function: a bijection of 64-bit words that mixes every input bit.
KOKKOS_INLINE_FUNCTION std::uint64_t splitmix_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The generator as a state: draw k (from 1) of a state s is splitmix_mix(s + k * gamma).
struct SplitMix64 {
  std::uint64_t state;

  KOKKOS_INLINE_FUNCTION std::uint64_t next() { return splitmix_mix(state += kSplitMixGamma); }
  // A uniform value in [0, 1) from the top 53 bits.
  KOKKOS_INLINE_FUNCTION double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // A value in [0, n) by the remainder: biased by at most n / 2^64.
  KOKKOS_INLINE_FUNCTION std::uint64_t below(std::uint64_t n) { return next() % n; }
};

}  // namespace trident::core
