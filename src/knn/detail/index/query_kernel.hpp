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
// hold all that the settling needs, whatever order the cells were visited in. A list that
// cannot prove its answer (more candidates inside the window than it keeps) is marked by
// Bound and searched again with a longer one, as in the brute force.
//
// The traversal, made for GPUs (a thread an observation, neighbouring threads on
// neighbouring observations: the batch is in key order): first the few leaves around the
// observation's own place on the key curve, which fill the list with near references, then
// the tree depth first from the root, the nearest child first, skipping every cell beyond
// the list's reach. The first leaves make the reach small from the start, so the depth-first
// walk opens about the cells a best-first search would, with a stack of bounded size (no
// heap that can overflow) and no branch that differs between neighbouring threads more than
// their cells do. Lists of up to 80 entries (64 in float64) live in registers
// (RegisterList), longer ones in the batch's list arrays (GlobalList), observation-fastest on
// GPUs.
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "knn/detail/geometry.hpp"
#include "knn/detail/index/cube_key.hpp"
#include "knn/detail/index/sphere_index.hpp"
#include "knn/detail/screen_kernels.hpp"

namespace trident::knn {

// Added to the window's limit before comparing cell bounds with it: covers the rounding of
// the bound |p - c| - r and of the limit itself (each under 2e-15 on chords up to 2).
constexpr double kReachMargin = 1e-14;

constexpr int kLevelShift = 27;  // a cell's code: level << 27 | node (fewer than 2^27 nodes a level)
// entries of the depth-first stack: the root, then at most kFanout - 1 siblings left
// waiting on each level of the path under way
constexpr int kTraversalStack = 1 + kMaxLevels * (kFanout - 1);

// A float at most x (x's nearest float may lie above it): the stack keeps lower bounds as
// floats, and a bound must never grow, or a cell the answer needs could be skipped.
KOKKOS_INLINE_FUNCTION float float_below(double x) {
  const float f = static_cast<float>(x);
  if (static_cast<double>(f) <= x) return f;
  return f - (f > 0.0f ? f : -f) * 1.2e-7f - 1e-30f;  // one float step down (2^-23 relative) or more
}

// A sorted list of K entries in registers (K a compile-time length; every loop over it
// unrolled, so no entry is indexed at run time).
template <class T, int K>
struct RegisterList {
  T s[K];
  int id[K];

  KOKKOS_INLINE_FUNCTION RegisterList(const ListValues<T>&, const ListIndices&, int, int) {
    TRIDENT_UNROLL
    for (int i = 0; i < K; ++i) {
      s[i] = Kokkos::Experimental::infinity<T>::value;
      id[i] = kNoIndex;
    }
  }
  KOKKOS_INLINE_FUNCTION T worst() const { return s[K - 1]; }
  // entry m (0 <= m < K), selected without indexing the registers at run time
  KOKKOS_INLINE_FUNCTION T entry(int m) const {
    T v = s[0];
    TRIDENT_UNROLL
    for (int i = 1; i < K; ++i) v = i == m ? s[i] : v;
    return v;
  }
  KOKKOS_INLINE_FUNCTION void insert(T v, int j) { RegisterScreen<T, K, 1, 0>::insert(s, id, v, j); }
  // the first `kept` entries into row t of the batch's lists
  KOKKOS_INLINE_FUNCTION void store(const ListValues<T>& best, const ListIndices& best_index, int t,
                                    int kept) const {
    TRIDENT_UNROLL
    for (int i = 0; i < K; ++i) {
      if (i < kept) {
        best(t, i) = s[i];
        best_index(t, i) = id[i];
      }
    }
  }
};

// A sorted list of kc entries in row t of the batch's lists (any length).
template <class T>
struct GlobalList {
  ListValues<T> best;
  ListIndices best_index;
  int t = 0, kc = 1;
  T last;  // best(t, kc - 1), kept in a register

