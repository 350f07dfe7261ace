#pragma once
// The balanced split of n items over `parts` parts, the one every layout of ranks uses (a
// knn rank's observations, a diffusion block's cells along an axis, a slab's rows): part p
// takes items [first, first + count) in order, and the first n % parts parts take one item
// more, so that counts differ by at most one. Inline for device kernels too.
#include <Kokkos_Macros.hpp>

#include <cstdint>

namespace trident::core {

struct BalancedPart {
  std::int64_t first = 0;  // the part's first item
  std::int64_t count = 0;  // the items it takes
};

// Part `part` (0 <= part < parts) of `n` items over `parts` parts.
KOKKOS_INLINE_FUNCTION BalancedPart balanced_part(std::int64_t n, int parts, int part) {
  const std::int64_t base = n / parts, extra = n % parts;
  BalancedPart p;
  p.count = base + (part < extra ? 1 : 0);
  p.first = part * base + (part < extra ? part : extra);
  return p;
}

// The inverse: the part of balanced_part(n, parts, ...) that holds `item` (0 <= item < n).
KOKKOS_INLINE_FUNCTION int balanced_owner(std::int64_t n, int parts, std::int64_t item) {
  const std::int64_t base = n / parts, extra = n % parts;
  const std::int64_t in_long = extra * (base + 1);  // items of the first `extra` parts
  return item < in_long ? static_cast<int>(item / (base + 1))
                        : static_cast<int>(extra + (item - in_long) / base);
}

}  // namespace trident::core
