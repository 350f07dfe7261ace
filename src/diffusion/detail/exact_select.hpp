#pragma once
// The k-th smallest of values spread over ranks, exactly: a radix selection on 64-bit
// keys whose order is the values' order. Each pass counts, on the device, the keys that
// share the prefix found so far by their next 11 bits, sums those counts over the ranks
// (integers: exact whatever the order) and keeps the digit where rank k falls; after six
// passes the key is known. Ties need nothing special: the answer is the value at rank k.
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace trident::diffusion {

// A key that orders finite doubles as their values (-0 just below +0); every finite
// value's key is below kExcludedKey.
KOKKOS_INLINE_FUNCTION std::uint64_t order_key(double value) {
  union {  // the bits of the double (GCC, Clang and nvcc define this)
    double value;
    std::uint64_t bits;
  } pun{value};
  const std::uint64_t bits = pun.bits;
  return (bits >> 63) ? ~bits : bits | 0x8000000000000000ull;
}

double from_order_key(std::uint64_t key);

// A key ranked after every value: cells that take no part (outside the jagged field's disc).
constexpr std::uint64_t kExcludedKey = ~0ull;

// The key at rank `k` (from 0) in increasing order of all ranks' `keys` together; every
// rank gets it. Collective over `comm`; `k` must be below the total count.
std::uint64_t select_key(MPI_Comm comm, const Kokkos::View<const std::uint64_t*>& keys, std::int64_t k);

}  // namespace trident::diffusion
