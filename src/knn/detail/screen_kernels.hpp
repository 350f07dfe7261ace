#pragma once
// The screening kernels: for a batch of observations and a tile of references, keep each
// observation's Kc smallest squared chords S (in the screening precision T) with their
// reference indices, ordered by (S, index). Lists live in global memory between tiles
// (see ListLayout). Empty slots hold (+inf, kNoIndex), or a list's starting entries
// (t, kNoIndex) when it starts at a bound t (list_bound.hpp).
//
// References are processed in increasing index order everywhere (tiles in order, stages
// in order, one reference at a time within a stage), so a new reference never beats an
// equal S already kept: ties in S keep the lower index, and the lists are the same for
// every tiling, batch size and backend that computes the same S.
#include <Kokkos_Core.hpp>

#include <climits>

#include "core/unroll.hpp"
#include "knn/detail/geometry.hpp"
#include "knn/detail/lane_group.hpp"

namespace trident::knn {

using ExecSpace = Kokkos::DefaultExecutionSpace;
using DeviceMemory = ExecSpace::memory_space;
using TeamMember = Kokkos::TeamPolicy<ExecSpace>::member_type;
constexpr int kNoIndex = INT_MAX;

template <class T>
using PointsView = Kokkos::View<Vec4<T>*, DeviceMemory>;
// Lists: observation-fastest on GPUs (a thread per observation: neighbouring threads touch
// neighbouring words), a row per observation on host backends (one thread walks its own
// list; observation-fastest strides would cost a TLB miss per entry).
using ListLayout = ExecSpace::array_layout;
template <class T>
using ListValues = Kokkos::View<T**, ListLayout, DeviceMemory>;
using ListIndices = Kokkos::View<int**, ListLayout, DeviceMemory>;

template <class T>
using ScratchPoints =
    Kokkos::View<Vec4<T>*, ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;

// Screening coordinates: p - c in float64, rounded to T, and |p - c| (the `offset` that
// the screening window grows with; see ScreeningWindow).
template <class T>
KOKKOS_INLINE_FUNCTION Vec4<T> relative_to(const Vec4<double>& p, const Vec4<double>& c) {
  return Vec4<T>{static_cast<T>(p.x - c.x), static_cast<T>(p.y - c.y), static_cast<T>(p.z - c.z), T(0)};
}
KOKKOS_INLINE_FUNCTION double distance_to(const Vec4<double>& p, const Vec4<double>& c) {
  const double dx = p.x - c.x, dy = p.y - c.y, dz = p.z - c.z;
  return kmath::sqrt(dx * dx + dy * dy + dz * dz);
}

// The centre a slice is screened around on host back ends: screening coordinates are
// (p - c) rounded, so their error scales with the slice's extent instead of the sphere's
// (see ScreeningWindow). Any point is valid; a slice inside a cluster wants c near it.
// Set by FindCentre.
struct Centre {
  Kokkos::View<Vec4<double>, DeviceMemory> point;

  KOKKOS_INLINE_FUNCTION double offset(const Vec4<double>& p) const { return distance_to(p, point()); }
  template <class T>
  KOKKOS_INLINE_FUNCTION Vec4<T> relative(const Vec4<double>& p) const {
    return relative_to<T>(p, point());
  }
};

// Screening coordinates of float64 unit vectors: relative to the centre, rounded.
template <class T>
struct RelativeCopy {
  PointsView<double> from;
  PointsView<T> to;
  Centre centre;
  KOKKOS_INLINE_FUNCTION void operator()(int j) const { to(j) = centre.relative<T>(from(j)); }
};

// The mean of up to kCentreSample observations spread evenly over [first, first + n): a
// cluster's centre for a batch inside one cluster, near the origin for scattered points
// (whose offsets are then about 1, as with plain unit vectors). One thread: a handful of
// loads, no reduction, the same on every backend.
struct FindCentre {
  static constexpr int kCentreSample = 64;
  PointsView<double> obs;
  Centre centre;
  int first = 0, n = 1;

