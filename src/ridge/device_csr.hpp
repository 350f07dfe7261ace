#pragma once
// A CSR matrix on the device for the fused LSMR engine, laid out for reading at full
// bandwidth: an LSMR iteration is bound by reading A and A^T.
//  - Column indices are 16 bits when the matrix has at most 65536 columns, which cuts a
//    float32 nonzero from 8 to 6 bytes.
//  - Each row is padded with zeros to a multiple of a 16-byte pack of values (4 floats or
//    2 doubles), so that every lane of a GPU warp reads a whole pack of values and their
//    indices with one wide load each: a warp keeps four times as many bytes in flight as
//    with one value per lane, which is what a latency-bound row product needs. Padding
//    costs at most pack - 1 entries per row (0.1% on the tutorial's matrix).
//  - Values and indices are read with streaming loads on CUDA, so that they do not evict
//    the gathered vector x from L1.
// Row products of float32 matrices and vectors sum each lane's entries in float and the
// lanes in double; any double operand makes the whole sum double.
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

// y(row) <- finish(row, (M x)(row)) for every row, summing what finish returns. Finish is
// a functor `double operator()(int row, double product) const` that stores the row's result
// and gives its contribution to the launch's sum (a squared norm). On GPUs each row is
// one warp's (kRowsPerTeam rows per team); on host back ends one thread's.
template <class M, class I, class XView, class Finish>
struct RowProducts {
  static constexpr int kPack = DeviceCsr<M>::kPack;
  using Member = typename Kokkos::TeamPolicy<RidgeExec>::member_type;
  using X = typename XView::non_const_value_type;
  // Each lane's partial sum: float when matrix and vector are, double otherwise.
  using LaneSum = std::conditional_t<std::is_same_v<M, float> && std::is_same_v<X, float>, float, double>;

  Kokkos::View<const int*, RidgeDevice> row_ptr;
  Kokkos::View<const I*, RidgeDevice> col;
  Kokkos::View<const M*, RidgeDevice> val;
  XView x;  // a vector, or a column of a LayoutLeft block
  Finish finish;
  int rows;
  int lanes;

  // Packs first, first + lanes, ... below end (in packs): two packs loaded before their
  // sums so that each lane has two wide reads in flight.
  KOKKOS_INLINE_FUNCTION double lane_sum(const int begin, const int first, const int end) const {
    const auto* vp = reinterpret_cast<const Pack<M, kPack>*>(val.data() + begin);
    const auto* cp = reinterpret_cast<const Pack<I, kPack>*>(col.data() + begin);
    LaneSum s0 = 0, s1 = 0;
    int p = first;
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
    return static_cast<double>(s0) + static_cast<double>(s1);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team, double& sum) const {
    const int row = team.league_rank() * team.team_size() + team.team_rank();
    if (row >= rows) return;
    const int begin = row_ptr(row);
    const int packs = (row_ptr(row + 1) - begin) / kPack;
    double product = 0;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, lanes),
        [&](const int lane, double& p) { p += lane_sum(begin, lane, packs); }, product);
    Kokkos::single(Kokkos::PerThread(team), [&]() { sum += finish(row, product); });
  }
};

// Launches RowProducts over `m` with x, reducing into `result`: a device scalar View (the
// launch does not wait) or a host double.
template <class M, class XView, class Finish, class Result>
void launch_row_products(const char* label, const DeviceCsr<M>& m, const XView& x,
                         const Finish& finish, Result& result) {
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, RidgeExec::memory_space>::accessible;
  const int rows_per_team = host ? 1 : 8, lanes = host ? 1 : 32;
  const Kokkos::TeamPolicy<RidgeExec> policy((m.rows + rows_per_team - 1) / rows_per_team,
                                             rows_per_team, lanes);
  if (m.narrow_indices()) {
    RowProducts<M, std::uint16_t, XView, Finish> f{m.row_ptr, m.narrow, m.values, x, finish, m.rows, lanes};
    Kokkos::parallel_reduce(label, policy, f, result);
  } else {
    RowProducts<M, int, XView, Finish> f{m.row_ptr, m.wide, m.values, x, finish, m.rows, lanes};
    Kokkos::parallel_reduce(label, policy, f, result);
  }
}

}  // namespace trident::ridge
