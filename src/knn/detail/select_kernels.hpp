#pragma once
// The any-k screen: lists longer than the register and buffer screens keep (on GPUs 80
// entries, so k above 64; on host back ends 32, k above 25). It keeps the
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
// Compaction and the final sort (lane_compaction.hpp): on a GPU counting passes shared by
// the lanes (each counts capacity / V entries) narrow a range of bit patterns that holds t,
// then a stable pass keeps every S < t and the first S = t; on host backends (one thread
// per list) a radix selection keeps exactly Kc.
#include <Kokkos_Core.hpp>

#include "knn/detail/lane_compaction.hpp"
#include "knn/detail/screen_kernels.hpp"

namespace trident::knn {

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
        if (n == end_of_buffer) {
          const Compaction<T> done = compact(buffer, n, kc, lanes);
          n = done.kept;
          threshold = done.tau;
        }
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
        bool full = false;
        TRIDENT_UNROLL
        for (int a = 0; a < M; ++a) {
          const bool take = v[a] < tau[a];
          const unsigned mask = lanes.ballot(take);
          if (take) buffers[a * capacity + count[a] + lanes.below(mask)] = Candidate<T>{v[a], index + j0};
          count[a] += LaneGroup::count(mask);
          full = full | (count[a] > capacity - V);
        }
        // Buffers that could overflow at the next step are compacted one at a time, through
        // one inlined copy of the compaction: a copy per observation (unrolled) made the
        // kernel's code about 300 KB, and instruction-cache misses were its largest stall.
        while (full) {
          int a_full = 0;
          TRIDENT_UNROLL
          for (int a = M - 1; a >= 0; --a) a_full = count[a] > capacity - V ? a : a_full;
          LaneGroup::sync();
          const Compaction<T> done = compact(buffers + a_full * capacity, pick(count, a_full), most, lanes);
          full = false;
          TRIDENT_UNROLL
          for (int a = 0; a < M; ++a) {
            count[a] = a == a_full ? done.kept : count[a];
            tau[a] = a == a_full ? done.tau : tau[a];
            full = full | (count[a] > capacity - V);
          }
        }
      }
    }
    LaneGroup::sync();
    // one observation after another, again through one copy of the compaction and the sort
    TRIDENT_NO_UNROLL
    for (int a = 0; a < M; ++a) {
      const int o = o0 + a;
      if (g >= groups || o >= end) continue;
      Candidate<T>* buffer = buffers + a * capacity;
      const int n = pick(count, a);
      if (n > kc) compact(buffer, n, kc, lanes);
      sort_kept(buffer, lanes);
      for (int i = lanes.lane; i < kc; i += V) {
        best(o, i) = buffer[i].value;
        best_index(o, i) = buffer[i].index;
      }
    }
  }

  // x[a] for a known only at run time, without indexing the array (which would move it from
  // registers to local memory)
  template <class U>
  KOKKOS_FORCEINLINE_FUNCTION static U pick(const U (&x)[M], int a) {
    U r = x[0];
    TRIDENT_UNROLL
    for (int b = 1; b < M; ++b) r = b == a ? x[b] : r;
    return r;
  }

  KOKKOS_INLINE_FUNCTION Compaction<T> compact(Candidate<T>* buffer, int n, int most, const LaneGroup& lanes) const {
    return compact_candidates<T, V>(buffer, n, kc, most, lanes);
  }
  KOKKOS_INLINE_FUNCTION void sort_kept(Candidate<T>* buffer, const LaneGroup& lanes) const {
    sort_candidates_in_lanes<T, V>(buffer, kc, lanes);
  }
};

}  // namespace trident::knn
