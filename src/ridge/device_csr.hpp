#pragma once
// A CSR matrix on the device for the fused LSMR engine, laid out for reading at full
// bandwidth: an LSMR iteration is bound by reading A and A^T.
//  - Column indices are 16 bits when the matrix has at most 65536 columns, which cuts a
//    float32 nonzero from 8 to 6 bytes.
//  - Each row is padded with zeros to a multiple of a 16-byte pack of values (4 floats or
//    2 doubles), so that each lane reads a pack of values and one of indices with one wide
//    load each. Padding costs at most pack - 1 entries per row (0.1% on the tutorial's
//    matrix); on the tutorial's sweep packs took the H200 from 0.146 to 0.140 s.
//  - Values and indices are read with streaming loads on CUDA, so that they do not evict
//    the gathered vector x from L1 (0.172 to 0.154 s on the same sweep).
// Row products of float32 matrices and vectors sum each lane's entries in float and the
// lanes in double; any double operand makes the whole sum double.
// Measured on one H200 (tutorial matrix, 135 MB per product, 33 microseconds at the
// measured bandwidth): one team per row took 250 microseconds per product, a warp per row
// with Kokkos' team reduction 60 to 65, the two flat passes below 45.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "ridge/csr.hpp"

namespace trident::ridge {

using RidgeExec = Kokkos::DefaultExecutionSpace;
using RidgeDevice = Kokkos::Device<RidgeExec, RidgeExec::memory_space>;

// N consecutive entries, aligned so that one load reads them all.
template <class T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

// A pack read with a streaming (evict-first) load on CUDA devices; a plain load elsewhere.
template <class T, int N>
KOKKOS_FORCEINLINE_FUNCTION Pack<T, N> stream_load(const Pack<T, N>* p) {
#if defined(__CUDA_ARCH__)
  Pack<T, N> out;
  if constexpr (sizeof(Pack<T, N>) == 16) {
    const int4 raw = __ldcs(reinterpret_cast<const int4*>(p));
    memcpy(&out, &raw, 16);
  } else if constexpr (sizeof(Pack<T, N>) == 8) {
    const int2 raw = __ldcs(reinterpret_cast<const int2*>(p));
    memcpy(&out, &raw, 8);
  } else {
    const int raw = __ldcs(reinterpret_cast<const int*>(p));
    memcpy(&out, &raw, 4);
  }
  return out;
#else
  return *p;
#endif
}

template <class M>
struct DeviceCsr {
  static constexpr std::int64_t kNarrowLimit = 65536;  // columns a 16-bit index can name
  static constexpr int kPack = 16 / static_cast<int>(sizeof(M));  // values per 16-byte load

  int rows = 0, columns = 0;
  std::int64_t stored = 0;  // entries including the padding
  Kokkos::View<int*, RidgeDevice> row_ptr;           // padded offsets, multiples of kPack
  Kokkos::View<std::uint16_t*, RidgeDevice> narrow;  // column indices, when columns <= 65536
  Kokkos::View<int*, RidgeDevice> wide;              // column indices otherwise
  Kokkos::View<M*, RidgeDevice> values;

  bool narrow_indices() const { return columns <= kNarrowLimit; }
  int index_bytes() const { return narrow_indices() ? 2 : 4; }
  // Bytes one product reads from the matrix: values, column indices (padding included)
  // and row offsets.
  std::int64_t product_bytes() const {
    return stored * static_cast<std::int64_t>(sizeof(M) + index_bytes()) +
           (static_cast<std::int64_t>(rows) + 1) * static_cast<std::int64_t>(sizeof(int));
  }

  DeviceCsr() = default;
  DeviceCsr(const HostCsr& h, const std::string& label) : rows(h.rows), columns(h.columns) {
    auto padded = [](int n) { return (n + kPack - 1) / kPack * kPack; };
    std::vector<int> offsets(static_cast<std::size_t>(rows) + 1, 0);
    for (int i = 0; i < rows; ++i)
      offsets[i + 1] = offsets[i] + padded(h.row_ptr[i + 1] - h.row_ptr[i]);
    stored = offsets.back();
    row_ptr = Kokkos::View<int*, RidgeDevice>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::row_ptr"), offsets.size());
    values = Kokkos::View<M*, RidgeDevice>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::values"), stored);
    auto rp = Kokkos::create_mirror_view(row_ptr);
    for (std::size_t i = 0; i < offsets.size(); ++i) rp(i) = offsets[i];
    Kokkos::deep_copy(row_ptr, rp);
    // Padding: value 0 at the row's last column, so that it adds 0 * x(c) with an x(c)
    // the row reads anyway (never a NaN from 0 * inf that the row would not have had).
    auto fill = [&](auto& indices) {
      auto c = Kokkos::create_mirror_view(indices);
      auto v = Kokkos::create_mirror_view(values);
      for (int i = 0; i < rows; ++i) {
        int out = offsets[i];
        for (int k = h.row_ptr[i]; k < h.row_ptr[i + 1]; ++k, ++out) {
          c(out) = static_cast<typename std::decay_t<decltype(c)>::value_type>(h.col_ind[k]);
          v(out) = static_cast<M>(h.values[k]);
        }
        for (; out < offsets[i + 1]; ++out) {
          c(out) = c(out - 1);
          v(out) = M(0);
        }
      }
      Kokkos::deep_copy(indices, c);
      Kokkos::deep_copy(values, v);
    };
    if (narrow_indices()) {
      narrow = Kokkos::View<std::uint16_t*, RidgeDevice>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::col_ind16"), stored);
      fill(narrow);
    } else {
      wide = Kokkos::View<int*, RidgeDevice>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::col_ind"), stored);
      fill(wide);
    }
  }
};

// Lanes that share one row of a product: a warp's worth on GPUs, one on host back ends.
inline int row_lanes() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, RidgeExec::memory_space>::accessible ? 1 : 32;
}

