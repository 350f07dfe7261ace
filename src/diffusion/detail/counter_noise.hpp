#pragma once
// The jagged field's white noise: one standard normal value per grid cell, a pure function
// of (seed, global cell index), so any rank computes any cell alone and the field does not
// depend on how the grid is split. Usable on the host and in device kernels.
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "core/kokkos_math.hpp"
#include "core/splitmix64.hpp"

namespace trident::diffusion {

// The key of a seed: the counter stream below starts from it.
inline std::uint64_t noise_key(std::uint64_t seed) { return core::splitmix_mix(seed + core::kSplitMixGamma); }

// Word `counter` of the seed's stream: SplitMix64 addressed by position instead of by state.
KOKKOS_INLINE_FUNCTION std::uint64_t noise_word(std::uint64_t key, std::uint64_t counter) {
  return core::splitmix_mix(key + (counter + 1) * core::kSplitMixGamma);
}

// A uniform value in (0, 1) from the top 53 bits: never 0, so its logarithm is finite.
KOKKOS_INLINE_FUNCTION double open_unit(std::uint64_t word) {
  return (static_cast<double>(word >> 11) + 0.5) * 0x1.0p-53;
}

// Standard normal value of global cell `cell` (y * nx + x): Box-Muller (cosine branch) of
// the words 2 cell and 2 cell + 1.
KOKKOS_INLINE_FUNCTION double cell_noise(std::uint64_t key, std::uint64_t cell) {
  const double radius = kmath::sqrt(-2.0 * kmath::log(open_unit(noise_word(key, 2 * cell))));
  return radius * kmath::cos(6.283185307179586 * open_unit(noise_word(key, 2 * cell + 1)));
}

}  // namespace trident::diffusion
