#pragma once
// Transparent huge pages for a large host array about to be written out of order.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

namespace trident {

// Asks the kernel (madvise MADV_HUGEPAGE) to back the whole 2 MiB pages inside
// [data, data + bytes) with huge pages, before they are first written. Scattered writes
// over hundreds of MB (a transpose) otherwise miss the TLB at almost every store. Advice
// only: where transparent huge pages are off, or the memory is already touched, nothing
// changes.
inline void advise_huge_pages(void* data, std::size_t bytes) {
  constexpr std::uintptr_t kHuge = std::uintptr_t(1) << 21;
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1), last = (begin + bytes) & ~(kHuge - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

}  // namespace trident
