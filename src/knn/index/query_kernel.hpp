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

constexpr int kHeap = 256;       // cells a best-first search keeps waiting
constexpr int kLevelShift = 27;  // a heap entry: level << 27 | node (fewer than 2^27 nodes a level)

template <class T>
struct IndexScreen {
  SphereIndexView ix;
  PointsView<double> obs;                  // the batch's observations
  Kokkos::View<int*, DeviceMemory> order;  // thread t screens observation order(t)
  ListValues<T> best;
  ListIndices best_index;
  int k = 1, kc = 1;
  bool exhaustive = false;  // the lists hold every reference: visit every leaf
  Kokkos::View<std::int64_t, DeviceMemory> depth_first_rows;  // counts the heaps that overflowed
  int heap_capacity = kHeap;  // at most kHeap (tests: less)

  // Adds the leaves this observation visited to `leaves`.
  KOKKOS_INLINE_FUNCTION void operator()(int t, std::int64_t& leaves) const {
    const int o = order(t);
    const Vec4<double> p = obs(o);
    if (best_first(o, p, leaves)) return;
    Kokkos::atomic_fetch_add(&depth_first_rows(), std::int64_t(1));
    depth_first(o, p, leaves);
  }

  // The list's state during a traversal.
  struct State {
    T worst;       // the list's last entry: a reference enters below it
    double reach;  // cells whose lower bound exceeds it hold no reference the answer needs
  };

  KOKKOS_INLINE_FUNCTION State start_list(int o) const {
    const T infinity = Kokkos::Experimental::infinity<T>::value;
    for (int i = 0; i < kc; ++i) {
      best(o, i) = infinity;
      best_index(o, i) = kNoIndex;
    }
    return State{infinity, Kokkos::Experimental::infinity<double>::value};
  }

  // Screens leaf `leaf` into the list.
  KOKKOS_INLINE_FUNCTION void screen_leaf(int o, const Vec4<double>& p, int leaf, State& state) const {
    const int first = leaf * kLeafSize;
    const int last = first + kLeafSize < ix.references ? first + kLeafSize : ix.references;
    for (int j = first; j < last; ++j) {
      const Vec4<T> e = relative_to<T>(ix.sorted(j), p);
      const T s = e.x * e.x + e.y * e.y + e.z * e.z;
      if (!(s < state.worst)) continue;
      const int at = insert(o, s, ix.reference(j));
      state.worst = best(o, kc - 1);
      if (at < k && !exhaustive && best(o, k - 1) < Kokkos::Experimental::infinity<T>::value) {
        state.reach = ScreeningWindow<T>(best(o, k - 1), 0.0).limit + kReachMargin;
      }
    }
  }

  KOKKOS_INLINE_FUNCTION double lower_bound(const Vec4<double>& p, int level, int i) const {
    const Vec4<double> ball = ix.nodes(ix.level_start[level] + i);
    return distance_to(p, ball) - ball.w;
  }

  // Heap order: by bound, then by level and node (a total order, the same on every run).
  KOKKOS_INLINE_FUNCTION static bool before(double bound_a, int code_a, double bound_b, int code_b) {
    return bound_a < bound_b || (bound_a == bound_b && code_a < code_b);
  }

  // Cells in rising order of their lower bound (a heap of kHeap entries); false when the
  // heap overflowed (then the list is unfinished).
  KOKKOS_INLINE_FUNCTION bool best_first(int o, const Vec4<double>& p, std::int64_t& leaves) const {
    State state = start_list(o);
    double bound[kHeap];
    int code[kHeap];  // level << kLevelShift | node
    int size = 1;
    bound[0] = 0.0, code[0] = (ix.levels - 1) << kLevelShift;
    while (size > 0) {
      const double b = bound[0];
      const int c = code[0];
      if (b > state.reach) return true;  // every cell left lies beyond
      // pop: the last entry sifts down from the root
      --size;
      {
        const double lb = bound[size];
        const int lc = code[size];
        int m = 0;
        for (;;) {
          int child = 2 * m + 1;
          if (child >= size) break;
          if (child + 1 < size && before(bound[child + 1], code[child + 1], bound[child], code[child])) ++child;
          if (!before(bound[child], code[child], lb, lc)) break;
          bound[m] = bound[child], code[m] = code[child];
          m = child;
        }
        bound[m] = lb, code[m] = lc;
      }
      const int level = c >> kLevelShift, node = c & ((1 << kLevelShift) - 1);
      if (level == 0) {
        ++leaves;
        screen_leaf(o, p, node, state);
        continue;
      }
      const int first = node * kFanout, count = ix.level_count[level - 1];
      const int last = first + kFanout < count ? first + kFanout : count;
      for (int j = first; j < last; ++j) {
        const double lower = lower_bound(p, level - 1, j);
        if (lower > state.reach) continue;
        if (size == heap_capacity) return false;
        // cells that contain p all wait at 0, the finest first: a leaf around p is screened
        // before the wide cells of sparse places around it are opened (ordered by how deep
        // p lies inside them, those came first and filled the heap)
        const double key = lower > 0.0 ? lower : 0.0;
        const int key_code = (level - 1) << kLevelShift | j;
        int m = size++;  // sift up
        while (m > 0 && before(key, key_code, bound[(m - 1) / 2], code[(m - 1) / 2])) {
          bound[m] = bound[(m - 1) / 2], code[m] = code[(m - 1) / 2];
          m = (m - 1) / 2;
        }
        bound[m] = key, code[m] = key_code;
      }
    }
    return true;
  }

  // Depth first, the nearest child first: a stack that cannot overflow, for the rare
  // observation whose heap did.
  KOKKOS_INLINE_FUNCTION void depth_first(int o, const Vec4<double>& p, std::int64_t& leaves) const {
    State state = start_list(o);
    int node[kTraversalStack];
    int level[kTraversalStack];
    double bound[kTraversalStack];
    int top = 1;
    node[0] = 0, level[0] = ix.levels - 1, bound[0] = 0.0;
    while (top > 0) {
      --top;
      if (bound[top] > state.reach) continue;
      if (level[top] == 0) {
        ++leaves;
        screen_leaf(o, p, node[top], state);
        continue;
      }
      const int child_level = level[top] - 1;
      const int first = node[top] * kFanout, count = ix.level_count[child_level];
      const int last = first + kFanout < count ? first + kFanout : count;
      const int base = top;
      for (int j = first; j < last; ++j) {
        const double lower = lower_bound(p, child_level, j);
        if (lower > state.reach) continue;
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
