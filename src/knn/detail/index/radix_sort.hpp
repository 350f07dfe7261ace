#pragma once
// A stable sort of (64-bit key, int value) pairs by key on the device, in portable Kokkos:
// the index sorts its references, and a search its observations, by their cube keys.
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "knn/detail/screen_kernels.hpp"

namespace trident::knn::index {

using Keys = Kokkos::View<std::uint64_t*, DeviceMemory>;
using Values = Kokkos::View<int*, DeviceMemory>;

// What a sort writes besides its input: a second pair of arrays and scratch, kept by a
// caller that sorts again (a search's rounds), so that its sorts neither allocate nor free
// device memory. Freeing waits for the whole device, copies on other queues included.
struct SortSpace {
  Keys keys;
  Values values;
  Kokkos::View<unsigned char*, DeviceMemory> scratch;  // CUB's, on CUDA
  Values counts;  // the portable sort's digit counts, elsewhere
};

// Sorts keys(0..n) ascending, moving values(i) with keys(i); pairs of equal keys keep their
// order. The views may be replaced by others of the same size that hold the result (the
// sort ping-pongs between them and a second pair, from `space`, which grows as needed).
// Queued on the default instance; returns before it is done. Needs n < 2^31.
void sort_by_key(Keys& keys, Values& values, SortSpace& space);
// As above, with a space of its own.
void sort_by_key(Keys& keys, Values& values);

}  // namespace trident::knn::index
