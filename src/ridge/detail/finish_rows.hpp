#pragma once
// The second pass of a row product: each row's sum gathered from its work items (the
// segments of a long row, added by a warp; the pieces of its column bands, in band order)
// and handed to a finish, whose returns are summed in a fixed order (OrderedSum) by the
// launch itself, so that the warp that ends it can go on with work that needs the total.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "ridge/detail/execution.hpp"
#include "ridge/detail/ordered_sum.hpp"

namespace trident::ridge {

// Each long row's segment sums (its first at item row, the further ones past the rows)
// added, the long rows taken in groups of a warp's lanes (32 on CUDA, 1 on host back ends):
// a lane adds a row of at most kLaneSegments segments alone, in segment order; a row of
// more takes the whole warp (row_total: lane l adds segments l, l + 32, ..., then a
// butterfly of shuffles). Either way a row's order depends only on its length: results
// stay fixed. A warp rather than one thread, because a dense row has thousands of
// segments; a lane for a short long row, because most long rows have a few and would
// leave a warp's lanes idle. FinishRows does this for the products it finishes; as a pass
// of its own (operator()) it stores the sums into item_sums(row) for launch_row_sums.
struct LongRowSums {
  static constexpr int kLaneSegments = 8;

  Kokkos::View<const int*, RidgeDevice> long_rows, further_first;
  Kokkos::View<double*, RidgeDevice> item_sums;
  int rows;
  const int* skip;

  KOKKOS_INLINE_FUNCTION int warps() const {
    return static_cast<int>((long_rows.extent(0) + kWarpLanes - 1) / kWarpLanes);
  }
  int threads() const { return warps() * kWarpLanes; }

  // Long row j's sum, in every lane; the lanes of a warp call it together. Lane l adds
  // segments l, l + 32, ... in that order, kBatch loads issued before their additions (a
  // dense row of 2^20 float32 entries has 2048 segments, 64 a lane).
  KOKKOS_INLINE_FUNCTION double row_total(const int j, const int lane) const {
    constexpr int kBatch = 8;
    const int row = long_rows(j), first = rows + further_first(j), count = further_first(j + 1) - further_first(j);
    double total = 0;
    for (int base = lane; base <= count; base += kBatch * kWarpLanes) {
      double batch[kBatch];
      for (int b = 0; b < kBatch; ++b) {
        const int k = base + b * kWarpLanes;
        batch[b] = k <= count ? item_sums(k == 0 ? row : first + k - 1) : 0.0;
      }
      for (int b = 0; b < kBatch; ++b)
        if (base + b * kWarpLanes <= count) total += batch[b];
    }
    return warp::sum(total);  // a warp a long row: every lane is here
  }

