#pragma once
// Candidate buffers of the threshold screens (select_kernels.hpp, buffer_kernels.hpp),
// compacted and sorted by a lane group: the V lanes of a warp on CUDA work on one buffer
// together; on host back ends a group is one thread.
//
// A buffer holds (S, index) candidates of one observation. Equal values sit in index
// order (a running list arrives sorted by (S, index), appends come in index order and
// compaction is stable), which is what keeps the lower index on ties.
#include <Kokkos_Core.hpp>

#include "knn/detail/candidate_order.hpp"
#include "knn/detail/lane_group.hpp"
#include "knn/detail/screen_kernels.hpp"

namespace trident::knn {

// What a compaction leaves: the entries kept, at the front of the buffer, and the
// threshold that later references must beat.
template <class T>
struct Compaction {
  int kept;
  T tau;
};

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
// The bit pattern of rank `rank` (0-based, ties counted once each) among the buffer's
// values whose patterns lie in [lo, hi], of which there are at most V: each lane takes
// one of them (in buffer order), counts the others below and equal to it, and the lane
// whose range of ranks holds `rank` gives its value.
template <class T, int V>
KOKKOS_INLINE_FUNCTION typename ValueBits<T>::type rank_in_range(const Candidate<T>* buffer, int n,
                                                                 typename ValueBits<T>::type lo,
                                                                 typename ValueBits<T>::type hi, int rank,
                                                                 const LaneGroup& lanes) {
  using Bits = typename ValueBits<T>::type;
  Bits mine = ~Bits(0);
  int filled = 0;
  for (int base = 0; base < n; base += V) {
    const int i = base + lanes.lane;
    const Bits b = i < n ? to_bits(buffer[i].value) : ~Bits(0);
    const unsigned mask = lanes.ballot(i < n && b >= lo && b <= hi);
    const int want = lanes.lane - filled;
    const bool take = want >= 0 && want < LaneGroup::count(mask);
    const Bits got = LaneGroup::broadcast(b, take ? LaneGroup::nth(mask, want) : lanes.lane);
    if (take) mine = got;
    filled += LaneGroup::count(mask);
  }
  int less = 0, same = 0;
  for (int d = 0; d < filled; ++d) {
    const Bits other = LaneGroup::broadcast(mine, d);
    less += other < mine;
    same += other == mine;
  }
  const bool holds = lanes.lane < filled && less <= rank && rank < less + same;
  return LaneGroup::broadcast(mine, LaneGroup::lowest(lanes.ballot(holds)));
}

// Keeps, of the n entries (n >= kc), every one up to a cut value t, between kc and `most`
// of them (so among them the kc smallest by (S, index)), in buffer order, in [0, kept);
// returns kept and tau = t: a later reference (a higher index) enters only with
// S < t, and one with S >= t has at least kc kept entries ahead of it. With most == kc
// exactly the kc smallest stay. Counting passes narrow a range of bit patterns [lo, hi]
// that holds t (interpolating, then halving) until a count lands within [kc, most] or
// at most V values are left in the range, which rank_in_range orders. Every lane of the
// group calls it with the same arguments.
template <class T, int V>
KOKKOS_INLINE_FUNCTION Compaction<T> compact_candidates(Candidate<T>* buffer, int n, int kc, int most,
                                                     LaneGroup lanes) {
  using Bits = typename ValueBits<T>::type;
  Bits lo = ~Bits(0), hi = 0;
  for (int i = lanes.lane; i < n; i += V) {
    const Bits b = to_bits(buffer[i].value);
    lo = b < lo ? b : lo;
    hi = b > hi ? b : hi;
  }
  lo = LaneGroup::min(lo);
  hi = LaneGroup::max(hi);
  // invariant: at least kc values <= hi (c_hi of them), fewer than kc values < lo (c_lo)
  int c_lo = 0, c_hi = n;
  const T infinity = Kokkos::Experimental::infinity<T>::value;
  for (int pass = 0; lo < hi; ++pass) {
    if (c_hi - c_lo <= V) {
      // at most V values in [lo, hi]: one to a lane, and the cut is the one of rank
      // kc - c_lo - 1 among them
      hi = rank_in_range<T, V>(buffer, n, lo, hi, kc - c_lo - 1, lanes);
      break;
    }
    // The first passes interpolate: S below a threshold spreads about evenly over
    // [0, tau) for the near references a buffer holds (a cap's area grows with S), so a
    // straight line through (lo, c_lo) and (hi, c_hi) lands near the count wanted; later
    // passes halve the bit patterns, which always ends.
    Bits mid = lo + (hi - lo) / 2;
    const T lo_value = from_bits<T>(lo), hi_value = from_bits<T>(hi);
    if (pass < 3 && hi_value < infinity) {
      const double wanted = 0.5 * (kc + most) - c_lo;
      const T guess = static_cast<T>(lo_value + (hi_value - lo_value) * (wanted / (c_hi - c_lo)));
      const Bits b = to_bits(guess);
      mid = b < lo ? lo : b > hi - 1 ? hi - 1 : b;
    }
    int c = 0;
    for (int i = lanes.lane; i < n; i += V) c += to_bits(buffer[i].value) <= mid;
    c = LaneGroup::sum(c);
    if (c >= kc && c <= most) {
      hi = mid;
      break;
    }
    if (c > most) {
      hi = mid;
      c_hi = c;
    } else {
      lo = mid + 1;
      c_lo = c;
    }
  }
  const Bits cut = hi;
  int under = 0, at = 0;
  for (int i = lanes.lane; i < n; i += V) {
    const Bits b = to_bits(buffer[i].value);
    under += b < cut;
    at += b == cut;
  }
  under = LaneGroup::sum(under);
  at = LaneGroup::sum(at);
  // entries equal to the cut that stay: all, unless more than `most` would (many equal
  // values): then the first ones, the lowest indices, up to kc in all
  const int quota = under + at <= most ? at : kc - under;
  int written = 0, equal_seen = 0;
  for (int base = 0; base < n; base += V) {
    const int i = base + lanes.lane;
    const Candidate<T> c = i < n ? buffer[i] : Candidate<T>{0, kNoIndex};
    const Bits b = to_bits(c.value);
    const bool equal = i < n && b == cut;
    const unsigned equal_mask = lanes.ballot(equal);
    const bool keep = i < n && (b < cut || (equal && equal_seen + lanes.below(equal_mask) < quota));
    const unsigned keep_mask = lanes.ballot(keep);
    LaneGroup::sync();  // every lane has read its entry before any is overwritten
    if (keep) buffer[written + lanes.below(keep_mask)] = c;
    written += LaneGroup::count(keep_mask);
    equal_seen += LaneGroup::count(equal_mask);
  }
  LaneGroup::sync();
  return {written, from_bits<T>(cut)};
}

// Sorts entries [0, kc) by (S, index): a bitonic sort over the next power of two (padded
// with empty entries, which sort last; the buffer must hold that many), each stage's
// pairs shared by the lanes.
template <class T, int V>
KOKKOS_INLINE_FUNCTION void sort_candidates_in_lanes(Candidate<T>* buffer, int kc, LaneGroup lanes) {
  int n2 = 1;
  while (n2 < kc) n2 <<= 1;
  const T infinity = Kokkos::Experimental::infinity<T>::value;
  for (int i = kc + lanes.lane; i < n2; i += V) buffer[i] = Candidate<T>{infinity, kNoIndex};
  LaneGroup::sync();
  for (int size = 2; size <= n2; size <<= 1) {
    for (int stride = size / 2; stride > 0; stride >>= 1) {
      for (int pair = lanes.lane; pair < n2 / 2; pair += V) {
        const int i = 2 * pair - (pair & (stride - 1));  // pair's lower entry: bit `stride` clear
        const int partner = i + stride;
        const bool ascending = (i & size) == 0;
        const Candidate<T> a = buffer[i], b = buffer[partner];
        if (key_less(b, a) == ascending) {
          buffer[i] = b;
          buffer[partner] = a;
        }
      }
      LaneGroup::sync();
    }
  }
}
#else
// Host back ends (a group is one thread): exactly the kc smallest stay, by a radix
// selection (candidate_order.hpp); `most` is not used.
template <class T, int V>
KOKKOS_INLINE_FUNCTION Compaction<T> compact_candidates(Candidate<T>* buffer, int n, int kc, int, LaneGroup) {
  keep_smallest(buffer, n, kc);
  return {kc, buffer[kc - 1].value};
}
// (The buffer must hold 2 kc entries: the second kc are the sort's scratch.)
template <class T, int V>
KOKKOS_INLINE_FUNCTION void sort_candidates_in_lanes(Candidate<T>* buffer, int kc, LaneGroup) {
  sort_candidates(buffer, kc, buffer + kc);
}
#endif

}  // namespace trident::knn
