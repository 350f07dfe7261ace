#pragma once
// Row products with a DeviceCsr and their launchers: y(row) <- finish(row, (M x)(row)) as
// two launches that never wait for the host (the work items' sums, lane_products.hpp; the
// rows' finish, finish_rows.hpp), the device scratch they share, and the shape of the
// finishing launch. Float32 matrices and vectors sum each lane's entries in float and the
// lanes in double; any double operand makes the whole sum double.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "ridge/detail/device_csr.hpp"
#include "ridge/detail/execution.hpp"
#include "ridge/detail/finish_rows.hpp"
#include "ridge/detail/lane_products.hpp"
#include "ridge/detail/ordered_sum.hpp"

namespace trident::ridge {

// Rows a thread of FinishRows finishes at a time, and the most threads and long-row warps
// it has: on GPUs a device's worth; on host back ends few, so that the tests' small
// matrices take the loops too (a host thread runs its rows in turn anyway).
inline constexpr int kFinishRows = 4;
inline constexpr int kMostFinishThreads = kLanesAreWarpThreads ? 1 << 18 : 64;
inline constexpr int kMostLongRowWarps = kLanesAreWarpThreads ? 1 << 12 : 4;

// The shape of a FinishRows launch over `rows` rows (`long_rows` of them long): row threads,
// long-row warps (one for each group of kWarpLanes long rows, at most kMostLongRowWarps),
// and all its threads in whole warps, at least one, so that a matrix without rows (a
// rank's empty block) still stores its sum, 0, and runs what comes after it.
struct FinishShape {
  int stride, row_threads, long_warps, threads;
  static FinishShape of(std::int64_t rows, std::int64_t long_rows) {
    FinishShape f{};
    f.stride = static_cast<int>((rows + kFinishRows - 1) / kFinishRows);
    f.row_threads = std::min(f.stride, kMostFinishThreads);
    f.long_warps =
        static_cast<int>(std::min<std::int64_t>((long_rows + kWarpLanes - 1) / kWarpLanes, kMostLongRowWarps));
    f.threads = static_cast<int>(OrderedSum::padded(std::max<std::int64_t>(
        1, std::int64_t(f.long_warps) * kWarpLanes + f.row_threads)));
    return f;
  }
};

template <class M>
std::int64_t finish_threads(const DeviceCsr<M>& m) {
  return FinishShape::of(m.rows, static_cast<std::int64_t>(m.long_rows.extent(0))).threads;  // none unless split
}

// Device scratch of the row products: a sum for each work item of the largest matrix
// (DeviceCsr::work_items), the finishing passes' ordered sum, and a scalar for results the
// host waits for.
struct RowProductScratch {
  Kokkos::View<double*, RidgeDevice> item_sums;
  OrderedSum finish_sum;
  Kokkos::View<double, RidgeDevice> result;