  // The sums of long rows group * kWarpLanes + lane for every lane: `done(row, total)` is
  // called in the lane of the row's position in the group. The lanes of a warp call it
  // together.
  template <class Done>
  KOKKOS_INLINE_FUNCTION void group_totals(const int group, const int lane, const Done& done) const {
    const int j = group * kWarpLanes + lane;
    const bool have = j < static_cast<int>(long_rows.extent(0));
    const int row = have ? long_rows(j) : 0;
    const int first = have ? rows + further_first(j) : 0;
    const int count = have ? further_first(j + 1) - further_first(j) : 0;  // segments after the first
    const bool alone = have && count < kLaneSegments;
    if (alone) {
      double part[kLaneSegments];
      for (int k = 0; k < kLaneSegments; ++k) part[k] = k <= count ? item_sums(k == 0 ? row : first + k - 1) : 0.0;
      double total = part[0];
      for (int k = 1; k < kLaneSegments; ++k)
        if (k <= count) total += part[k];
      done(row, total);
    }
    for (unsigned shared = warp::ballot(have && !alone); shared != 0; shared &= shared - 1) {
      const int owner = warp::lowest(shared);
      const double total = row_total(group * kWarpLanes + owner, lane);
      if (lane == owner) done(row, total);
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const int t) const {
    if (skip && *skip) return;
    // A row's sum is stored by the lane that read its first segment (alone), or after
    // the warp's shuffles, when every lane has read its segments.
    group_totals(t / kWarpLanes, t % kWarpLanes, [&](const int row, const double total) { item_sums(row) = total; });
  }
};

// A finish's inputs for `row` (Finish::load), read before any row's result is stored, so
// that a thread's rows have their loads in flight together; finishes without inputs
// (no load member) get an empty one.
template <class Finish, class = void>
struct has_finish_load : std::false_type {};
template <class Finish>
struct has_finish_load<Finish, std::void_t<decltype(std::declval<const Finish&>().load(0))>> : std::true_type {};
struct NoFinishInputs {};
template <class Finish>
KOKKOS_INLINE_FUNCTION auto finish_inputs(const Finish& finish, const int row) {
  if constexpr (has_finish_load<Finish>::value) return finish.load(row);
  else return NoFinishInputs{};
}
template <class Finish, class Inputs>
KOKKOS_INLINE_FUNCTION double finish_row(const Finish& finish, const int row, const double product,
                                         const Inputs& inputs) {
  if constexpr (has_finish_load<Finish>::value) return finish(row, product, inputs);
  else return finish(row, product);
}

// Row `row`'s sum from its pieces' sums (item b * rows + row is its piece of band b),
// added in band order; item_sums(row) itself when there are no bands.
template <class Sums>
KOKKOS_INLINE_FUNCTION double band_total(const Sums& item_sums, const int rows, const int bands, const int row) {
  double total = item_sums(row);
  for (int b = 1; b < bands; ++b) total += item_sums(static_cast<std::int64_t>(b) * rows + row);
  return total;
}

// What the warp that ends a finish does with the total: nothing (FinishRows' After), or
// work that needs it, such as the ridge recurrences: `void operator()(int lane, double
// total) const`, called by every lane of that warp.
struct NothingAfter {
  KOKKOS_INLINE_FUNCTION void operator()(int, double) const {}
};

// Each row's sum handed to finish, whose returns are summed (OrderedSum) into result(),
// after which the last warp runs `after`. Finish is a functor
// `double operator()(int row, double product) const` that stores the row's result and
// gives its contribution to a squared norm, or, when it reads something of the row,
// `load(row)` and `operator()(row, product, loaded)`. A row's sum is item_sums(row), or
// with bands its pieces' item_sums(b * rows + row) added in band order; long rows of a
// split matrix come first, a warp for a group of them (LongRowSums::group_totals), and the
// other threads pass over them (long_row_bits): the segments are added in this pass, not
// one of their own. A thread finishes kRows rows, `stride` apart (coalesced), with every
// load issued before the first store, and again `row_threads` further on while rows
// remain; a warp of long_threads takes groups of long rows long_warps apart. The threads
// are capped (kMostFinishThreads in row_products.hpp) because each warp pays a fence and an
// atomic to add its partial (OrderedSum).
template <class Finish, int kRows, class Result, class After = NothingAfter>
struct FinishRows {
  Kokkos::View<const double*, RidgeDevice> item_sums;
  Finish finish;
  int rows, bands, stride, row_threads;
  LongRowSums long_sums;  // split only: its warps come first
  Kokkos::View<const std::uint32_t*, RidgeDevice> long_row_bits;
  int long_warps, threads;  // threads: all of the launch, whole warps
  OrderedSum sum;
  Result result;
  After after;
  const int* skip;

  KOKKOS_INLINE_FUNCTION bool is_long(const int row) const {
    return long_row_bits.extent(0) > 0 && ((long_row_bits(row >> 5) >> (row & 31)) & 1u);
  }

  // Rows unit, unit + stride, ... (kRows of them, those that exist and are not long).
  KOKKOS_INLINE_FUNCTION double finish_unit(const int unit) const {
    double product[kRows];
    decltype(finish_inputs(finish, 0)) inputs[kRows];
    bool mine[kRows];
    // The loads of a long row's sum and inputs are wasted, but they go out with the
    // others rather than after the test.
    for (int j = 0; j < kRows; ++j) {
      const int row = unit + j * stride;
      mine[j] = row < rows;
      if (!mine[j]) continue;
      product[j] = band_total(item_sums, rows, bands, row);
      inputs[j] = finish_inputs(finish, row);
    }
    double contribution = 0;
    for (int j = 0; j < kRows; ++j)
      if (mine[j] && !is_long(unit + j * stride))
        contribution += finish_row(finish, unit + j * stride, product[j], inputs[j]);
    return contribution;
  }

  KOKKOS_INLINE_FUNCTION double finish_rows(const int t) const {
    const int long_threads = long_warps * kWarpLanes;
    double contribution = 0;
    if (t < long_threads) {
      const auto add = [&](const int row, const double total) {
        contribution += finish_row(finish, row, total, finish_inputs(finish, row));
      };
      for (int group = t / kWarpLanes; group < long_sums.warps(); group += long_warps)
        long_sums.group_totals(group, t % kWarpLanes, add);
      return contribution;
    }
    for (int unit = t - long_threads; unit < stride; unit += row_threads) contribution += finish_unit(unit);
    return contribution;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const int t) const {
    if (skip && *skip) return;
    double total = 0;
    if (!sum.add(t, threads, finish_rows(t), total)) return;
    const int lane = warp_lane(t);
    if (lane == 0) result() = total;
    after(lane, total);
  }
};

// Between the passes of a banded product whose sums go elsewhere than to a finish
// (launch_row_sums): each row's pieces' sums added in band order into item_sums(row).
struct BandSums {
  Kokkos::View<double*, RidgeDevice> item_sums;
  int rows, bands;
  const int* skip;
  KOKKOS_INLINE_FUNCTION void operator()(const int row) const {
    if (skip && *skip) return;
    item_sums(row) = band_total(item_sums, rows, bands, row);
  }
};

}  // namespace trident::ridge
