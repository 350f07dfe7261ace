#pragma once
// Reserves room in a vector for a large array and asks the kernel to back it with huge
// pages (Linux's MADV_HUGEPAGE, where transparent huge pages are "madvise"): the first
// touch of a 64 MB array then costs 32 page faults instead of 16384, which can take longer
// than reading the file itself (docs/history/core.md). Only a hint; harmless where the
// kernel or the system does not offer it.
#include <cstddef>
#include <vector>

#include "core/huge_pages.hpp"

namespace trident::io {

template <class T, class Allocator>
void reserve_huge(std::vector<T, Allocator>& v, std::size_t n) {
  v.reserve(n);
  advise_huge_pages(v.data(), n * sizeof(T));
}

}  // namespace trident::io
