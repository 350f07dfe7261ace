#pragma once
// Host memory made once ahead of many arrays: allocated (huge pages advised), first touched
// on every host thread and page-locked in one go, then handed out in pieces. Arrays made from
// it come back from the device at the link's rate with no lock of their own: locking each
// array as it is made holds the driver while the work's thread launches and copies, which
// cost more than the copies it spared (docs/history/knn.md). An array that no longer fits
// takes ordinary memory. The arena lives as long as an array made from it.
#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/uninitialized_vector.hpp"
#include "transport/page_lock.hpp"

namespace trident::transport {

class LockedArena {
 public:
  // `bytes` of host memory, touched and locked here (the lock where the build has a device;
  // elsewhere the memory is ordinary).
  explicit LockedArena(std::size_t bytes);
  ~LockedArena();
  LockedArena(const LockedArena&) = delete;
  LockedArena& operator=(const LockedArena&) = delete;

  // `bytes` from the arena's free end (64-byte aligned), or null when they do not fit.
  // Pieces are not reused: the arena is for arrays kept until it goes. Any thread.
  void* take(std::size_t bytes);
  // Whether [data, data + bytes) lies in the arena (page-locked where a lock was made).
  bool holds(const void* data, std::size_t bytes) const;

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0, used_ = 0;
  std::mutex taking_;
  std::unique_ptr<PageLock> lock_;
};

// A vector allocator that takes from an arena where it has one and the array fits there,
// else from the heap; it leaves new elements uninitialized, as core::UninitializedVector.
template <class T>
struct ArenaAllocator : core::DefaultInitConstruct {
  using value_type = T;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_copy_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;
  template <class U>
  struct rebind {
    using other = ArenaAllocator<U>;
  };

  std::shared_ptr<LockedArena> arena;

  ArenaAllocator() noexcept = default;
  explicit ArenaAllocator(std::shared_ptr<LockedArena> a) noexcept : arena(std::move(a)) {}
  template <class U>
  ArenaAllocator(const ArenaAllocator<U>& other) noexcept : arena(other.arena) {}

  T* allocate(std::size_t n) {
    if (arena) {
      if (void* p = arena->take(n * sizeof(T))) return static_cast<T*>(p);
    }
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (arena && arena->holds(p, n * sizeof(T))) return;  // freed with the arena
    ::operator delete(p);
  }
  template <class U>
  bool operator==(const ArenaAllocator<U>& other) const noexcept {
    return arena == other.arena;
  }
  template <class U>
  bool operator!=(const ArenaAllocator<U>& other) const noexcept {
    return arena != other.arena;
  }
};

template <class T>
using ArenaVector = std::vector<T, ArenaAllocator<T>>;

// An empty vector whose storage comes from `arena` where it fits (null: the heap).
template <class T>
ArenaVector<T> arena_vector(const std::shared_ptr<LockedArena>& arena) {
  return ArenaVector<T>(ArenaAllocator<T>(arena));
}

}  // namespace trident::transport