  KOKKOS_INLINE_FUNCTION void operator()(int) const {
    const int samples = n < kCentreSample ? n : kCentreSample;
    double x = 0, y = 0, z = 0;
    for (int i = 0; i < samples; ++i) {
      const Vec4<double> p = obs(first + static_cast<int>(static_cast<long long>(i) * n / samples));
      x += p.x;
      y += p.y;
      z += p.z;
    }
    centre.point() = Vec4<double>{x / samples, y / samples, z / samples, 0.0};
  }
};

template <class T>
KOKKOS_INLINE_FUNCTION T squared_chord(const Vec4<T>& p, const Vec4<T>& q) {
  const T dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
  return dx * dx + dy * dy + dz * dz;
}

// Where a screen's coordinates come from, in one of two modes:
// - per slice (host back ends): the observations' and the tile's coordinates were made
//   once per slice, relative to the slice's centre (`obs`, `refs`); `offset` was written
//   with them.
// - per team (GPUs): each team screens around a centre of its own, the float64 vector of
//   the middle observation of its block, and makes the coordinates itself: its
//   observations' in registers, the references' as it stages them (3 float64 subtractions
//   a staged reference, under 1 % of a team's pairs). A team inside one place resolves it
//   whatever else its slice holds (a city beside the globe, two cities), where a slice's
//   centre between them could not. The screen writes `offset` (first segment only).
// A centre is any point, so the final answers do not depend on the mode (the screen only
// chooses what float64 settles); the lists' S do, and every kernel that reads them uses
// the same centre for an observation: its block's, the same in every tile and segment.
template <class T>
struct ScreenFrame {
  PointsView<T> obs, refs;            // per slice: batch rows and the tile, made by the host path
  PointsView<double> obs64, refs64;   // per team: batch rows and the tile in float64
  Kokkos::View<double*, DeviceMemory> offset;  // |p - c| of each batch row
  bool per_team = false;

  // The centre of the team whose observations are rows [first, last] (last inclusive).
  KOKKOS_INLINE_FUNCTION Vec4<double> centre(int first, int last) const {
    return per_team ? obs64(first + (last - first) / 2) : Vec4<double>{0, 0, 0, 0};
  }
  // Row o's screening coordinates; writes its offset when `write_offset`.
  KOKKOS_INLINE_FUNCTION Vec4<T> observation(int o, const Vec4<double>& c, bool write_offset) const {
    if (!per_team) return obs(o);
    const Vec4<double> p = obs64(o);
    if (write_offset) offset(o) = distance_to(p, c);
    return relative_to<T>(p, c);
  }
  // Tile reference j's screening coordinates.
  KOKKOS_INLINE_FUNCTION Vec4<T> reference(int j, const Vec4<double>& c) const {
    return per_team ? relative_to<T>(refs64(j), c) : refs(j);
  }
};

// Copies references [start, start + count) of the tile into team scratch memory, then NaN
// points up to `padded` (at least count): their chords are NaN, which no compare takes.
template <class T>
KOKKOS_INLINE_FUNCTION void stage_references(const TeamMember& team, const ScratchPoints<T>& shared,
                                             const ScreenFrame<T>& frame, const Vec4<double>& centre, int start,
                                             int count, int padded = 0) {
  team.team_barrier();
  const T nan = Kokkos::Experimental::infinity<T>::value * T(0);  // inf x 0: a NaN (no quiet_NaN in every Kokkos)
  for (int j = team.team_rank(); j < (padded > count ? padded : count); j += team.team_size())
    shared(j) = j < count ? frame.reference(start + j, centre) : Vec4<T>{nan, nan, nan, nan};
  team.team_barrier();
}

template <class T>
using ScratchValues = Kokkos::View<T*, ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;

// A buffered screening candidate: one 8-byte (float) or 16-byte (double) shared store.
template <class T>
struct alignas(2 * sizeof(T)) Candidate {
  T value;
  int index;
};
template <class T>
using ScratchCandidates = Kokkos::View<Candidate<T>*, ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;

// Small k: each thread keeps the lists of P observations in registers, sorted, K entries
// each (K a compile-time bucket), and inserts by one bubble pass from the end.
//
// With F > 0, candidates that beat a list's worst entry are first appended to a per-thread
// buffer of F in team scratch memory and inserted later, all lanes of a warp together. An
// insertion costs ~5K instructions and, unbuffered, a warp pays for it whenever any of its
// 32 lanes inserts; buffered, a warp's insertions run side by side. Candidates are
// inserted in the order they came (index order), so the (S, index) order of the lists is
// unchanged.
//
// Segments: when a batch has too few observations to fill the device, the tile's
// references are split into `segments` contiguous parts, one team per (observation block,
// segment). Segment r keeps its list in columns [r K, (r+1) K) of `best`: segment 0 holds
// the running list, the others K equal entries (w, kNoIndex) with w at least the running
// list's worst value (the lists' start, or what MergeSegments left), and MergeSegments
// folds them back in segment order.
template <class T, int K, int P, int F>
struct RegisterScreen {
  ScreenFrame<T> frame;
  ListValues<T> best;
  ListIndices best_index;
  int n_obs = 0, n_refs = 0, ref_offset = 0, stage = 0, segments = 1;
  int first_obs = 0;  // the launch covers list rows [first_obs, first_obs + n_obs)

