#pragma once
// ArraySums: the start and the joining of a Kokkos reduction into an array of value_count
// doubles (a functor's value_type double[]), whatever the Kokkos version (join took volatile
// arguments before 3.7). A functor derives from it and adds its operator(); value_count
// starts at kCount and may be set before the launch.
#include <Kokkos_Core.hpp>

namespace trident {

template <unsigned kCount = 1>
struct ArraySums {
  using value_type = double[];
  unsigned value_count = kCount;
  KOKKOS_INLINE_FUNCTION void init(value_type s) const {
    for (unsigned k = 0; k < value_count; ++k) s[k] = 0;
  }
#if KOKKOS_VERSION >= 30700
  KOKKOS_INLINE_FUNCTION void join(value_type dst, const value_type src) const {
#else
  KOKKOS_INLINE_FUNCTION void join(volatile value_type dst, const volatile value_type src) const {
#endif
    for (unsigned k = 0; k < value_count; ++k) dst[k] += src[k];
  }
};

}  // namespace trident
