#pragma once
// Every reference within a distance of each observation (k: all), exactly: a thread an
// observation, a squared chord in float64 with a margin as the screen (no trigonometry for
// the pairs surely beyond), then the great-circle angle the settling computes decides. Two
// passes with the same functor: the first counts a row's references, the second writes them
// at the row's offset, so no pair takes an atomic. The brute force visits every reference;
// the index walks its tree and skips every ball whose chord lower bound lies beyond the
// limit, so a small distance touches few cells. Thread t takes observation order(t): the
// observations in the order of their places (their cube keys), so that a warp's threads walk
// the same cells, while each row is still written at its own observation's offset. A
// point's own reference (`self`, when the set is searched against itself) is left out here,
// in the count as in the rows. The entries of a row come in either method's own order;
// WithinOrder sorts rows of up to kDeviceOrderedRow entries on the device and the host the
// longer ones (within_search.cpp), the same order either way, which makes the rows the same
// bits through either method.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>

#include "knn/detail/geometry.hpp"
#include "knn/detail/index/sphere_index.hpp"
#include "knn/detail/index/radix_sort.hpp"
#include "knn/detail/screen_kernels.hpp"

namespace trident::knn {

using RowOffsets = Kokkos::View<std::int64_t*, DeviceMemory>;
using EntryIndices = Kokkos::View<int*, DeviceMemory>;
using EntryAngles = Kokkos::View<double*, DeviceMemory>;
using ObservationLimits = Kokkos::View<double*, DeviceMemory>;  // one an observation, or empty
using ObservationSelf = Kokkos::View<std::int64_t*, DeviceMemory>;  // one an observation, or empty
using ObservationOrder = index::Values;  // thread t takes observation order(t)

// The limit as the kernels test it: a pair is within when radius * angle <= max_distance
// (the distance the output gets, to the bit); the chord bound only skips pairs surely beyond,
// and the inner chord spares the count pass the angle of pairs surely within.
struct WithinTest {
  double radius = 1.0, max_distance = 0.0;
  double chord = 0.0;   // an upper bound of the chord of any pair within, with a margin
  double inner = -1.0;  // a chord below which every pair is within, with a margin (negative: none)

  WithinTest() = default;
  WithinTest(double r, double d) : radius(r), max_distance(d), chord(chord_bound(r, d)), inner(inner_bound(r, d)) {}
  static double chord_bound(double r, double d) {
    const double angle = std::fmin(d / r * (1 + 1e-12), kPi);
    return 2 * std::sin(0.5 * angle) + 1e-12;  // unit vectors' rounding is ~1e-16
  }
  // A pair whose chord (as computed) is at most this has an angle below (d / r)(1 - 1e-12)
  // less about 1e-12: the rounding of the vectors, of the chord and of the angle (~1e-15)
  // cannot bring radius * angle up to d. None at d = 0, or past an angle of 3 (near pi the
  // chord tells the angle poorly).
  static double inner_bound(double r, double d) {
    const double angle = d / r * (1 - 1e-12);
    if (!(angle > 0.0) || angle >= 3.0) return -1.0;
    const double c = 2 * std::sin(0.5 * angle) - 1e-12;
    return c > 0.0 ? c : -1.0;
  }
  // The test for one observation: its own limit and chord bounds where the observations have
  // their own radii (`limits` not empty), else this one.
  template <class Limits>
  KOKKOS_INLINE_FUNCTION WithinTest of(const Limits& limits, const Limits& chords, const Limits& inners, int o) const {
    WithinTest t = *this;
    if (limits.extent(0) > 0) {
      t.max_distance = limits(o);
      t.chord = chords(o);
      t.inner = inners(o);
    }
    return t;
  }
  // Whether q lies within of p, with the angle when `need_angle` (the fill pass), else (the
  // count pass) only where the inner chord cannot tell.
  KOKKOS_INLINE_FUNCTION bool within(const Vec4<double>& p, const Vec4<double>& q, double& angle, bool need_angle) const {
    const double dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
    const double c2 = dx * dx + dy * dy + dz * dz;
    if (c2 > chord * chord) return false;
    if (!need_angle && inner > 0.0 && c2 <= inner * inner) return true;
    angle = great_circle_angle(p, q);
    return radius * angle <= max_distance;
  }
};

// Row o's entries: counted (fill false: offsets(o) = the count) or written from offsets(o).
// With `slots`, the count pass also keeps each row's first `slots` entries (row o's from
// o * slots), and the fill pass leaves every row that fit there to the row order, which
// copies it from there in order instead of searching it again: the same entries (the same
// test, the same angles).
struct WithinSink {
  RowOffsets offsets;
  EntryIndices index;
  EntryAngles angle;
  bool fill = false;
  EntryIndices kept_index;
  EntryAngles kept_angle;
  int slots = 0;