  static constexpr int kBufferPerThread = F > 0 ? P * F : 0;
  // references per step of the hot loop (P G pairs per step)
  static constexpr int G = P == 1 ? 8 : 4;
  static_assert(F == 0 || F >= G, "a list's buffer must hold the candidates of one step");
  // On GPUs lists of 32 and more keep their candidates in rings and flush them down to a
  // low-water mark, half of what a flush is triggered above (see flush); shorter lists
  // empty plain buffers, as the rings' bookkeeping cost them more than it saved. On host
  // back ends a thread has no warp to wait for, and rings only cost: its lists of up to 32
  // keep plain buffers, and the longer ones that only the tests ask for there
  // (SearchTestHooks::long_register_lists) take rings, so that the host tests run the
  // GPUs' flush.
  static constexpr bool kRing = F > 0 && K >= (kSelectLanes > 1 ? 32 : 40);
  static_assert(!kRing || (F & (F - 1)) == 0, "a ring's length is a power of two");
  static constexpr int kLowWater = kRing ? (F - G) / 2 : 0;
  // slot `i` of a list's buffer (i counts from the ring's start)
  KOKKOS_FORCEINLINE_FUNCTION static int ring_slot(int i) { return kRing ? i & (F - 1) : i; }

  // Team scratch bytes for `team` threads and `stage` staged references.
  static std::size_t scratch_bytes(int team, int stage) {
    std::size_t bytes = ScratchPoints<T>::shmem_size(stage);
    if (F > 0) {
      bytes += ScratchCandidates<T>::shmem_size(team * kBufferPerThread);
    }
    return bytes;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& team) const {
    const int ts = team.team_size(), t = team.team_rank();
    const int segment = team.league_rank() % segments;
    const int base = first_obs + (team.league_rank() / segments) * ts * P;
    const int end = first_obs + n_obs;
    // this segment's references: [first, first + length) of the tile
    const int per_segment = (n_refs + segments - 1) / segments;
    const int first = segment * per_segment;
    const int length = n_refs - first < per_segment ? (n_refs - first > 0 ? n_refs - first : 0) : per_segment;
    const int column = segment * K;
    const ScratchPoints<T> shared(team.team_scratch(0), stage);
    const int buffer_size = F > 0 ? ts * kBufferPerThread : 0;
    const ScratchCandidates<T> buffer(team.team_scratch(0), buffer_size);
    const T infinity = Kokkos::Experimental::infinity<T>::value;
    const Vec4<double> centre = frame.centre(base, (base + ts * P < end ? base + ts * P : end) - 1);
    Vec4<T> p[P];
    T s[P][K];
    int id[P][K];
    TRIDENT_UNROLL
    for (int a = 0; a < P; ++a) {
      const int o = base + a * ts + t;
      const bool valid = o < end;
      p[a] = valid ? frame.observation(o, centre, segment == 0) : Vec4<T>{0, 0, 0, 0};
      TRIDENT_UNROLL
      for (int i = 0; i < K; ++i) {
        s[a][i] = valid ? best(o, column + i) : -infinity;  // -inf: a padding slot never inserts
        id[a][i] = valid ? best_index(o, column + i) : kNoIndex;
      }
    }
    int head[P], count[P];  // each list's buffered candidates (F > 0): the oldest's slot, how many
    TRIDENT_UNROLL
    for (int a = 0; a < P; ++a) head[a] = count[a] = 0;
    for (int start = first; start < first + length; start += stage) {
      const int m = first + length - start < stage ? first + length - start : stage;
      stage_references(team, shared, frame, centre, start, m);
      const int index = ref_offset + start;  // global index of staged reference 0
      if constexpr (F == 0) {
        int j = 0;
        for (; j + G <= m; j += G) direct<G>(shared, j, index + j, p, s, id);
        for (; j < m; ++j) direct<1>(shared, j, index + j, p, s, id);
      } else {
        int j = 0;
        for (; j + G <= m; j += G) {
          buffered<G>(shared, j, index + j, p, s, buffer, head, count, ts, t);
          if (LaneGroup::any(nearly_full(count))) flush(s, id, buffer, head, count, ts, t, kLowWater);
        }
        for (; j < m; ++j) {
          buffered<1>(shared, j, index + j, p, s, buffer, head, count, ts, t);
          if (LaneGroup::any(nearly_full(count))) flush(s, id, buffer, head, count, ts, t, kLowWater);
        }
      }
    }
    if constexpr (F > 0) flush(s, id, buffer, head, count, ts, t, 0);
    TRIDENT_UNROLL
    for (int a = 0; a < P; ++a) {
      const int o = base + a * ts + t;
      if (o >= end) continue;
      TRIDENT_UNROLL
      for (int i = 0; i < K; ++i) {
        best(o, column + i) = s[a][i];
        best_index(o, column + i) = id[a][i];
      }
    }
  }

