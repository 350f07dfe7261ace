#pragma once
// The any-k screen: lists longer than the register lists (on GPUs 80 entries in float32
// and 64 in float64, so k above 64 and 51; on host back ends 32, k above 25). It keeps the
// Kc smallest (S, index) pairs of every observation with a threshold and a candidate
// buffer instead of an ordered list, so the cost of a pair is a compare against the
// threshold whatever Kc is:
//
// - M observations per "lane group" of V threads: a warp on CUDA (V = 32, M = 4 while
//   the group's buffers stay small, else 1), one observation per thread on host backends
//   (V = 1). The group's lanes take V staged references at a time, each lane one reference
//   and its chords to all M observations: a staged point is read from shared memory once
//   for M pairs.
// - A reference whose S is below its observation's threshold tau is appended to that
//   observation's buffer (team scratch, `capacity` entries); on a GPU the lanes'
//   candidates are placed by a ballot in lane (= index) order. One vote per step skips
//   the ballots when no lane has a candidate, the common case.
// - When a buffer could overflow at the next step it is compacted: every entry up to a cut
//   value t stays, at least Kc of them (so the Kc smallest by (S, index)) and on GPUs at
//   most Kc + max(V, Kc/4), and tau becomes t: later references (higher indices) enter
//   only with S < t, so an equal S keeps the lower index, as in the register lists.
//   A candidate buffer fills only about ln(n / Kc) times per tile on random data.
// - At the end of the tile exactly the Kc smallest are kept and sorted by (S, index) into
//   `best`.
//
// Compaction on a GPU: a bisection over the bit patterns of the (non-negative) values
// finds t with counting passes (each lane counts capacity / V entries; the slack above Kc
// ends it after a few), then a stable pass keeps every S < t and the S = t in buffer
// order (only the first ones when too many values equal t). The buffer holds equal values
// in index order (the running list arrives sorted by (S, index), appends come in index
// order, compaction is stable), so that keeps the lowest indices. On host backends (one
// thread per list) nth_element and sort on (S, index) keep exactly Kc.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>

#include "knn/candidate_order.hpp"
#include "knn/screen_kernels.hpp"

namespace trident::knn {

// Lanes per observation of the any-k screen: a warp on CUDA, one thread elsewhere.
#if defined(KOKKOS_ENABLE_CUDA)
constexpr int kSelectLanes = std::is_same<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>::value ? 32 : 1;
#else
constexpr int kSelectLanes = 1;
#endif

// Lane-group primitives: on CUDA warp intrinsics over the V lanes of a warp; elsewhere a
// group is one thread and they reduce to the identity.
struct LaneGroup {
  int lane = 0;
#if defined(__CUDA_ARCH__)
  KOKKOS_FORCEINLINE_FUNCTION unsigned ballot(bool p) const { return __ballot_sync(0xffffffffu, p); }
  KOKKOS_FORCEINLINE_FUNCTION static bool any(bool p) { return __any_sync(0xffffffffu, p); }
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
  KOKKOS_FORCEINLINE_FUNCTION static bool any(bool p) { return p; }
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

template <class T, int V, int M>
struct SelectScreen {
  static_assert(V > 1 || M == 1, "host backends screen one observation per thread");
  ScreenFrame<T> frame;
  ListValues<T> best;  // in: the running list (sorted, kc entries); out: the new one
  ListIndices best_index;
  int n_obs = 0, n_refs = 0, ref_offset = 0, stage = 0, kc = 0, capacity = 0;
  int first_obs = 0;     // the launch covers list rows [first_obs, first_obs + n_obs)
  int buffer_level = 0;  // team scratch level of the candidate buffers (1 when too large for 0)

  // Buffer entries per list, a multiple of V: on GPUs two lists' worth plus two steps, so
  // that a compaction (which keeps at most most_kept(kc)) frees at least 3/4 of a list;
  // on host backends (one list at a time, in cache) four lists' worth, so fewer
  // compactions run.
  static int capacity_for(int kc) { return V == 1 ? 4 * kc + 2 : (2 * kc + 2 * V + V - 1) / V * V; }
  // A compaction on a GPU keeps between kc and this many entries (all those up to a cut
  // value; see compact): a looser cut ends the bisection after a few counting passes.
  KOKKOS_INLINE_FUNCTION static int most_kept(int kc) { return kc + (kc / 4 > V ? kc / 4 : V); }

  KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& team) const {
    const int ts = team.team_size(), t = team.team_rank();
    const int groups = ts / V, g = t / V;
    LaneGroup lanes;
    lanes.lane = t % V;
    const int o0 = first_obs + (team.league_rank() * groups + g) * M;
    const int end = first_obs + n_obs;
    const ScratchPoints<T> shared(team.team_scratch(0), stage);
    const ScratchCandidates<T> all(team.team_scratch(buffer_level), groups * M * capacity);
    Candidate<T>* buffers = all.data() + g * M * capacity;
    const T infinity = Kokkos::Experimental::infinity<T>::value;
    const int team_first = first_obs + team.league_rank() * groups * M;
    const Vec4<double> centre =
        frame.centre(team_first, (team_first + groups * M < end ? team_first + groups * M : end) - 1);
    // the group's M observations, each with its running list (sorted by (S, index); empty
    // slots are (+inf, kNoIndex)) in its buffer, its entry count and its threshold
    Vec4<T> p[M];
    int count[M];
    T tau[M];
    TRIDENT_UNROLL
    for (int a = 0; a < M; ++a) {
      const int o = o0 + a;
      const bool valid = g < groups && o < end;
      p[a] = valid ? frame.observation(o, centre, lanes.lane == 0) : Vec4<T>{0, 0, 0, 0};
      count[a] = 0;
      tau[a] = -infinity;  // padding observations never take a candidate
      if (valid) {
        Candidate<T>* buffer = buffers + a * capacity;
        for (int i = lanes.lane; i < kc; i += V) buffer[i] = Candidate<T>{best(o, i), best_index(o, i)};
        count[a] = kc;
        tau[a] = best(o, kc - 1);
      }
    }
    LaneGroup::sync();
    if (V == 1) {
      // host backends: one thread per team, the tile already in cache; staging it in team
      // scratch for a single observation would cost as much as its chords
      // Every chord is written at the end of the buffer and counted only when under tau: no
      // branch on the compare, which is taken at random while tau is loose (in locals, so
      // that the stores do not make the compiler read the members again).
      Candidate<T>* const buffer = buffers;
      const int end_of_buffer = capacity, first_index = ref_offset;
      T threshold = tau[0];
      int n = count[0];
      for (int j = 0; j < n_refs; ++j) {
        const T v = squared_chord(p[0], frame.reference(j, centre));
        buffer[n] = Candidate<T>{v, first_index + j};
        n += v < threshold;
        if (n == end_of_buffer) n = compact(buffer, n, kc, threshold, lanes);
      }
      count[0] = n;
      tau[0] = threshold;
    }
    const int most = most_kept(kc);
    for (int start = 0; V > 1 && start < n_refs; start += stage) {
      const int m = n_refs - start < stage ? n_refs - start : stage;
      // padded to a multiple of V: no lane needs a bounds test
      stage_references(team, shared, frame, centre, start, m, (m + V - 1) / V * V);
      const int index = ref_offset + start + lanes.lane;
      for (int j0 = 0; j0 < m; j0 += V) {
        // each lane one staged reference, its chords to the group's M observations (the
        // staged point is read once for M pairs); padding references give NaN, never taken
        const Vec4<T> q = shared(j0 + lanes.lane);
        T v[M];
        bool hit = false;
        TRIDENT_UNROLL
        for (int a = 0; a < M; ++a) {
          v[a] = squared_chord(p[a], q);
          hit = hit | (v[a] < tau[a]);
        }
        if (!lanes.any(hit)) continue;
        TRIDENT_UNROLL
        for (int a = 0; a < M; ++a) {
          const bool take = v[a] < tau[a];
          const unsigned mask = lanes.ballot(take);
          if (mask == 0u) continue;
          Candidate<T>* buffer = buffers + a * capacity;
          if (take) buffer[count[a] + lanes.below(mask)] = Candidate<T>{v[a], index + j0};
          count[a] += LaneGroup::count(mask);
          if (count[a] > capacity - V) {
            LaneGroup::sync();
            count[a] = compact(buffer, count[a], most, tau[a], lanes);
          }
        }
      }
    }
    LaneGroup::sync();
    TRIDENT_UNROLL
    for (int a = 0; a < M; ++a) {
      const int o = o0 + a;
      if (g >= groups || o >= end) continue;
      Candidate<T>* buffer = buffers + a * capacity;
      if (count[a] > kc) compact(buffer, count[a], kc, tau[a], lanes);
      sort_kept(buffer, lanes);
      for (int i = lanes.lane; i < kc; i += V) {
        best(o, i) = buffer[i].value;
        best_index(o, i) = buffer[i].index;
      }
    }
  }

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  // Keeps, of the n entries, every one up to a cut value t, between kc and `most` of them
  // (so among them the kc smallest by (S, index)), in buffer order, in [0, kept); returns
  // kept, and sets tau to t: a later reference (a higher index) enters only with S < t,
  // and one with S >= t has at least kc kept entries ahead of it. With most == kc exactly
  // the kc smallest stay. A bisection over the bit patterns of the (non-negative) values
  // finds t with counting passes; the slack above kc ends it after a few.
  KOKKOS_INLINE_FUNCTION int compact(Candidate<T>* buffer, int n, int most, T& tau, const LaneGroup& lanes) const {
    using Bits = typename ValueBits<T>::type;
    Bits lo = ~Bits(0), hi = 0;
    for (int i = lanes.lane; i < n; i += V) {
      const Bits b = to_bits(buffer[i].value);
      lo = b < lo ? b : lo;
      hi = b > hi ? b : hi;
    }
    lo = LaneGroup::min(lo);
    hi = LaneGroup::max(hi);
    // invariant: at least kc values <= hi, fewer than kc values < lo
    while (lo < hi) {
      const Bits mid = lo + (hi - lo) / 2;
      int c = 0;
      for (int i = lanes.lane; i < n; i += V) c += to_bits(buffer[i].value) <= mid;
      c = LaneGroup::sum(c);
      if (c >= kc && c <= most) {
        hi = mid;
        break;
      }
      if (c > most) {
        hi = mid;
      } else {
        lo = mid + 1;
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
    tau = from_bits<T>(cut);
    return written;
  }

  // Sorts entries [0, kc) by (S, index): a bitonic sort over the next power of two
  // (padded with empty entries, which sort last), each stage's pairs shared by the lanes.
  KOKKOS_INLINE_FUNCTION void sort_kept(Candidate<T>* buffer, const LaneGroup& lanes) const {
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
  KOKKOS_INLINE_FUNCTION int compact(Candidate<T>* buffer, int n, int, T& tau, const LaneGroup&) const {
    keep_smallest(buffer, n, kc);
    tau = buffer[kc - 1].value;
    return kc;
  }
  // (The buffer holds capacity_for(kc) >= 2 kc entries: the second kc are the sort's scratch.)
  KOKKOS_INLINE_FUNCTION void sort_kept(Candidate<T>* buffer, const LaneGroup&) const {
    sort_candidates(buffer, kc, buffer + kc);
  }
#endif
};

}  // namespace trident::knn
