#pragma once
// A std::vector whose resize(n) leaves the new elements uninitialized (default-initialized:
// nothing happens for numbers). For host arrays of gigabytes that are filled right after on
// many threads (core::host_parallel_ranges): a plain std::vector value-initializes them on
// one thread, and that first touch (the kernel zeroing each page) is then serial, a large
// part of a short kNN run (docs/history/core.md).
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace trident::core {

// An allocator's construct() that leaves a new element default-initialized (numbers: not
// written), for allocators that want it (DefaultInitAllocator, transport::ArenaAllocator).
struct DefaultInitConstruct {
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T>
struct DefaultInitAllocator : std::allocator<T>, DefaultInitConstruct {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() noexcept = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  using DefaultInitConstruct::construct;
};

template <class T>
using UninitializedVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace trident::core
