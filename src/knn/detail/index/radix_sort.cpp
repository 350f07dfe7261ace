// On CUDA: CUB's radix sort (stable), with its scratch and second arrays from the caller's
// SortSpace (Thrust's, under Kokkos' sort_by_key, allocates and frees its own each call).
// Elsewhere a least-significant-digit radix sort (8-bit digits) in portable
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

#include "knn/detail/index/kept_buffer.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cub/device/device_radix_sort.cuh>
#define TRIDENT_INDEX_DEVICE_SORT 1
#endif

namespace trident::knn::index {

namespace {

constexpr int kRadixBits = 8;
constexpr int kDigits = 1 << kRadixBits;
// Pairs a block: one thread counts and scatters a block in order; the counts take
// kDigits ints a block (a quarter of the keys' bytes).
constexpr int kBlock = 1024;

using Counts = Values;

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

void sort_by_key(Keys& keys, Values& values, SortSpace& space) {
  const int n = static_cast<int>(keys.extent(0));
  if (n < 2) return;
  const auto count = static_cast<std::size_t>(n);
  Keys other_keys = first_of(space.keys, count, "trident::knn::index::sort_keys");
  Values other_values = first_of(space.values, count, "trident::knn::index::sort_values");
#if defined(TRIDENT_INDEX_DEVICE_SORT)
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
    cub::DoubleBuffer<std::uint64_t> key_buffers(keys.data(), other_keys.data());
    cub::DoubleBuffer<int> value_buffers(values.data(), other_values.data());
    std::size_t bytes = 0;
    KOKKOS_IMPL_CUDA_SAFE_CALL(cub::DeviceRadixSort::SortPairs(nullptr, bytes, key_buffers, value_buffers, n));
    const auto scratch = first_of(space.scratch, bytes, "trident::knn::index::sort_scratch");
    KOKKOS_IMPL_CUDA_SAFE_CALL(cub::DeviceRadixSort::SortPairs(scratch.data(), bytes, key_buffers, value_buffers, n,
                                                               0, 64, ExecSpace().cuda_stream()));
    if (key_buffers.Current() != keys.data()) std::swap(keys, other_keys);
    if (value_buffers.Current() != values.data()) std::swap(values, other_values);
    return;
  }
#endif
  const std::uint64_t varying = varying_bits(keys);
  if (varying == 0) return;
  const Counts counts = first_of(space.counts, static_cast<std::size_t>(kDigits) * ((count + kBlock - 1) / kBlock),
                                 "trident::knn::index::sort_counts");
  for (int shift = 0; shift < 64; shift += kRadixBits) {
    if (((varying >> shift) & (kDigits - 1)) == 0) continue;
    radix_pass(keys, values, other_keys, other_values, counts, shift);
    std::swap(keys, other_keys);
    std::swap(values, other_values);
  }
}

void sort_by_key(Keys& keys, Values& values) {
  SortSpace space;
  sort_by_key(keys, values, space);
}

}  // namespace trident::knn::index