  KOKKOS_INLINE_FUNCTION GlobalList(const ListValues<T>& b, const ListIndices& bi, int row, int length)
      : best(b), best_index(bi), t(row), kc(length), last(Kokkos::Experimental::infinity<T>::value) {
    for (int i = 0; i < kc; ++i) {
      best(t, i) = last;
      best_index(t, i) = kNoIndex;
    }
  }
  KOKKOS_INLINE_FUNCTION T worst() const { return last; }
  KOKKOS_INLINE_FUNCTION T entry(int m) const { return best(t, m); }
  // (after the entries of equal S: a later reference never goes before an equal one)
  KOKKOS_INLINE_FUNCTION void insert(T v, int j) {
    int m = kc - 1;
    while (m > 0 && best(t, m - 1) > v) {
      best(t, m) = best(t, m - 1);
      best_index(t, m) = best_index(t, m - 1);
      --m;
    }
    best(t, m) = v;
    best_index(t, m) = j;
    last = best(t, kc - 1);
  }
  KOKKOS_INLINE_FUNCTION void store(const ListValues<T>&, const ListIndices&, int, int) const {}
};

// The screen of the rows of a batch whose observations are in key order (row t on thread
// t). List is RegisterList<T, K> (kc == K) or GlobalList<T>.
template <class T, class List>
struct IndexScreen {
  SphereIndexView ix;
  PointsView<double> obs;  // the batch's observations, in key order
  ListValues<T> best;
  ListIndices best_index;
  int k = 1, kc = 1, kept = 1;  // kept: entries written, min(kc, references)
  int start_leaves = 1;         // leaves screened around the observation's key first

  // Adds the leaves this observation screened to `leaves`.
  KOKKOS_INLINE_FUNCTION void operator()(int t, std::int64_t& leaves) const {
    const Vec4<double> p = obs(t);
    List list(best, best_index, t, kc);
    double reach = Kokkos::Experimental::infinity<double>::value;
    // the leaves around p's place on the curve: [l0, l1]
    const int leaf_count = ix.level_count[0];
    const int span = start_leaves < leaf_count ? start_leaves : leaf_count;
    const int around = ix.leaf_of(index::cube_key(p)) - (span - 1) / 2;
    const int l0 = around < 0 ? 0 : around + span > leaf_count ? leaf_count - span : around;
    const int l1 = l0 + span - 1;
    for (int leaf = l0; leaf <= l1; ++leaf) screen_leaf(list, p, leaf, reach);
    leaves += span;
    // then every cell within reach, depth first, the nearest child first
    int code[kTraversalStack];
    float lower[kTraversalStack];
    int top = 1;
    code[0] = (ix.levels - 1) << kLevelShift, lower[0] = 0.0f;
    while (top > 0) {
      --top;
      if (static_cast<double>(lower[top]) > reach) continue;
      const int level = code[top] >> kLevelShift, node = code[top] & ((1 << kLevelShift) - 1);
      if (level == 0) {
        ++leaves;
        screen_leaf(list, p, node, reach);
        continue;
      }
      const int child_level = level - 1;
      const int c0 = node * kFanout, count = ix.level_count[child_level];
      const int c1 = c0 + kFanout < count ? c0 + kFanout : count;
      const int base = top;
      for (int j = c0; j < c1; ++j) {
        if (child_level == 0 && j >= l0 && j <= l1) continue;  // screened first
        const double bound = lower_bound(p, child_level, j);
        if (bound > reach) continue;
        // kept in falling order of bound from `base` up, so that the nearest is popped first
        const float b = float_below(bound);
        int m = top++;
        while (m > base && lower[m - 1] < b) {
          code[m] = code[m - 1], lower[m] = lower[m - 1];
          --m;
        }
        code[m] = child_level << kLevelShift | j, lower[m] = b;
      }
    }
    list.store(best, best_index, t, kept);
  }

  KOKKOS_INLINE_FUNCTION double lower_bound(const Vec4<double>& p, int level, int i) const {
    const Vec4<double> ball = ix.nodes(ix.level_start[level] + i);
    return distance_to(p, ball) - ball.w;
  }

  // Screens leaf `leaf` into the list; `reach` follows the list's k-th entry.
  KOKKOS_INLINE_FUNCTION void screen_leaf(List& list, const Vec4<double>& p, int leaf, double& reach) const {
    const int j0 = leaf * kLeafSize;
    const int j1 = j0 + kLeafSize < ix.references ? j0 + kLeafSize : ix.references;
    for (int j = j0; j < j1; ++j) {
      const Vec4<T> e = relative_to<T>(ix.sorted(j), p);
      const T s = e.x * e.x + e.y * e.y + e.z * e.z;
      if (!(s < list.worst())) continue;
      const bool near = s < list.entry(k - 1);  // it goes among the first k
      list.insert(s, ix.reference(j));
      if (near && kept < ix.references) {
        const T kth = list.entry(k - 1);
        if (kth < Kokkos::Experimental::infinity<T>::value) {
          reach = ScreeningWindow<T>(kth, 0.0).limit + kReachMargin;
        }
      }
    }
  }
};

}  // namespace trident::knn
