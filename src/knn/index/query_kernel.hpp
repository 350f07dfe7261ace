#pragma once
// The index's screen: for each observation, the Kc smallest squared chords S (screening
// precision T) of the references in the cells it visits, into the same lists the
// brute-force screen fills, so that the brute force's bound, settle and order kernels
// (settle_kernels.hpp) finish them unchanged.
//
// Why the lists then give the brute force's answer: S is computed on q - p (float64, then
// rounded to T), i.e. screened around the observation itself, so the screening window of
// ScreeningWindow holds with offset 0. The k-th entry bounds the k-th true chord by
// U = sqrt(S_k)(1 + 8u) + 1e-15, and the settle kernels need every reference with a chord
// up to U + kTieSlack among the screened ones (those further cannot be among the k nearest
// or tie with the k-th; see Bound and Order). A cell whose ball lies entirely beyond the
// window's limit (which exceeds U + kTieSlack) is skipped, and S_k only falls as the search
// goes on, so every skipped cell stays beyond the final window: the screened references
// hold all that the settling needs. A list that cannot prove its answer (more candidates
// inside the window than it keeps) is marked by Bound and searched again with a longer one,
// as in the brute force.
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "knn/geometry.hpp"
#include "knn/index/sphere_index.hpp"
#include "knn/screen_kernels.hpp"

namespace trident::knn {

// Added to the window's limit before comparing cell bounds with it: covers the rounding of
// the bound |p - c| - r and of the limit itself (each under 2e-15 on chords up to 2).
constexpr double kReachMargin = 1e-14;

template <class T>
struct IndexScreen {
  SphereIndexView ix;
  PointsView<double> obs;                  // the batch's observations
  Kokkos::View<int*, DeviceMemory> order;  // thread t screens observation order(t)
  ListValues<T> best;
  ListIndices best_index;
  int k = 1, kc = 1;
  bool exhaustive = false;  // the lists hold every reference: visit every leaf

  // Adds the leaves this observation visited to `leaves`.
  KOKKOS_INLINE_FUNCTION void operator()(int t, std::int64_t& leaves) const {
    const int o = order(t);
    const Vec4<double> p = obs(o);
    const T infinity = Kokkos::Experimental::infinity<T>::value;
    for (int i = 0; i < kc; ++i) {
      best(o, i) = infinity;
      best_index(o, i) = kNoIndex;
    }
    T worst = infinity;  // the list's last entry: a reference enters below it
    // cells whose lower bound exceeds `reach` hold no reference the answer needs
    double reach = Kokkos::Experimental::infinity<double>::value;

    // depth first, the nearest child first; entries hold a node's level, number and bound
    int node[kTraversalStack];
    int level[kTraversalStack];
    double bound[kTraversalStack];
    int top = 1;
    node[0] = 0, level[0] = ix.levels - 1, bound[0] = 0.0;
    while (top > 0) {
      --top;
      if (bound[top] > reach) continue;
      if (level[top] == 0) {
        ++leaves;
        const int first = node[top] * kLeafSize;
        const int last = first + kLeafSize < ix.references ? first + kLeafSize : ix.references;
        for (int j = first; j < last; ++j) {
          const Vec4<T> e = relative_to<T>(ix.sorted(j), p);
          const T s = e.x * e.x + e.y * e.y + e.z * e.z;
          if (!(s < worst)) continue;
          const int at = insert(o, s, ix.reference(j));
          worst = best(o, kc - 1);
          if (at < k && !exhaustive && best(o, k - 1) < infinity) {
            reach = ScreeningWindow<T>(best(o, k - 1), 0.0).limit + kReachMargin;
          }
        }
        continue;
      }
      const int child_level = level[top] - 1;
      const int first = node[top] * kFanout, count = ix.level_count[child_level];
      const int last = first + kFanout < count ? first + kFanout : count;
      const int base = top;
      for (int j = first; j < last; ++j) {
        const Vec4<double> ball = ix.nodes(ix.level_start[child_level] + j);
        const double lower = distance_to(p, ball) - ball.w;
        if (lower > reach) continue;
        // kept in falling order of bound from `base` up, so the nearest child is popped first
        int m = top++;
        while (m > base && bound[m - 1] < lower) {
          node[m] = node[m - 1], level[m] = level[m - 1], bound[m] = bound[m - 1];
          --m;
        }
        node[m] = j, level[m] = child_level, bound[m] = lower;
      }
    }
  }

  // Inserts (s, index) into the sorted list (after entries of equal s); returns its place.
  KOKKOS_INLINE_FUNCTION int insert(int o, T s, int index) const {
    int m = kc - 1;
    while (m > 0 && best(o, m - 1) > s) {
      best(o, m) = best(o, m - 1);
      best_index(o, m) = best_index(o, m - 1);
      --m;
    }
    best(o, m) = s;
    best_index(o, m) = index;
    return m;
  }
};

}  // namespace trident::knn