  // The hot loop, Group references at a time: their chords to the thread's P observations
  // and one branch on whether any beats its list's worst entry (rare once the lists have
  // filled). Only then is take(a, g, v) called for each pair (observation a, reference
  // g, chord v) that beats its list's worst entry, reference by reference (index order).
  // Without the combined test the compiler predicates the taking and executes it for
  // every pair, doubling the instructions per pair. `take` may change `s` (an insertion):
  // each pair is tested against the list as the pairs before it left it.
  template <int Group, class Take>
  KOKKOS_FORCEINLINE_FUNCTION static void screen_step(const ScratchPoints<T>& shared, int j, const Vec4<T> (&p)[P],
                                                      const T (&s)[P][K], const Take& take) {
    T v[Group][P];
    bool hit = false;
    TRIDENT_UNROLL
    for (int g = 0; g < Group; ++g) {
      const Vec4<T> q = shared(j + g);
      TRIDENT_UNROLL
      for (int a = 0; a < P; ++a) {
        v[g][a] = squared_chord(p[a], q);
        hit = hit | (v[g][a] < s[a][K - 1]);
      }
    }
    if (__builtin_expect(hit, 0)) {
      TRIDENT_UNROLL
      for (int g = 0; g < Group; ++g) {
        TRIDENT_UNROLL
        for (int a = 0; a < P; ++a) {
          if (v[g][a] < s[a][K - 1]) take(a, g, v[g][a]);
        }
      }
    }
  }

  // Takes a pair into its list at once (unbuffered lists, F = 0).
  struct Insert {
    T (&s)[P][K];
    int (&id)[P][K];
    int index;  // global index of reference g = 0
    KOKKOS_FORCEINLINE_FUNCTION void operator()(int a, int g, T v) const { insert(s[a], id[a], v, index + g); }
  };

  template <int Group>
  KOKKOS_FORCEINLINE_FUNCTION static void direct(const ScratchPoints<T>& shared, int j, int index,
                                                 const Vec4<T> (&p)[P], T (&s)[P][K], int (&id)[P][K]) {
    screen_step<Group>(shared, j, p, s, Insert{s, id, index});
  }

  // A buffer that one more step could overflow.
  KOKKOS_FORCEINLINE_FUNCTION static bool nearly_full(const int (&count)[P]) {
    bool full = false;
    TRIDENT_UNROLL
    for (int a = 0; a < P; ++a) full = full | (count[a] > F - G);
    return full;
  }

  // Inserts buffered candidates, oldest first (in index order, each tested against the
  // list's current worst entry). Plain buffers are emptied, each lane through its own.
  // Rings go one candidate a list per round, all lanes of the warp in step, until none of
  // the warp holds more than `low` (0: until all are empty): a round costs the warp one
  // insertion whichever lanes take part, and emptying the rings would run the last rounds
  // for the fullest lane alone (a little over half the lanes busy in an insertion);
  // stopping at the low-water mark leaves those rounds for later, when the other lanes
  // have caught up.
  KOKKOS_FORCEINLINE_FUNCTION static void flush(T (&s)[P][K], int (&id)[P][K], const ScratchCandidates<T>& buffer,
                                                int (&head)[P], int (&count)[P], int ts, int t, int low) {
    if constexpr (!kRing) {
      TRIDENT_UNROLL
      for (int a = 0; a < P; ++a) {
        for (int i = 0; i < count[a]; ++i) {
          const Candidate<T> c = buffer((a * F + i) * ts + t);
          if (c.value < s[a][K - 1]) insert(s[a], id[a], c.value, c.index);
        }
        count[a] = 0;
      }
    } else {
      int fullest = 0;
      TRIDENT_UNROLL
      for (int a = 0; a < P; ++a) fullest = count[a] > fullest ? count[a] : fullest;
      const int rounds = LaneGroup::max(fullest) - low;
      TRIDENT_NO_UNROLL  // (unrolled copies of the insertion raise the kernel's registers)
      for (int round = 0; round < rounds; ++round) {
        TRIDENT_UNROLL
        for (int a = 0; a < P; ++a) {
          if (count[a] == 0) continue;
          const Candidate<T> c = buffer((a * F + head[a]) * ts + t);
          head[a] = ring_slot(head[a] + 1);
          --count[a];
          if (c.value < s[a][K - 1]) insert(s[a], id[a], c.value, c.index);
        }
      }
    }
  }

