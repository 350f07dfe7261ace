#pragma once
// Device arrays kept from one call to the next (a search's rounds, a sort's second arrays):
// allocating and freeing device memory waits for the whole device, so they grow, and are
// not made again, when a call needs more.
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <utility>

namespace trident::knn {

// The first n of `buffer`, which grows (a quarter more than asked) when it holds fewer.
template <class V>
V first_of(V& buffer, std::size_t n, const char* label) {
  if (buffer.extent(0) < n) {
    buffer = V();
    buffer = V(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n + n / 4);
  }
  return Kokkos::subview(buffer, std::make_pair(std::size_t(0), n));
}

}  // namespace trident::knn
