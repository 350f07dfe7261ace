#pragma once
// The any-k screen: lists longer than the register buckets (k > 25), and float64 lists on
// GPUs (whose register lists spill to local memory). It keeps the Kc smallest (S, index)
// pairs of every observation with a threshold and a candidate buffer instead of an ordered
// list, so the cost of a pair is a compare against the threshold whatever Kc is:
//
// - One observation per "lane group" of V threads: a warp on CUDA (V = 32), one thread
//   on host backends (V = 1). The group's lanes take V staged references at a time.
// - A reference whose S is below the threshold tau is appended to the group's buffer
//   (team scratch, `capacity` entries); on a GPU the lanes' candidates are placed by a
//   ballot in lane (= index) order.
// - When the buffer could overflow at the next step it is compacted to the Kc smallest
//   by (S, index) and tau becomes the Kc-th value: later references (higher indices) enter
//   only with S < tau, so an equal S keeps the lower index, as in the register lists.
//   A candidate buffer fills only about ln(n / Kc) times per tile on random data.
// - At the end of the tile the Kc kept entries are sorted by (S, index) into `best`.
//
// Compaction on a GPU: a bisection over the bit patterns of the (non-negative) values
// finds the Kc-th value t with counting passes (each lane counts capacity / V entries),
// then a stable pass keeps every S < t and the first of the S = t in buffer order. The
// buffer holds equal values in index order (the running list arrives sorted by (S, index),
// appends come in index order, compaction is stable), so that keeps the lowest indices.
// On host backends (one thread per list) nth_element and sort on (S, index) do the same.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>

#include "knn/screen_kernels.hpp"

#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#include <algorithm>
#endif

namespace trident::knn {

// Lanes per observation of the any-k screen: a warp on CUDA, one thread elsewhere.
#if defined(KOKKOS_ENABLE_CUDA)
constexpr int kSelectLanes = std::is_same<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>::value ? 32 : 1;
#else
constexpr int kSelectLanes = 1;
#endif

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

// Lane-group primitives: on CUDA warp intrinsics over the V lanes of a warp; elsewhere a
// group is one thread and they reduce to the identity.
struct LaneGroup {
  int lane = 0;
#if defined(__CUDA_ARCH__)
  KOKKOS_FORCEINLINE_FUNCTION unsigned ballot(bool p) const { return __ballot_sync(0xffffffffu, p); }
  // lanes below this one whose predicate holds
  KOKKOS_FORCEINLINE_FUNCTION int below(unsigned mask) const { return __popc(mask & ((1u << lane) - 1u)); }
  KOKKOS_FORCEINLINE_FUNCTION static int count(unsigned mask) { return __popc(mask); }
  KOKKOS_FORCEINLINE_FUNCTION static void sync() { __syncwarp(); }
  template <class U>
  KOKKOS_FORCEINLINE_FUNCTION static U sum(U v) {
    for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
  }
  template <class U>
  KOKKOS_FORCEINLINE_FUNCTION static U min(U v) {
    for (int d = 16; d > 0; d >>= 1) {
      const U w = __shfl_xor_sync(0xffffffffu, v, d);
      v = w < v ? w : v;
    }
    return v;
  }
  template <class U>
  KOKKOS_FORCEINLINE_FUNCTION static U max(U v) {
    for (int d = 16; d > 0; d >>= 1) {
      const U w = __shfl_xor_sync(0xffffffffu, v, d);
      v = w > v ? w : v;
    }
    return v;
  }
#else
  KOKKOS_FORCEINLINE_FUNCTION unsigned ballot(bool p) const { return p ? 1u : 0u; }
  KOKKOS_FORCEINLINE_FUNCTION int below(unsigned) const { return 0; }
  KOKKOS_FORCEINLINE_FUNCTION static int count(unsigned mask) { return static_cast<int>(mask); }
  KOKKOS_FORCEINLINE_FUNCTION static void sync() {}
  template <class U>
  KOKKOS_FORCEINLINE_FUNCTION static U sum(U v) { return v; }
  template <class U>
  KOKKOS_FORCEINLINE_FUNCTION static U min(U v) { return v; }
  template <class U>
  KOKKOS_FORCEINLINE_FUNCTION static U max(U v) { return v; }
#endif
};

template <class T, int V>
struct SelectScreen {
  PointsView<T> obs, refs;
  ListValues<T> best;  // in: the running list (sorted, kc entries); out: the new one
  ListIndices best_index;
  int n_obs = 0, n_refs = 0, ref_offset = 0, stage = 0, kc = 0, capacity = 0;
  int first_obs = 0;     // the launch covers list rows [first_obs, first_obs + n_obs)
  int buffer_level = 0;  // team scratch level of the candidate buffers (1 when too large for 0)

  // Buffer entries per list, a multiple of V: on GPUs two lists' worth (so a compaction
  // frees at least Kc) plus two steps, within shared memory; on host backends (one list
  // at a time, in cache) four lists' worth, so fewer compactions run.
  static int capacity_for(int kc) { return V == 1 ? 4 * kc + 2 : (2 * kc + 2 * V + V - 1) / V * V; }

  KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& team) const {
    const int ts = team.team_size(), t = team.team_rank();
    const int groups = ts / V, g = t / V;
    LaneGroup lanes;
    lanes.lane = t % V;
    const int o = first_obs + team.league_rank() * groups + g;
    const bool valid = o < first_obs + n_obs && g < groups;
    const ScratchPoints<T> shared(team.team_scratch(0), stage);
    const ScratchCandidates<T> all(team.team_scratch(buffer_level), groups * capacity);
    Candidate<T>* buffer = all.data() + g * capacity;
    const T infinity = Kokkos::Experimental::infinity<T>::value;
    const Vec4<T> p = valid ? obs(o) : Vec4<T>{0, 0, 0, 0};
    // the running list, sorted by (S, index); empty slots are (+inf, kNoIndex)
    int count = 0;
    T tau = -infinity;  // padding groups never take a candidate
    if (valid) {
      for (int i = lanes.lane; i < kc; i += V) buffer[i] = Candidate<T>{best(o, i), best_index(o, i)};
      count = kc;
      tau = best(o, kc - 1);
    }
    LaneGroup::sync();
    if (V == 1) {
      // host backends: one thread per team, the tile already in cache; staging it in team
      // scratch for a single observation would cost as much as its chords
      for (int j = 0; j < n_refs; ++j) {
        const T v = squared_chord(p, refs(j));
        if (v < tau) {
          buffer[count++] = Candidate<T>{v, ref_offset + j};
          if (count == capacity) {
            tau = compact(buffer, count, lanes);
            count = kc;
          }
        }
      }
    }
    for (int start = 0; V > 1 && start < n_refs; start += stage) {
      const int m = n_refs - start < stage ? n_refs - start : stage;
      stage_references(team, shared, refs, start, m);
      const int index = ref_offset + start;
      for (int j0 = 0; j0 < m; j0 += V) {
        const int j = j0 + lanes.lane;
        const T v = j < m ? squared_chord(p, shared(j)) : infinity;
        const bool take = v < tau;
        const unsigned mask = lanes.ballot(take);
        if (mask == 0u) continue;
        if (take) buffer[count + lanes.below(mask)] = Candidate<T>{v, index + j};
        count += LaneGroup::count(mask);
        if (count > capacity - V) {
          LaneGroup::sync();
          tau = compact(buffer, count, lanes);
          count = kc;
        }
      }
    }
    if (!valid) return;
    LaneGroup::sync();
    if (count > kc) compact(buffer, count, lanes);
    sort_kept(buffer, lanes);
    for (int i = lanes.lane; i < kc; i += V) {
      best(o, i) = buffer[i].value;
      best_index(o, i) = buffer[i].index;
    }
  }

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  // Keeps the kc smallest of the n entries by (S, index), in buffer order, in [0, kc);
  // returns the kc-th value (or a value at least as large: a looser threshold only lets
  // in candidates that the next compaction drops).
  KOKKOS_INLINE_FUNCTION T compact(Candidate<T>* buffer, int n, const LaneGroup& lanes) const {
    using Bits = typename ValueBits<T>::type;
    Bits lo = ~Bits(0), hi = 0;
    for (int i = lanes.lane; i < n; i += V) {
      const Bits b = to_bits(buffer[i].value);
      lo = b < lo ? b : lo;
      hi = b > hi ? b : hi;
    }
    lo = LaneGroup::min(lo);
    hi = LaneGroup::max(hi);
    // the smallest t with at least kc values <= t (at most kc when a count hits kc)
    while (lo < hi) {
      const Bits mid = lo + (hi - lo) / 2;
      int c = 0;
      for (int i = lanes.lane; i < n; i += V) c += to_bits(buffer[i].value) <= mid;
      c = LaneGroup::sum(c);
      if (c == kc) {
        hi = mid;
        break;
      }
      if (c > kc) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    const Bits cut = hi;
    int under = 0;
    for (int i = lanes.lane; i < n; i += V) under += to_bits(buffer[i].value) < cut;
    under = LaneGroup::sum(under);
    const int quota = kc - under;  // entries equal to the cut that stay: the first ones
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
    return from_bits<T>(cut);
  }

  // Sorts entries [0, kc) by (S, index): a bitonic sort over the next power of two
  // (padded with empty entries, which sort last), the lanes sharing each stage.
  KOKKOS_INLINE_FUNCTION void sort_kept(Candidate<T>* buffer, const LaneGroup& lanes) const {
    int n2 = 1;
    while (n2 < kc) n2 <<= 1;
    const T infinity = Kokkos::Experimental::infinity<T>::value;
    for (int i = kc + lanes.lane; i < n2; i += V) buffer[i] = Candidate<T>{infinity, kNoIndex};
    LaneGroup::sync();
    for (int size = 2; size <= n2; size <<= 1) {
      for (int stride = size / 2; stride > 0; stride >>= 1) {
        for (int i = lanes.lane; i < n2; i += V) {
          const int partner = i ^ stride;
          if (partner > i) {
            const bool ascending = (i & size) == 0;
            const Candidate<T> a = buffer[i], b = buffer[partner];
            if (key_less(b, a) == ascending) {
              buffer[i] = b;
              buffer[partner] = a;
            }
          }
        }
        LaneGroup::sync();
      }
    }
  }
#else
  KOKKOS_INLINE_FUNCTION T compact(Candidate<T>* buffer, int n, const LaneGroup&) const {
    std::nth_element(buffer, buffer + (kc - 1), buffer + n, KeyLess{});
    return buffer[kc - 1].value;
  }
  KOKKOS_INLINE_FUNCTION void sort_kept(Candidate<T>* buffer, const LaneGroup&) const {
    std::sort(buffer, buffer + kc, KeyLess{});
  }
#endif
};

}  // namespace trident::knn