  // Whether the pass needs the angle of the row's next pair, `count` found before it (the
  // count pass only while it keeps entries).
  KOKKOS_INLINE_FUNCTION bool angles(std::int64_t count) const { return fill || count < slots; }
  // One entry of the row written (or kept) from `at`: reference `r` at `a`, the row's count-th.
  KOKKOS_INLINE_FUNCTION void emit(std::int64_t at, std::int64_t& count, int r, double a) const {
    if (fill) {
      index(at + count) = r;
      angle(at + count) = a;
    } else if (count < slots) {
      kept_index(at + count) = r;
      kept_angle(at + count) = a;
    }
    ++count;
  }
  KOKKOS_INLINE_FUNCTION std::int64_t start(int o) const {
    return fill ? offsets(o) : static_cast<std::int64_t>(o) * slots;
  }
  KOKKOS_INLINE_FUNCTION void finish(int o, std::int64_t count) const {
    if (!fill) offsets(o) = count;
  }
  // The fill pass: whether row o all fit in what the count pass kept (WithinOrder writes it).
  KOKKOS_INLINE_FUNCTION bool kept_whole(int o) const {
    return fill && slots > 0 && offsets(o + 1) - offsets(o) <= slots;
  }
};

// The most entries a row the count pass keeps (WithinSearch::kept_slots).
constexpr int kMostKeptSlots = 32;

// What both methods share: the observations, the test, the sink, each observation's own
// limit and reference where given, and the order the threads take them in.
struct WithinRound {
  PointsView<double> observations;
  WithinTest shared;
  WithinSink sink;
  ObservationLimits limits, chords, inners;
  ObservationSelf self;
  ObservationOrder order;

  // Reference r is not observation o itself (always true without `self`).
  KOKKOS_INLINE_FUNCTION bool other(int o, int r) const { return self.extent(0) == 0 || self(o) != r; }
};

struct WithinBrute {
  WithinRound round;
  PointsView<double> references;

  KOKKOS_INLINE_FUNCTION void operator()(int t) const {
    const int o = round.order(t);
    if (round.sink.kept_whole(o)) return;
    const Vec4<double> p = round.observations(o);
    const WithinTest test = round.shared.of(round.limits, round.chords, round.inners, o);
    const int n = static_cast<int>(references.extent(0));
    const std::int64_t at = round.sink.start(o);
    std::int64_t count = 0;
    for (int r = 0; r < n; ++r) {
      double a = 0;
      if (test.within(p, references(r), a, round.sink.angles(count)) && round.other(o, r)) round.sink.emit(at, count, r, a);
    }
    round.sink.finish(o, count);
  }
};

// The lowest set bit of a non-zero mask.
KOKKOS_INLINE_FUNCTION int lowest_bit(unsigned m) {
#if defined(__CUDA_ARCH__)
  return __ffs(static_cast<int>(m)) - 1;
#else
  return __builtin_ctz(m);
#endif
}

// The children of one node still to visit, a byte a level (kFanout = 8, at most 16 levels), in
// two registers: the walk's whole state besides its level and the first child's index, with
// no stack in local memory.
struct LevelMasks {
  std::uint64_t low = 0, high = 0;  // levels 0-7, 8-15
  KOKKOS_INLINE_FUNCTION unsigned get(int level) const {
    return static_cast<unsigned>((level < 8 ? low >> (8 * level) : high >> (8 * (level - 8))) & 0xffu);
  }
  KOKKOS_INLINE_FUNCTION void set(int level, unsigned m) {
    std::uint64_t& word = level < 8 ? low : high;
    const int shift = 8 * (level & 7);
    word = (word & ~(std::uint64_t(0xff) << shift)) | (std::uint64_t(m) << shift);
  }
};

struct WithinIndex {
  WithinRound round;
  SphereIndexView index;

