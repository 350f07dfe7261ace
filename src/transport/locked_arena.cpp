#include "transport/locked_arena.hpp"

#include <cstdint>
#include <cstdlib>

#include "core/host_threads.hpp"
#include "core/huge_pages.hpp"

namespace trident::transport {

LockedArena::LockedArena(std::size_t bytes) : size_(bytes) {
  if (bytes == 0) return;
  constexpr std::size_t kHuge = std::size_t(1) << 21;
  const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
  data_ = static_cast<char*>(std::aligned_alloc(kHuge, rounded));  // (whole huge pages; `bytes` of them handed out)
  if (data_ == nullptr) throw std::bad_alloc();
  advise_huge_pages(data_, rounded);
  // every page first touched on the host's threads, so that neither the lock nor a copy into
  // them faults pages in one at a time
  constexpr std::int64_t kPage = 4096;
  char* const bytes_at = data_;
  const auto pages = static_cast<std::int64_t>(rounded / kPage);
  core::host_parallel_ranges(pages, 1024, [bytes_at](std::int64_t begin, std::int64_t end) {
    for (std::int64_t p = begin; p < end; ++p) bytes_at[p * kPage] = 0;
  });
  lock_ = std::make_unique<PageLock>(data_, rounded);
}

LockedArena::~LockedArena() {
  lock_.reset();  // unlocked before it is freed
  std::free(data_);
}

void* LockedArena::take(std::size_t bytes) {
  constexpr std::size_t kAlign = 64;
  const std::lock_guard<std::mutex> hold(taking_);
  const std::size_t at = (used_ + kAlign - 1) / kAlign * kAlign;
  if (data_ == nullptr || at > size_ || bytes > size_ - at) return nullptr;
  used_ = at + bytes;
  return data_ + at;
}

bool LockedArena::holds(const void* data, std::size_t bytes) const {
  const auto p = reinterpret_cast<std::uintptr_t>(data), begin = reinterpret_cast<std::uintptr_t>(data_);
  return data_ != nullptr && p >= begin && p <= begin + size_ && bytes <= begin + size_ - p;
}

}  // namespace trident::transport
