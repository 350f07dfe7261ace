#pragma once
// A CSR matrix on the device for the fused LSMR engine, with the narrowest column index
// that fits (16 bits when the matrix has at most 65536 columns): an LSMR iteration is
// bound by reading A and A^T, and 2-byte indices cut that from 8 to 6 bytes per nonzero
// in float32. Row products sum in double whatever the storage precision.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "ridge/csr.hpp"

namespace trident::ridge {

using RidgeExec = Kokkos::DefaultExecutionSpace;
using RidgeDevice = Kokkos::Device<RidgeExec, RidgeExec::memory_space>;

template <class M>
struct DeviceCsr {
  static constexpr std::int64_t kNarrowLimit = 65536;  // columns a 16-bit index can name

  int rows = 0, columns = 0;
  std::int64_t nonzeros = 0;
  Kokkos::View<int*, RidgeDevice> row_ptr;
  Kokkos::View<std::uint16_t*, RidgeDevice> narrow;  // column indices, when columns <= 65536
  Kokkos::View<int*, RidgeDevice> wide;              // column indices otherwise
  Kokkos::View<M*, RidgeDevice> values;

  bool narrow_indices() const { return columns <= kNarrowLimit; }
  int index_bytes() const { return narrow_indices() ? 2 : 4; }
  // Bytes one product reads from the matrix: values, column indices and row offsets.
  std::int64_t product_bytes() const {
    return nonzeros * static_cast<std::int64_t>(sizeof(M) + index_bytes()) +
           (static_cast<std::int64_t>(rows) + 1) * static_cast<std::int64_t>(sizeof(int));
  }

  DeviceCsr() = default;
  DeviceCsr(const HostCsr& h, const std::string& label)
      : rows(h.rows), columns(h.columns), nonzeros(h.nonzeros()) {
    const auto nnz = static_cast<std::size_t>(nonzeros);
    row_ptr = Kokkos::View<int*, RidgeDevice>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::row_ptr"), h.row_ptr.size());
    values = Kokkos::View<M*, RidgeDevice>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::values"), nnz);
    auto rp = Kokkos::create_mirror_view(row_ptr);
    for (std::size_t i = 0; i < h.row_ptr.size(); ++i) rp(i) = h.row_ptr[i];
    Kokkos::deep_copy(row_ptr, rp);
    auto vals = Kokkos::create_mirror_view(values);
    for (std::size_t k = 0; k < nnz; ++k) vals(k) = static_cast<M>(h.values[k]);
    Kokkos::deep_copy(values, vals);
    if (narrow_indices()) {
      narrow = Kokkos::View<std::uint16_t*, RidgeDevice>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::col_ind16"), nnz);
      auto c = Kokkos::create_mirror_view(narrow);
      for (std::size_t k = 0; k < nnz; ++k) c(k) = static_cast<std::uint16_t>(h.col_ind[k]);
      Kokkos::deep_copy(narrow, c);
    } else {
      wide = Kokkos::View<int*, RidgeDevice>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::col_ind"), nnz);
      auto c = Kokkos::create_mirror_view(wide);
      for (std::size_t k = 0; k < nnz; ++k) c(k) = h.col_ind[k];
      Kokkos::deep_copy(wide, c);
    }
  }
};

// How the threads of a launch split the rows: on GPUs a team of `threads` x `lanes` (a
// warp each) takes one long row (the tutorial's rows hold 1500 nonzeros: a whole team
// keeps more loads in flight and leaves no long rows for the end) or `threads` short
// rows; on host back ends one thread per row.
struct RowSplit {
  int threads = 1, lanes = 1;
  bool team_per_row = true;
  int league(int rows) const { return team_per_row ? rows : (rows + threads - 1) / threads; }
};

inline RowSplit row_split(std::int64_t rows, std::int64_t nonzeros) {
  RowSplit s;
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, RidgeExec::memory_space>::accessible) return s;
  s.threads = 4;
  s.lanes = 32;
  s.team_per_row = rows == 0 || nonzeros / rows >= 2 * s.threads * s.lanes;
  return s;
}