  RowProductScratch() = default;
  RowProductScratch(std::int64_t item_count, std::int64_t finish_thread_count)
      : item_sums(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::item_sums"), item_count),
        finish_sum(finish_thread_count),
        result("trident::ridge::product_result") {}
  // For products with any of `matrices`.
  template <class M>
  explicit RowProductScratch(std::initializer_list<const DeviceCsr<M>*> matrices)
      : RowProductScratch(most(matrices, [](const DeviceCsr<M>& m) { return m.work_items; }),
                          most(matrices, [](const DeviceCsr<M>& m) { return finish_threads(m); })) {}

 private:
  template <class M, class Count>
  static std::int64_t most(std::initializer_list<const DeviceCsr<M>*> matrices, Count count) {
    std::int64_t n = 0;
    for (const DeviceCsr<M>* m : matrices) n = std::max(n, count(*m));
    return n;
  }
};

// The product's first pass: item_sums holds each work item's sum (a row's, a segment's or
// with bands a piece's).
template <class M, class XView>
void launch_item_sums(const char* label, const DeviceCsr<M>& m, const XView& x,
                      const Kokkos::View<double*, RidgeDevice>& item_sums, const int* skip) {
  const std::int64_t threads_per_item = kLanesAreWarpThreads ? m.lanes : 1;
  // Float sums fit 32 registers, a GPU's full occupancy, which the gathers of x need to
  // hide their latency; without the bound nvcc takes more for 32-bit indices. Double sums
  // would spill there and keep nvcc's choice.
  using Bounds = std::conditional_t<std::is_same_v<LaneSum<M, typename XView::non_const_value_type>, float>,
                                    Kokkos::LaunchBounds<1024, 2>, Kokkos::LaunchBounds<>>;
  const auto threads = light(Kokkos::RangePolicy<RidgeExec, Kokkos::IndexType<std::int64_t>, Bounds>(
      0, m.work_items * threads_per_item));
  if (m.narrow_indices())
    Kokkos::parallel_for(label, threads,
                         LaneProducts<M, std::uint16_t, XView>{m.work_begin, m.work_end, m.narrow, m.values, x,
                                                               item_sums, m.lanes, skip});
  else
    Kokkos::parallel_for(label, threads,
                         LaneProducts<M, int, XView>{m.work_begin, m.work_end, m.wide, m.values, x, item_sums,
                                                     m.lanes, skip});
}

template <class M>
LongRowSums long_row_sums(const DeviceCsr<M>& m, const Kokkos::View<double*, RidgeDevice>& item_sums,
                          const int* skip) {
  return LongRowSums{m.long_rows, m.further_first, item_sums, m.rows, skip};
}

// item_sums(row) <- (M x)(row) for every row of `m` (items past the rows hold the further
// segments of long rows or the pieces of further bands: item_sums has m.work_items
// entries), in double. Every pass does nothing while *skip is set (skip may be null: never).
template <class M, class XView>
void launch_row_sums(const char* label, const DeviceCsr<M>& m, const XView& x,
                     const Kokkos::View<double*, RidgeDevice>& item_sums, const int* skip = nullptr) {
  launch_item_sums(label, m, x, item_sums, skip);
  if (m.split()) {
    const LongRowSums sums = long_row_sums(m, item_sums, skip);
    Kokkos::parallel_for(label, light(Kokkos::RangePolicy<RidgeExec>(0, sums.threads())), sums);
  }
  if (m.bands > 1)
    Kokkos::parallel_for(label, light(Kokkos::RangePolicy<RidgeExec>(0, m.rows)),
                         BandSums{item_sums, m.rows, m.bands, skip});
}

// The finishing pass alone (FinishRows) over `rows` rows whose sums are ready in `sums`
// (with `bands`, each row's pieces at b * rows + row; with long_sums' threads > 0, long
// rows whose segments are still to add, marked in long_row_bits): finish's returns summed
// into the device scalar `result`, then `after(lane, sum)` in the warp that ends last.
// Nothing is done while *skip is set (skip may be null: never). `scratch` must have been
// made for at least this many rows (RowProductScratch).
template <class Finish, class Result, class After = NothingAfter>
void launch_finish_rows(const char* label, const Kokkos::View<double*, RidgeDevice>& sums, int rows, int bands,
                        const LongRowSums& long_sums, const Kokkos::View<std::uint32_t*, RidgeDevice>& long_row_bits,
                        const Finish& finish, const RowProductScratch& scratch, const Result& result,
                        const int* skip = nullptr, const After& after = After{}) {
  const FinishShape shape = FinishShape::of(rows, long_sums.long_rows.extent(0));
  Kokkos::parallel_for(label, light(Kokkos::RangePolicy<RidgeExec>(0, shape.threads)),
                       FinishRows<Finish, kFinishRows, Result, After>{
                           sums, finish, rows, bands, shape.stride, shape.row_threads, long_sums, long_row_bits,
                           shape.long_warps, shape.threads, scratch.finish_sum, result, after, skip});
}

// y(row) <- finish(row, (M x)(row)) for every row of `m`, summing finish's returns into
// the device scalar `result` (no pass waits), then `after(lane, sum)` in the warp that
// ends last (FinishRows): two passes, the work items' sums and FinishRows, which adds long
// rows' segments and bands' pieces. Every pass does nothing while *skip is set (skip may
// be null: never).
template <class M, class XView, class Finish, class Result, class After = NothingAfter>
void launch_row_products(const char* label, const DeviceCsr<M>& m, const XView& x,
                         const Finish& finish, const RowProductScratch& scratch,
                         const Result& result, const int* skip = nullptr, const After& after = After{}) {
  launch_item_sums(label, m, x, scratch.item_sums, skip);
  launch_finish_rows(label, scratch.item_sums, m.rows, m.bands, long_row_sums(m, scratch.item_sums, skip),
                     m.long_row_bits, finish, scratch, result, skip, after);  // no long rows unless split
}

// The same, waiting for the sum of finish's returns on the host.
template <class M, class XView, class Finish>
double row_products(const char* label, const DeviceCsr<M>& m, const XView& x, const Finish& finish,
                    const RowProductScratch& scratch, const int* skip = nullptr) {
  launch_row_products(label, m, x, finish, scratch, scratch.result, skip);
  double out = 0;
  Kokkos::deep_copy(out, scratch.result);
  return out;
}

}  // namespace trident::ridge