// First pass of a row product: thread t sums lane t % lanes of row t / lanes into
// lane_sums(t). A flat range of threads, not a team per row: Kokkos' team reductions cost
// more than the product itself here (65 against 45 microseconds per product of the
// tutorial's matrix on an H200, both passes included).
template <class M, class I, class XView>
struct LaneProducts {
  static constexpr int kPack = DeviceCsr<M>::kPack;
  using X = typename XView::non_const_value_type;
  // Each lane's partial sum: float when matrix and vector are, double otherwise.
  using LaneSum = std::conditional_t<std::is_same_v<M, float> && std::is_same_v<X, float>, float, double>;

  Kokkos::View<const int*, RidgeDevice> row_ptr;
  Kokkos::View<const I*, RidgeDevice> col;
  Kokkos::View<const M*, RidgeDevice> val;
  XView x;  // a vector, or a column of a LayoutLeft block
  Kokkos::View<double*, RidgeDevice> lane_sums;
  int lanes;

  // Packs lane, lane + lanes, ... of the row: two packs loaded before their sums so that
  // each lane has two wide reads in flight.
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t t) const {  // rows x lanes may pass 2^31
    const int row = static_cast<int>(t / lanes);
    const int begin = row_ptr(row);
    const int end = (row_ptr(row + 1) - begin) / kPack;
    const auto* vp = reinterpret_cast<const Pack<M, kPack>*>(val.data() + begin);
    const auto* cp = reinterpret_cast<const Pack<I, kPack>*>(col.data() + begin);
    LaneSum s0 = 0, s1 = 0;
    int p = static_cast<int>(t % lanes);
    for (; p + lanes < end; p += 2 * lanes) {
      const Pack<M, kPack> v0 = stream_load(vp + p), v1 = stream_load(vp + p + lanes);
      const Pack<I, kPack> c0 = stream_load(cp + p), c1 = stream_load(cp + p + lanes);
      for (int k = 0; k < kPack; ++k) {
        s0 += static_cast<LaneSum>(v0.v[k]) * static_cast<LaneSum>(x(c0.v[k]));
        s1 += static_cast<LaneSum>(v1.v[k]) * static_cast<LaneSum>(x(c1.v[k]));
      }
    }
    if (p < end) {
      const Pack<M, kPack> v0 = stream_load(vp + p);
      const Pack<I, kPack> c0 = stream_load(cp + p);
      for (int k = 0; k < kPack; ++k)
        s0 += static_cast<LaneSum>(v0.v[k]) * static_cast<LaneSum>(x(c0.v[k]));
    }
    lane_sums(t) = static_cast<double>(s0) + static_cast<double>(s1);
  }
};

// Second pass: each row's lanes summed in order (so the result does not depend on how
// many rows or λ a launch holds), handed to finish, whose returns are summed. Finish is a
// functor `double operator()(int row, double product) const` that stores the row's result
// and gives its contribution to a squared norm.
template <class Finish>
struct FinishRows {
  Kokkos::View<const double*, RidgeDevice> lane_sums;
  Finish finish;
  int lanes;
  KOKKOS_INLINE_FUNCTION void operator()(const int row, double& sum) const {
    double product = 0;
    for (int l = 0; l < lanes; ++l) product += lane_sums(std::int64_t(row) * lanes + l);
    sum += finish(row, product);
  }
};

// y(row) <- finish(row, (M x)(row)) for every row of `m`, reducing finish's returns into
// `result`: a device scalar View (neither pass waits) or a host double. `lane_sums` holds
// rows x row_lanes() doubles.
template <class M, class XView, class Finish, class Result>
void launch_row_products(const char* label, const DeviceCsr<M>& m, const XView& x,
                         const Finish& finish, const Kokkos::View<double*, RidgeDevice>& lane_sums,
                         Result& result) {
  const int lanes = row_lanes();
  const Kokkos::RangePolicy<RidgeExec, Kokkos::IndexType<std::int64_t>> threads(
      0, static_cast<std::int64_t>(m.rows) * lanes);
  if (m.narrow_indices())
    Kokkos::parallel_for(label, threads,
                         LaneProducts<M, std::uint16_t, XView>{m.row_ptr, m.narrow, m.values, x, lane_sums, lanes});
  else
    Kokkos::parallel_for(label, threads,
                         LaneProducts<M, int, XView>{m.row_ptr, m.wide, m.values, x, lane_sums, lanes});
  Kokkos::parallel_reduce(label, Kokkos::RangePolicy<RidgeExec>(0, m.rows),
                          FinishRows<Finish>{lane_sums, finish, lanes}, result);
}

}  // namespace trident::ridge