  static_assert(kFanout == 8 && kMaxLevels <= 16, "LevelMasks holds a byte of children a level");

  // Whether node `node` of `level` may hold a reference within: |p - centre| - radius <=
  // reach, squared (no square root; the margins of `reach` dwarf the rounding either way,
  // and only the test of each reference decides a row).
  KOKKOS_INLINE_FUNCTION bool reaches(const Vec4<double>& p, double reach, int level, int node) const {
    const Vec4<double> ball = index.nodes(index.level_start[level] + node);
    const double dx = p.x - ball.x, dy = p.y - ball.y, dz = p.z - ball.z;
    const double beyond = ball.w + reach;
    return dx * dx + dy * dy + dz * dz <= beyond * beyond;
  }

  // The children first, first + 1, ... of `level` that may hold a reference within, a bit each.
  KOKKOS_INLINE_FUNCTION unsigned reaching(const Vec4<double>& p, double reach, int level, int first) const {
    unsigned m = 0;
    const int last = first + kFanout < index.level_count[level] ? first + kFanout : index.level_count[level];
    for (int c = first; c < last; ++c)
      if (reaches(p, reach, level, c)) m |= 1u << (c - first);
    return m;
  }

  KOKKOS_INLINE_FUNCTION void operator()(int t) const {
    const int o = round.order(t);
    if (round.sink.kept_whole(o)) return;
    const Vec4<double> p = round.observations(o);
    const WithinTest test = round.shared.of(round.limits, round.chords, round.inners, o);
    const std::int64_t at = round.sink.start(o);
    std::int64_t count = 0;
    const double reach = test.chord + 1e-12;  // the balls' own rounding
    const int top = index.levels - 1;
    if (reaches(p, reach, top, 0)) {
      if (top == 0) leaf(p, test, o, 0, at, count);  // (a root that is a leaf)
      else walk(p, test, o, reach, at, count);
    }
    round.sink.finish(o, count);
  }

  // The leaves below a root that reaches, depth first, children in order: at `level`, the
  // children of one node (the first of them `first`) still to visit; a leaf's references are
  // searched as its bit is taken.
  KOKKOS_INLINE_FUNCTION void walk(const Vec4<double>& p, const WithinTest& test, int o, double reach,
                                   std::int64_t at, std::int64_t& count) const {
    const int top = index.levels - 1;
    LevelMasks masks;
    int level = top - 1, first = 0;
    masks.set(level, reaching(p, reach, level, first));
    for (;;) {
      const unsigned m = masks.get(level);
      if (m == 0) {  // this node done: back to its parent's level
        if (level + 1 >= top) break;
        ++level;
        first = (first >> 6) << 3;  // the parent is first / 8, its own first sibling that / 8 * 8
        continue;
      }
      const int c = lowest_bit(m);
      masks.set(level, m & (m - 1));
      const int node = first + c;
      if (level == 0) {
        leaf(p, test, o, node, at, count);
        continue;
      }
      --level;
      first = node * kFanout;
      masks.set(level, reaching(p, reach, level, first));
    }
  }

