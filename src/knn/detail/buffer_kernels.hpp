#pragma once
// The buffer screen: one observation a thread, as in the register screen (all threads of
// a team read the same staged reference, a broadcast), with the Kc smallest (S, index)
// kept as in the any-k screen: a threshold tau and a candidate buffer in team scratch
// memory instead of a sorted list in registers.
//
// Why: a register list pays about 5 Kc instructions for each insertion, and a warp pays
// for the lane with the most, so long register lists screen far slower per pair than
// short ones. Here a candidate costs an append; when a buffer could overflow at the next
// step, the whole warp compacts it (lane_compaction.hpp: all up to a cut value stay,
// between Kc and most_kept(Kc) of them, and tau becomes the cut), one full buffer after
// another, so no lane waits on another's list. From empty lists the compactions cost
// about as much as the chords; with lists that start at the places' bound
// (list_bound.hpp) about 1.25 Kc references enter at all, and with its buffers in global
// memory (screen_launch.hpp's buffer_placement) this screen takes over from the register
// lists beyond 48 entries in float32 and 20 in float64 (list_choice.cpp's
// longest_register_list), up to Kc = 80 (longest_buffer_list). docs/history/knn.md holds
// the measurements.
//
// - The running list (sorted; empty slots (+inf or the bound, kNoIndex) last) is loaded
//   as the buffer's first entries, its empty slots left out; tau is its last value.
// - References are appended in index order and compaction is stable, so equal values stay
//   in index order and a later reference enters only with S < tau: ties keep the lower
//   index, as in every screen.
// - At the end of the tile each buffer is cut to exactly Kc (padded with the list's empty
//   slots when fewer came), sorted by (S, index) and written back.
#include <Kokkos_Core.hpp>

#include "knn/detail/lane_compaction.hpp"
#include "knn/detail/screen_kernels.hpp"

namespace trident::knn {

template <class T, int V>
struct BufferScreen {
  ScreenFrame<T> frame;
  ListValues<T> best;  // in: the running list (sorted, kc entries); out: the new one
  ListIndices best_index;
  int n_obs = 0, n_refs = 0, ref_offset = 0, stage = 0, kc = 0, capacity = 0;
  int first_obs = 0;     // the launch covers list rows [first_obs, first_obs + n_obs)
  int buffer_level = 0;  // team scratch level of the buffers (1 when too large for 0)

  static constexpr int G = 8;  // references per step of the hot loop

  // Buffer entries per observation: two lists and two steps (a compaction keeps at most
  // most_kept(kc), so it frees about 3/4 of a list), at least the final sort's power of
  // two; odd, so that the lanes' buffers start in different shared-memory banks.
  static int capacity_for(int kc) {
    int n2 = 1;
    while (n2 < kc) n2 <<= 1;
    const int c = 2 * kc + 2 * G;
    return (c > n2 ? c : n2) | 1;
  }
  KOKKOS_INLINE_FUNCTION static int most_kept(int kc) { return kc + (kc / 4 > 4 ? kc / 4 : 4); }

  KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& team) const {
    const int ts = team.team_size(), t = team.team_rank();
    LaneGroup lanes;
    lanes.lane = t % V;
    const int base = first_obs + team.league_rank() * ts;
    const int end = first_obs + n_obs;
    const int o = base + t;
    const bool valid = o < end;
    const ScratchPoints<T> shared(team.team_scratch(0), stage);
    const ScratchCandidates<T> all(team.team_scratch(buffer_level), ts * capacity);
    Candidate<T>* const own = all.data() + t * capacity;
    Candidate<T>* const group = all.data() + (t - lanes.lane) * capacity;  // lane 0's buffer
    const T infinity = Kokkos::Experimental::infinity<T>::value;
    const Vec4<double> centre = frame.centre(base, (base + ts < end ? base + ts : end) - 1);
    const Vec4<T> p = valid ? frame.observation(o, centre, true) : Vec4<T>{0, 0, 0, 0};
    int count = 0;
    T tau = -infinity;  // padding threads never take a candidate
    if (valid) {
      for (int i = 0; i < kc; ++i) {
        const int index = best_index(o, i);
        own[count] = Candidate<T>{best(o, i), index};
        count += index != kNoIndex;
      }
      tau = best(o, kc - 1);
    }
    // the hot loop appends through a pointer to the first free entry: an index into the
    // buffer cost a 64-bit address sum per candidate
    Candidate<T>* next = own + count;
    Candidate<T>* const full = own + (capacity - G);  // past it could overflow at the next step
    for (int start = 0; start < n_refs; start += stage) {
      const int m = n_refs - start < stage ? n_refs - start : stage;
      stage_references(team, shared, frame, centre, start, m);
      const int index = ref_offset + start;  // global index of staged reference 0
      int j = 0;
      for (; j + G <= m; j += G) {
        append<G>(shared, j, index + j, p, tau, next);
        if (LaneGroup::any(next > full)) compact_full(group, own, next, tau, lanes);
      }
      for (; j < m; ++j) {
        append<1>(shared, j, index + j, p, tau, next);
        if (LaneGroup::any(next > full)) compact_full(group, own, next, tau, lanes);
      }
    }
    count = static_cast<int>(next - own);
    // Fewer than Kc came only when no compaction ran (one keeps at least Kc) and the list
    // had empty slots: tau is still its last value, the empty slots' value.
    for (int i = count; i < kc; ++i) own[i] = Candidate<T>{tau, kNoIndex};
    count = count > kc ? count : kc;
    LaneGroup::sync();
    for (int i = 0; i < V; ++i) {  // each lane's buffer, by the whole group
      if (LaneGroup::broadcast(valid ? 1 : 0, i) == 0) continue;
      Candidate<T>* const buffer = group + i * capacity;
      const int n = LaneGroup::broadcast(count, i);
      if (n > kc) compact_candidates<T, V>(buffer, n, kc, kc, lanes);
      sort_candidates_in_lanes<T, V>(buffer, kc, lanes);
    }
    LaneGroup::sync();
    if (!valid) return;
    for (int i = 0; i < kc; ++i) {
      best(o, i) = own[i].value;
      best_index(o, i) = own[i].index;
    }
  }

  // G references' chords, one branch on whether any is under tau; then the candidates are
  // appended in index order. (A warp takes the branch when one lane does: most steps with
  // long lists, one lane active on average.)
  template <int Group>
  KOKKOS_FORCEINLINE_FUNCTION static void append(const ScratchPoints<T>& shared, int j, int index, const Vec4<T>& p,
                                                 T tau, Candidate<T>*& next) {
    T v[Group];
    bool hit = false;
    TRIDENT_UNROLL
    for (int g = 0; g < Group; ++g) {
      v[g] = squared_chord(p, shared(j + g));
      hit = hit | (v[g] < tau);
    }
    if (__builtin_expect(hit, 0)) {
      TRIDENT_UNROLL
      for (int g = 0; g < Group; ++g) {
        if (v[g] < tau) *next++ = Candidate<T>{v[g], index + g};
      }
    }
  }

  // Compacts every buffer of the group that holds more than capacity - G entries, the
  // whole group on one buffer at a time; its lane takes the new end and tau.
  KOKKOS_INLINE_FUNCTION void compact_full(Candidate<T>* group, Candidate<T>* own, Candidate<T>*& next, T& tau,
                                           const LaneGroup& lanes) const {
    const int most = most_kept(kc);
    const int count = static_cast<int>(next - own);
    for (unsigned full = lanes.ballot(count > capacity - G); full != 0u; full &= full - 1u) {
      const int i = LaneGroup::lowest(full);
      const int n = LaneGroup::broadcast(count, i);
      const Compaction<T> done = compact_candidates<T, V>(group + i * capacity, n, kc, most, lanes);
      if (lanes.lane == i) {
        next = own + done.kept;
        tau = done.tau;
      }
    }
  }
};

}  // namespace trident::knn
