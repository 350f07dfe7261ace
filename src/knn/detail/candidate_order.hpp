#pragma once
// The order of screening candidates, (S, index) ascending: the bit patterns of the
// non-negative values S (ordered like the values), the key comparison, and on host back
// ends a radix selection and sort by that key. std::nth_element and std::sort over a host
// list (one thread per observation) took most of a large-k screen's time, in mispredicted
// compares; the histogram passes below branch on nothing but the loop.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "knn/detail/screen_kernels.hpp"

namespace trident::knn {

template <class T>
struct ValueBits;
template <>
struct ValueBits<float> {
  using type = std::uint32_t;
};
template <>
struct ValueBits<double> {
  using type = std::uint64_t;
};

// Bit pattern of a non-negative value (+0 to +inf): ordered like the values.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION typename ValueBits<T>::type to_bits(T v) {
  typename ValueBits<T>::type b;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T from_bits(typename ValueBits<T>::type b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

template <class T>
KOKKOS_FORCEINLINE_FUNCTION bool key_less(const Candidate<T>& a, const Candidate<T>& b) {
  return a.value < b.value || (a.value == b.value && a.index < b.index);
}
// The same as a function object (inlined by the host algorithms, unlike a pointer).
struct KeyLess {
  template <class T>
  bool operator()(const Candidate<T>& a, const Candidate<T>& b) const {
    return key_less(a, b);
  }
};

// Host functions (the GPU screens compact by bisection: select_kernels.hpp).
// Lists shorter than these keep the comparison algorithms: a histogram costs its bins.
constexpr int kRadixSelectFrom = 128;
constexpr int kRadixSortFrom = 192;

// Moves the kc smallest of a[0, n) by (S, index) into a[0, kc), the kc-th of them at
// a[kc - 1] (0 < kc <= n; values non-negative). A histogram of the bit patterns between
// the smallest and largest (about a bin per two entries, 64 to 1024) finds the bin that
// holds the kc-th; the bins below it move to the front, then that bin, whose entries
// nth_element orders.
template <class T>
void keep_smallest(Candidate<T>* a, int n, int kc) {
  using Bits = typename ValueBits<T>::type;
  if (n < kRadixSelectFrom || kc == n) {
    std::nth_element(a, a + (kc - 1), a + n, KeyLess{});
    return;
  }
  Bits lo = ~Bits(0), hi = 0;
  for (int i = 0; i < n; ++i) {
    const Bits b = to_bits(a[i].value);
    lo = b < lo ? b : lo;
    hi = b > hi ? b : hi;
  }
  int bins = 64;  // about one bin per two entries, at most 1024
  while (bins < 1024 && 2 * bins < n) bins *= 2;
  int shift = 0;
  while (((hi - lo) >> shift) >= static_cast<Bits>(bins)) ++shift;
  int count[1025];
  std::fill(count, count + bins + 1, 0);
  for (int i = 0; i < n; ++i) ++count[(to_bits(a[i].value) - lo) >> shift];
  int bin = 0, below = 0;
  while (below + count[bin] < kc) below += count[bin++];
  // One pass without data-dependent branches (std::partition's were a third of the time):
  // the lower bins' entries slide to the front in place (each written over a slot already
  // read), the kc-th's bin goes to a scratch array and then after them.
  thread_local std::vector<Candidate<T>> same;
  if (static_cast<int>(same.size()) < n + 1) same.resize(static_cast<std::size_t>(n) + 1);
  int lower = 0, equal = 0;
  for (int i = 0; i < n; ++i) {
    const Candidate<T> c = a[i];
    const int b = static_cast<int>((to_bits(c.value) - lo) >> shift);
    a[lower] = c;
    lower += b < bin;
    same[equal] = c;
    equal += b == bin;
  }
  std::copy(same.begin(), same.begin() + equal, a + lower);
  std::nth_element(a + lower, a + (kc - 1), a + lower + equal, KeyLess{});
}

// Sorts a[0, n) by (S, index), with temp[0, n) as scratch: a stable least-significant-digit
// radix sort of the bit patterns, 8 or 11 bits a pass, then each run of equal values by
// index.
template <class T>
void sort_candidates(Candidate<T>* a, int n, Candidate<T>* temp) {
  using Bits = typename ValueBits<T>::type;
  if (n < kRadixSortFrom) {
    std::sort(a, a + n, KeyLess{});
    return;
  }
  Bits all = 0;  // the bits that vary decide the passes
  const Bits first = to_bits(a[0].value);
  for (int i = 1; i < n; ++i) all |= to_bits(a[i].value) ^ first;
  // Digits of 8 bits for short lists (a pass costs its bins as much as its entries), 11
  // for longer ones (fewer passes).
  const int digit = n < 1024 ? 8 : 11;
  const int radix = 1 << digit;
  Candidate<T>* from = a;
  Candidate<T>* to = temp;
  for (int shift = 0; shift < static_cast<int>(8 * sizeof(Bits)) && (all >> shift) != 0; shift += digit) {
    int start[2049];
    std::fill(start, start + radix + 1, 0);
    for (int i = 0; i < n; ++i) ++start[((to_bits(from[i].value) >> shift) & (radix - 1)) + 1];
    for (int d = 0; d < radix; ++d) start[d + 1] += start[d];
    for (int i = 0; i < n; ++i) to[start[(to_bits(from[i].value) >> shift) & (radix - 1)]++] = from[i];
    std::swap(from, to);
  }
  if (from != a) std::copy(from, from + n, a);
  for (int i = 0; i < n;) {  // runs of equal values, by index
    int j = i + 1;
    while (j < n && a[j].value == a[i].value) ++j;
    if (j - i > 1) std::sort(a + i, a + j, KeyLess{});
    i = j;
  }
}

}  // namespace trident::knn