  // Appends a pair to its list's buffer of F (F > 0). The buffers are flushed when one of
  // the warp's could overflow at the next step, all lanes together (a warp vote), so a
  // warp runs insertions at about the rate of its lanes' candidates instead of paying for
  // each lane's insertions separately. The worst entries do not change in between: the
  // buffers may hold candidates that no longer qualify, which the flush skips.
  struct Append {
    const ScratchCandidates<T>& buffer;
    const int (&head)[P];
    int (&count)[P];
    int ts, t;
    int index;  // global index of reference g = 0
    KOKKOS_FORCEINLINE_FUNCTION void operator()(int a, int g, T v) const {
      const int slot = (a * F + ring_slot(head[a] + count[a])) * ts + t;  // thread-fastest: no bank conflicts
      buffer(slot) = Candidate<T>{v, index + g};
      ++count[a];
    }
  };

  template <int Group>
  KOKKOS_FORCEINLINE_FUNCTION static void buffered(const ScratchPoints<T>& shared, int j, int index,
                                                   const Vec4<T> (&p)[P], const T (&s)[P][K],
                                                   const ScratchCandidates<T>& buffer, const int (&head)[P],
                                                   int (&count)[P], int ts, int t) {
    screen_step<Group>(shared, j, p, s, Append{buffer, head, count, ts, t, index});
  }

  // Inserts (v, j), v < s[K - 1], into the sorted list, dropping the last entry: every
  // slot from the back takes its predecessor when v goes before that one, v when v goes
  // before the slot's own entry, else keeps it. Entries with S <= v stay ahead of v (equal
  // S keep the earlier, lower index first). Each slot reads only the old entries (the
  // loop runs backwards), so the slots are independent: no chain of swaps.
  KOKKOS_FORCEINLINE_FUNCTION static void insert(T (&s)[K], int (&id)[K], T v, int j) {
    TRIDENT_UNROLL
    for (int i = K - 1; i > 0; --i) {
      const bool shift = v < s[i - 1];
      const bool here = v < s[i];
      s[i] = shift ? s[i - 1] : here ? v : s[i];
      id[i] = shift ? id[i - 1] : here ? j : id[i];
    }
    if (v < s[0]) {
      s[0] = v;
      id[0] = j;
    }
  }
};

// Folds the lists of segments 1.. into segment 0's (columns [0, K)), in segment order:
// later segments hold higher indices, so a strict < keeps the (S, index) order. Then each
// of those segments' lists becomes K entries (w, kNoIndex), w the merged list's worst
// value: where the segment starts in the next tile, taking only S < w (an equal S there
// has a higher index than the entry it would tie with).
template <class T>
struct MergeSegments {
  ListValues<T> best;
  ListIndices best_index;
  int k_list = 0, segments = 1;

  KOKKOS_INLINE_FUNCTION void operator()(int o) const {
    for (int r = 1; r < segments; ++r) {
      for (int i = 0; i < k_list; ++i) {
        const T v = best(o, r * k_list + i);
        if (!(v < best(o, k_list - 1))) break;  // the segment's list is sorted
        const int j = best_index(o, r * k_list + i);
        int m = k_list - 1;
        while (m > 0 && v < best(o, m - 1)) {
          best(o, m) = best(o, m - 1);
          best_index(o, m) = best_index(o, m - 1);
          --m;
        }
        best(o, m) = v;
        best_index(o, m) = j;
      }
    }
    const T worst = best(o, k_list - 1);
    for (int i = k_list; i < segments * k_list; ++i) {
      best(o, i) = worst;
      best_index(o, i) = kNoIndex;
    }
  }
};

}  // namespace trident::knn