  // The references of leaf `node` within the test of observation o.
  KOKKOS_INLINE_FUNCTION void leaf(const Vec4<double>& p, const WithinTest& test, int o, int node, std::int64_t at,
                                   std::int64_t& count) const {
    const int end = (node + 1) * kLeafSize < index.references ? (node + 1) * kLeafSize : index.references;
    for (int j = node * kLeafSize; j < end; ++j) {
      double a = 0;
      if (!test.within(p, index.sorted(j), a, round.sink.angles(count))) continue;
      const int r = index.reference(j);
      if (round.other(o, r)) round.sink.emit(at, count, r, a);
    }
  }
};

// Rows of at most kDeviceOrderedRow entries are put in the output's order on the device, a
// thread a row (an insertion sort: short rows are the common case of a cross-match), and
// their angles turned into distances, radius * angle (one rounding: the same bits as on the
// host); longer rows are left to the host (within_search.cpp), which orders them the same way
// and then multiplies. A row the count pass kept whole is ordered in the thread's own memory
// on its way from the kept entries to the row's place.
constexpr std::int64_t kDeviceOrderedRow = 64;

// The order of within_search.cpp's order_row on entries [from, to) of `angle` and `index`
// (callables giving each entry's reference): by (angle, index), then each run of ties (1e-12
// relative, chained) by index. Both keys are compared exactly, so the order is the same bits
// wherever it is made.
template <class Angle, class Index>
KOKKOS_INLINE_FUNCTION void order_entries(const Angle& angle, const Index& index, std::int64_t from, std::int64_t to) {
  for (std::int64_t i = from + 1; i < to; ++i) {
    const double a = angle(i);
    const int r = index(i);
    std::int64_t j = i;
    while (j > from && (angle(j - 1) > a || (angle(j - 1) == a && index(j - 1) > r))) {
      angle(j) = angle(j - 1);
      index(j) = index(j - 1);
      --j;
    }
    angle(j) = a;
    index(j) = r;
  }
  for (std::int64_t start = from; start < to;) {
    std::int64_t end = start + 1;
    while (end < to) {
      const double x = angle(end - 1), y = angle(end);
      const double larger = x > y ? x : y;
      if (!((x > y ? x - y : y - x) <= kTieRelative * larger)) break;
      ++end;
    }
    for (std::int64_t i = start + 1; i < end; ++i) {  // the run by index (angles travel with them)
      const double a = angle(i);
      const int r = index(i);
      std::int64_t j = i;
      while (j > start && index(j - 1) > r) {
        angle(j) = angle(j - 1);
        index(j) = index(j - 1);
        --j;
      }
      angle(j) = a;
      index(j) = r;
    }
    start = end;
  }
}

struct WithinOrder {
  RowOffsets offsets;  // row o at [offsets(o), offsets(o + 1))
  EntryIndices index;
  EntryAngles angle;
  double radius = 1.0;
  // the count pass's kept rows (WithinSink's), copied from there in order where whole
  EntryIndices kept_index;
  EntryAngles kept_angle;
  int slots = 0;

  KOKKOS_INLINE_FUNCTION void operator()(int o) const {
    const std::int64_t from = offsets(o), to = offsets(o + 1);
    if (to - from <= slots) {
      double a[kMostKeptSlots];
      int r[kMostKeptSlots];
      const int size = static_cast<int>(to - from);
      const std::int64_t kept = static_cast<std::int64_t>(o) * slots;
      for (int i = 0; i < size; ++i) {
        a[i] = kept_angle(kept + i);
        r[i] = kept_index(kept + i);
      }
      order_entries([&](std::int64_t i) -> double& { return a[i]; }, [&](std::int64_t i) -> int& { return r[i]; }, 0,
                    size);
      for (int i = 0; i < size; ++i) {
        index(from + i) = r[i];
        angle(from + i) = radius * a[i];
      }
      return;
    }
    if (to - from > kDeviceOrderedRow) return;
    order_entries([&](std::int64_t i) -> double& { return angle(i); }, [&](std::int64_t i) -> int& { return index(i); },
                  from, to);
    for (std::int64_t i = from; i < to; ++i) angle(i) = radius * angle(i);
  }
};

}  // namespace trident::knn
