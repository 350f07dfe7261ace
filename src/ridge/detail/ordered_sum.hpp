#pragma once
// A sum over the threads of one range launch, finished inside that launch by the warp that
// ends last, in an order fixed by the thread indices alone: the same bits whichever warps
// run first. Each warp adds its lanes (warp::sum) and stores the partial; the last warp of
// each group of 64 warps (an atomic count) adds the group's partials in index order; the
// last group's warp adds the groups' partials, lane l those of groups l, l + 32, ...,
// and the lanes by warp::sum. That warp can then go on with work that needs the total (the
// ridge recurrences after ||A^T u||), which saves a launch: Kokkos' parallel_reduce gives
// its result only to later launches. On host back ends a warp is one thread.
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "ridge/detail/execution.hpp"

namespace trident::ridge {

// Another warp's store, made visible by its fence and ours: read from the device's
// coherent cache (L2 on CUDA, past this multiprocessor's L1), not from a stale line.
KOKKOS_INLINE_FUNCTION double fresh_load(const double* p) {
#if defined(__CUDA_ARCH__)
  return __ldcg(p);
#else
  return *static_cast<const volatile double*>(p);
#endif
}

struct OrderedSum {
  static constexpr int kGroup = 64;  // warps whose partials one warp adds

  Kokkos::View<double*, RidgeDevice> warp_partials, group_partials;
  // Warps (groups) of the current launch that have stored their partial: the last resets
  // its count to 0, so every launch starts from zeros.
  Kokkos::View<unsigned*, RidgeDevice> group_counts;
  Kokkos::View<unsigned, RidgeDevice> groups_done;

  OrderedSum() = default;
  // For launches of at most `most_threads` threads.
  explicit OrderedSum(std::int64_t most_threads)
      : warp_partials(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::warp_partials"),
                      warps(most_threads)),
        group_partials(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::group_partials"),
                       groups(warps(most_threads))),
        group_counts("trident::ridge::group_counts", groups(warps(most_threads))),
        groups_done("trident::ridge::groups_done") {}

  // Threads a launch of `threads` working threads has: whole warps (the padding adds 0).
  static std::int64_t padded(std::int64_t threads) { return warps(threads) * kWarpLanes; }
  KOKKOS_INLINE_FUNCTION static std::int64_t warps(std::int64_t threads) {
    return (threads + kWarpLanes - 1) / kWarpLanes;
  }
  KOKKOS_INLINE_FUNCTION static std::int64_t groups(std::int64_t warps) { return (warps + kGroup - 1) / kGroup; }

  // Called once by every thread t of a launch of `threads` (padded()) threads, all lanes
  // of a warp together, with the thread's value. True in every lane of the warp that ends
  // last, with `total` the sum of all values (the same bits in every lane).
  KOKKOS_INLINE_FUNCTION bool add(const std::int64_t t, const std::int64_t threads, const double value,
                                  double& total) const {
    const int lane = warp_lane(t);
    const std::int64_t warp_index = t / kWarpLanes, warp_count = threads / kWarpLanes;
    const std::int64_t group = warp_index / kGroup, group_count = groups(warp_count);
    const std::int64_t first = group * kGroup;
    const int members = static_cast<int>(warp_count - first < kGroup ? warp_count - first : kGroup);
    const double partial = warp::sum(value);
    int last = 0;
    if (lane == 0) {
      warp_partials(warp_index) = partial;
      Kokkos::memory_fence();  // the partial is visible before the count says so
      last = Kokkos::atomic_fetch_add(&group_counts(group), 1u) == static_cast<unsigned>(members - 1);
    }
    if (!warp::broadcast(last, 0)) return false;
    Kokkos::memory_fence();
    double group_sum = 0;
    for (int k = lane; k < members; k += kWarpLanes) group_sum += fresh_load(warp_partials.data() + first + k);
    group_sum = warp::sum(group_sum);
    last = 0;
    if (lane == 0) {
      group_counts(group) = 0;
      group_partials(group) = group_sum;
      Kokkos::memory_fence();
      last = Kokkos::atomic_fetch_add(&groups_done(), 1u) == static_cast<unsigned>(group_count - 1);
    }
    if (!warp::broadcast(last, 0)) return false;
    Kokkos::memory_fence();
    // The groups' partials in batches of kBatch a lane, all loads of a batch issued before
    // its additions: this sum is the launch's last work, and loads one after the other (as
    // volatile ones are) would make it a round trip to memory per group and lane.
    constexpr int kBatch = 16;
    double sum = 0;
    for (std::int64_t base = lane; base < group_count; base += std::int64_t(kBatch) * kWarpLanes) {
      double batch[kBatch];
      for (int b = 0; b < kBatch; ++b) {
        const std::int64_t k = base + std::int64_t(b) * kWarpLanes;
        batch[b] = k < group_count ? fresh_load(group_partials.data() + k) : 0.0;
      }
      for (int b = 0; b < kBatch; ++b) sum += batch[b];
    }
    total = warp::sum(sum);
    if (lane == 0) groups_done() = 0;
    return true;
  }
};

}  // namespace trident::ridge
