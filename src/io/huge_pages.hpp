#pragma once
// Reserves room in a vector for a large array and asks the kernel to back it with huge
// pages (Linux's MADV_HUGEPAGE, where transparent huge pages are "madvise"): the first
// touch of a 64 MB array then costs 32 page faults instead of 16384, which on a virtual
// machine took more time than reading the file itself. Only a hint; harmless where the
// kernel or the system does not offer it.
#include <sys/mman.h>

#include <cstdint>
#include <vector>

namespace trident::io {

template <class T>
void reserve_huge(std::vector<T>& v, std::size_t n) {
  v.reserve(n);
#ifdef MADV_HUGEPAGE
  constexpr std::uintptr_t huge = std::uintptr_t(1) << 21;
  const auto begin = reinterpret_cast<std::uintptr_t>(v.data());
  const std::uintptr_t end = begin + n * sizeof(T);
  const std::uintptr_t first = (begin + huge - 1) & ~(huge - 1), last = end & ~(huge - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#endif
}

}  // namespace trident::io
