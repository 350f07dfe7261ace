#pragma once
// After screening: which kept entries need float64 settling (bound), their float64
// distances (settle), and the final order with the tie rule (order).
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "knn/detail/geometry.hpp"
#include "knn/detail/screen_kernels.hpp"
#include "knn/detail/result_rows.hpp"

namespace trident::knn {

using Counts = Kokkos::View<int*, DeviceMemory>;
using Distances = Kokkos::View<double**, ListLayout, DeviceMemory>;
using OutIndices = Kokkos::View<NeighbourIndex**, Kokkos::LayoutRight, DeviceMemory>;
using OutDistances = Kokkos::View<double**, Kokkos::LayoutRight, DeviceMemory>;

// For each observation: the number of leading list entries inside the settle window of
// the k-th (see ScreeningWindow), or -1 when every kept entry is inside it while
// references were left out (the list cannot prove the answer; the observation is searched
// again with a longer list). The window depends on how far the observation lies from the
// centre it was screened around (`offset`, see ScreenFrame).
template <class T>
struct Bound {
  ListValues<T> best;
  Counts count;
  Kokkos::View<double*, DeviceMemory> offset;
  int k = 1, kept = 0;   // kept: real entries per list, min(Kc, references)
  bool complete = true;  // every reference was kept (kept == references)

  KOKKOS_INLINE_FUNCTION void operator()(int o) const {
    if (complete) {  // every reference is in the list: settle them all
      count(o) = kept;
      return;
    }
    const ScreeningWindow<T> window(best(o, k - 1), offset(o));
    int c = k;
    while (c < kept && window.inside(best(o, c))) ++c;
    count(o) = c == kept ? -1 : c;
  }
};

// Float64 angles of the entries to settle whose reference lies in this tile.
struct Settle {
  PointsView<double> obs, refs;  // refs: the tile, starting at reference ref_offset
  ListIndices best_index;
  Counts count;
  Distances angle;
  int ref_offset = 0, ref_count = 0;

  KOKKOS_INLINE_FUNCTION void operator()(int o) const {
    const int c = count(o);
    for (int i = 0; i < c; ++i) {
      const int j = best_index(o, i) - ref_offset;
      if (j >= 0 && j < ref_count) angle(o, i) = great_circle_angle(obs(o), refs(j));
    }
  }
};

KOKKOS_INLINE_FUNCTION bool tied(double a, double b) {
  return (b > a ? b - a : a - b) <= kTieRelative * (a > b ? a : b);
}

// Sorts the settled entries by angle then index (insertion sort: they arrive nearly sorted,
// by screened chord), then applies the tie rule: runs of neighbours each within 1e-12
// relative of the next form one tie group (the transitive closure, so the order is well
// defined), ordered by reference index; WriteRows then copies out the first k. A tie
// group that runs from the k-th more than kTieSlack/4 further might continue among
// references outside the settled window (those lie at least kTieSlack beyond the k-th):
// such an observation is searched again with a longer list (count -1).
struct Order {
  ListIndices best_index;
  Counts count;
  Distances angle;
  int k = 1;
  bool complete = true;

  KOKKOS_INLINE_FUNCTION void operator()(int o) const {
    const int c = count(o);
    if (c < 0) return;
    sort_range(o, 0, c, true);
    for (int start = 0; start < k;) {
      int end = start + 1;
      while (end < c && tied(angle(o, end - 1), angle(o, end))) ++end;
      if (end > k && !complete && angle(o, end - 1) - angle(o, k - 1) > 0.25 * kTieSlack) {
        count(o) = -1;
        return;
      }
      sort_range(o, start, end, false);
      start = end;
    }
  }

  // Insertion sort of entries [first, last) by (angle, index), or by index alone.
  KOKKOS_INLINE_FUNCTION void sort_range(int o, int first, int last, bool by_angle) const {
    for (int i = first + 1; i < last; ++i) {
      const double d = angle(o, i);
      const int j = best_index(o, i);
      int m = i;
      while (m > first) {
        const double dm = angle(o, m - 1);
        const int jm = best_index(o, m - 1);
        const bool before = by_angle ? (d < dm || (d == dm && j < jm)) : j < jm;
        if (!before) break;
        angle(o, m) = dm;
        best_index(o, m) = jm;
        --m;
      }
      if (m != i) {  // (mostly in place already: entries arrive nearly sorted)
        angle(o, m) = d;
        best_index(o, m) = j;
      }
    }
  }
};

// The first k entries of each ordered list into the result rows (row-major, as the host
// keeps them; distances scaled by the radius), a team per `rows_per_team` observations
// walking their rows' entries in order, so that a warp stores along one row (a thread a
// row would store 8 bytes every 8 k bytes across a warp). The rows of observations that
// Order could not prove get whatever their lists hold: the wider search writes them again.
struct WriteRows {
  ListIndices best_index;
  Distances angle;
  OutIndices out_index;
  OutDistances out_distance;
  int k = 1, first = 0, n = 0, rows_per_team = 1;
  double radius = 1.0;

  // about 2048 entries a team: a warp's stores fill 256-byte runs of a row even at k = 1
  static int rows_for(int k) { return k >= 2048 ? 1 : 2048 / k; }

  KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& team) const {
    const int o0 = first + team.league_rank() * rows_per_team;
    const int rows = first + n - o0 < rows_per_team ? first + n - o0 : rows_per_team;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows * k), [&](int f) {
      const int o = o0 + f / k, i = f % k;
      out_index(o, i) = best_index(o, i);
      out_distance(o, i) = radius * angle(o, i);
    });
  }
};

}  // namespace trident::knn