// y(row) <- finish(row, (M x)(row)) for every row, summing what finish returns. Finish is
// a functor `double operator()(int row, double product) const` that stores the row's result
// and gives its contribution to the launch's sum (a squared norm).
template <class M, class I, class XView, class Finish>
struct RowProducts {
  using Member = typename Kokkos::TeamPolicy<RidgeExec>::member_type;
  Kokkos::View<const int*, RidgeDevice> row_ptr;
  Kokkos::View<const I*, RidgeDevice> col;
  Kokkos::View<const M*, RidgeDevice> val;
  XView x;  // a vector, or a column of a LayoutLeft block
  Finish finish;
  RowSplit split;
  int rows;

  // Entries first, first + stride, ... below end: four loads issued before their sums so
  // that each lane has several reads in flight.
  KOKKOS_INLINE_FUNCTION double strided(int first, int end, int stride) const {
    double s0 = 0, s1 = 0;
    int e = first;
    for (; e + 3 * stride < end; e += 4 * stride) {
      const I c0 = col(e), c1 = col(e + stride), c2 = col(e + 2 * stride), c3 = col(e + 3 * stride);
      const M v0 = val(e), v1 = val(e + stride), v2 = val(e + 2 * stride), v3 = val(e + 3 * stride);
      s0 += static_cast<double>(v0) * static_cast<double>(x(c0));
      s1 += static_cast<double>(v1) * static_cast<double>(x(c1));
      s0 += static_cast<double>(v2) * static_cast<double>(x(c2));
      s1 += static_cast<double>(v3) * static_cast<double>(x(c3));
    }
    for (; e < end; e += stride) s0 += static_cast<double>(val(e)) * static_cast<double>(x(col(e)));
    return s0 + s1;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team, double& sum) const {
    const int lanes = split.lanes;
    if (split.team_per_row) {
      const int row = team.league_rank();
      const int begin = row_ptr(row), end = row_ptr(row + 1);
      const int stride = team.team_size() * lanes;
      double product = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, team.team_size()),
          [&](const int t, double& s) {
            double part = 0;
            Kokkos::parallel_reduce(
                Kokkos::ThreadVectorRange(team, lanes),
                [&](const int lane, double& p) { p += strided(begin + t * lanes + lane, end, stride); },
                part);
            s += part;
          },
          product);
      Kokkos::single(Kokkos::PerTeam(team), [&]() { sum += finish(row, product); });
    } else {
      const int row = team.league_rank() * team.team_size() + team.team_rank();
      if (row >= rows) return;
      const int begin = row_ptr(row), end = row_ptr(row + 1);
      double product = 0;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, lanes),
          [&](const int lane, double& p) { p += strided(begin + lane, end, lanes); }, product);
      Kokkos::single(Kokkos::PerThread(team), [&]() { sum += finish(row, product); });
    }
  }
};

// Launches RowProducts over `m` with x, reducing into `result` (a device scalar View, so
// the launch does not wait) or into a host double.
template <class M, class XView, class Finish, class Result>
void launch_row_products(const char* label, const DeviceCsr<M>& m, const XView& x,
                         const Finish& finish, Result& result) {
  const RowSplit split = row_split(m.rows, m.nonzeros);
  const Kokkos::TeamPolicy<RidgeExec> policy(split.league(m.rows), split.threads, split.lanes);
  if (m.narrow_indices()) {
    RowProducts<M, std::uint16_t, XView, Finish> f{m.row_ptr, m.narrow, m.values, x, finish, split, m.rows};
    Kokkos::parallel_reduce(label, policy, f, result);
  } else {
    RowProducts<M, int, XView, Finish> f{m.row_ptr, m.wide, m.values, x, finish, split, m.rows};
    Kokkos::parallel_reduce(label, policy, f, result);
  }
}

}  // namespace trident::ridge
