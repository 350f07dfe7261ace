// On CUDA with Kokkos 4.3 or later: Kokkos' sort_by_key (Thrust's radix sort, stable for
// integer keys). Elsewhere a least-significant-digit radix sort (8-bit digits) in portable
// Kokkos, whose one thread a block of 1024 pairs suits host back ends. Each pass counts
// the digits of blocks of consecutive pairs, turns the counts into each block's first
// position per digit by one scan (digit-major, so equal digits keep the order of their
// blocks), and scatters each block in order: stable without atomics, the same on every
// back end. Passes over digits that no two keys differ in are skipped, so keys that share
// their high bits (points in one city) cost only the passes over the bits that vary.
#include "knn/detail/index/radix_sort.hpp"

#include <string>
#include <type_traits>
#include <utility>

#if defined(KOKKOS_ENABLE_CUDA) && KOKKOS_VERSION >= 40300
#include <Kokkos_Sort.hpp>
#define TRIDENT_INDEX_DEVICE_SORT 1
#endif

namespace trident::knn::index {

namespace {

constexpr int kRadixBits = 8;
constexpr int kDigits = 1 << kRadixBits;
// Pairs a block: one thread counts and scatters a block in order; the counts take
// kDigits ints a block (a quarter of the keys' bytes).
constexpr int kBlock = 1024;

using Counts = Kokkos::View<int*, DeviceMemory>;

// The bits in which at least two keys differ.
std::uint64_t varying_bits(const Keys& keys) {
  const int n = static_cast<int>(keys.extent(0));
  std::uint64_t any = 0, all = ~std::uint64_t(0);
  Kokkos::parallel_reduce(
      "trident::knn::index::key_bits_or", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(int i, std::uint64_t& v) { v |= keys(i); }, Kokkos::BOr<std::uint64_t>(any));
  Kokkos::parallel_reduce(
      "trident::knn::index::key_bits_and", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(int i, std::uint64_t& v) { v &= keys(i); }, Kokkos::BAnd<std::uint64_t>(all));
  return any ^ all;
}

// One stable pass on the digit at `shift`: from (keys, values) into (to_keys, to_values).
void radix_pass(const Keys& keys, const Values& values, const Keys& to_keys, const Values& to_values,
                const Counts& counts, int shift) {
  const int n = static_cast<int>(keys.extent(0));
  const int blocks = (n + kBlock - 1) / kBlock;
  Kokkos::parallel_for(
      "trident::knn::index::radix_count", Kokkos::RangePolicy<ExecSpace>(0, blocks), KOKKOS_LAMBDA(int b) {
        int local[kDigits];
        for (int d = 0; d < kDigits; ++d) local[d] = 0;
        const int end = (b + 1) * kBlock < n ? (b + 1) * kBlock : n;
        for (int i = b * kBlock; i < end; ++i) ++local[(keys(i) >> shift) & (kDigits - 1)];
        for (int d = 0; d < kDigits; ++d) counts(d * blocks + b) = local[d];
      });
  Kokkos::parallel_scan(
      "trident::knn::index::radix_offsets", Kokkos::RangePolicy<ExecSpace>(0, kDigits * blocks),
      KOKKOS_LAMBDA(int i, int& sum, bool final) {
        const int c = counts(i);
        if (final) counts(i) = sum;
        sum += c;
      });
  Kokkos::parallel_for(
      "trident::knn::index::radix_scatter", Kokkos::RangePolicy<ExecSpace>(0, blocks), KOKKOS_LAMBDA(int b) {
        int next[kDigits];
        for (int d = 0; d < kDigits; ++d) next[d] = counts(d * blocks + b);
        const int end = (b + 1) * kBlock < n ? (b + 1) * kBlock : n;
        for (int i = b * kBlock; i < end; ++i) {
          const int at = next[(keys(i) >> shift) & (kDigits - 1)]++;
          to_keys(at) = keys(i);
          to_values(at) = values(i);
        }
      });
}

}  // namespace

void sort_by_key(Keys& keys, Values& values) {
  const int n = static_cast<int>(keys.extent(0));
  if (n < 2) return;
#if defined(TRIDENT_INDEX_DEVICE_SORT)
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
    Kokkos::Experimental::sort_by_key(ExecSpace(), keys, values);
    return;
  }
#endif
  const std::uint64_t varying = varying_bits(keys);
  if (varying == 0) return;
  const auto no_init = [](const std::string& label) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, label); };
  Keys other_keys(no_init("trident::knn::index::sort_keys"), n);
  Values other_values(no_init("trident::knn::index::sort_values"), n);
  const Counts counts(no_init("trident::knn::index::sort_counts"), kDigits * ((n + kBlock - 1) / kBlock));
  for (int shift = 0; shift < 64; shift += kRadixBits) {
    if (((varying >> shift) & (kDigits - 1)) == 0) continue;
    radix_pass(keys, values, other_keys, other_values, counts, shift);
    std::swap(keys, other_keys);
    std::swap(values, other_values);
  }
}

}  // namespace trident::knn::index
