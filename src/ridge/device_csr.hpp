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
// Rows are spread over threads by a RowSchedule (row_schedule.hpp) chosen from the row
// lengths: a row is one work item of `lanes` threads (even rows), or rows longer than a
// segment are cut into segments that are work items of their own, whose sums the
// finishing pass adds, a warp per long row (skewed rows: power-law, dense rows, dense
// columns); or, when the gathered vector outgrows the device's cache, each row is stored
// as its pieces in bands of columns and the work items run band after band (column
// bands; the finishing pass adds each row's pieces in band order).
// Measured on one H200 (tutorial matrix, 135 MB per product, 33 microseconds at the
// measured bandwidth): one team per row took 250 microseconds per product, a warp per row
// with Kokkos' team reduction 60 to 65, the two flat passes below 45 (timed over 920
// products; within the sweep, ncu at the GPU's own clocks gives 47 for the first pass and
// 8 for the second, 32 lanes per row: the first reads 135 MB and gathers 22.5 M entries of
// x). Tried and measured slower or no faster on the tutorial's sweep (branch
// experiment/ridge-product-variants): 8-bit column steps with a start per lane (16 %
// fewer bytes, 5 % slower: the products are bound by the gathers of x as much as by the
// matrix's bytes), one pass with a last-team reduction or warp shuffles (the finish and
// its norm in the product's kernel), prefetching the next packs, 8 lanes per row, and
// lane sums in double. The lanes of a row do add their sums with shuffles in the first
// pass (LaneProducts), which stores one sum a row instead of one a lane.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/huge_pages.hpp"
#include "core/page_lock.hpp"
#include "ridge/csr.hpp"
#include "ridge/execution.hpp"
#include "ridge/ordered_sum.hpp"
#include "ridge/row_schedule.hpp"

namespace trident::ridge {

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

// Threads a product should have to keep the device busy: rows too few and long for that
// are cut into segments (row_schedule.hpp). Half an H200's resident threads (132 SMs x
// 2048); the tutorial's 15000 rows x 16 lanes (240000 threads) stay whole. None on host
// back ends, whose threads are few.
inline std::int64_t fill_threads() {
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, RidgeExec::memory_space>::accessible) return 0;
  return std::int64_t(1) << 17;
}

// Bytes of the device cache that gathers of a vector hit (the L2 on CUDA devices): the
// column bands' budget (choose_column_bands). 0 on host back ends: no bands.
inline std::int64_t gather_cache_bytes() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<RidgeExec, Kokkos::Cuda>) {
    int device = 0, bytes = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device) != cudaSuccess)
      return 0;
    return bytes;
  }
#endif
  return 0;
}

// A host view to fill and copy into `v`: `v` itself where the host can reach it, else a
// new one without the zero fill (create_mirror_view's would write it all once more).
template <class V>
auto unfilled_host_copy(const V& v) {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename V::memory_space>::accessible)
    return v;
  else
    return typename V::HostMirror(Kokkos::view_alloc(Kokkos::WithoutInitializing, v.label()), v.extent(0));
}

template <class M>
struct DeviceCsr {
  static constexpr std::int64_t kNarrowLimit = 65536;  // columns a 16-bit index can name
  static constexpr int kPack = 16 / static_cast<int>(sizeof(M));  // values per 16-byte load

  int rows = 0, columns = 0;
  int lanes = 1;            // threads that share a work item in a product
  int bands = 1;            // column bands (RowSchedule): rows stored as their pieces, band by band
  int band_columns = 0;     // with bands: the columns of a band
  std::int64_t stored = 0;  // entries including the padding
  RowSchedule schedule;     // lanes, segments and the row statistics they came from
  std::int64_t work_items = 0;  // rows, and when split the further segments of long rows
  // Padded offsets, multiples of kPack, of the rows, or with bands of the rows' pieces
  // (row i's piece of band b is piece i * bands + b).
  Kokkos::View<int*, RidgeDevice> row_ptr;
  // Entry offsets where each work item starts and ends: row_ptr and row_ptr + 1 unless
  // split (RowSegments: item i < rows is row i's first segment) or banded (item
  // b * rows + i is row i's piece of band b: all of band 0 first).
  Kokkos::View<const int*, RidgeDevice> work_begin, work_end;
  Kokkos::View<int*, RidgeDevice> long_rows;      // split: rows longer than a segment
  Kokkos::View<int*, RidgeDevice> further_first;  // split: long rows + 1 (RowSegments)
  Kokkos::View<std::uint32_t*, RidgeDevice> long_row_bits;  // split: bit i % 32 of word i / 32 for long row i
  Kokkos::View<std::uint16_t*, RidgeDevice> narrow;  // column indices, when columns <= 65536
  Kokkos::View<int*, RidgeDevice> wide;              // column indices otherwise
  Kokkos::View<M*, RidgeDevice> values;

  bool narrow_indices() const { return columns <= kNarrowLimit; }
  bool split() const { return schedule.split(); }
  int index_bytes() const { return narrow_indices() ? 2 : 4; }
  // Bytes one product reads from the matrix: values, column indices (padding included)
  // and the offsets of rows, or of work items and long rows.
  std::int64_t product_bytes() const {
    const std::int64_t offsets = split()     ? 2 * work_items + 2 * static_cast<std::int64_t>(long_rows.extent(0)) + 1 +
                                                   static_cast<std::int64_t>(long_row_bits.extent(0))
                                 : bands > 1 ? 2 * work_items
                                             : work_items + 1;
    return stored * static_cast<std::int64_t>(sizeof(M) + index_bytes()) +
           offsets * static_cast<std::int64_t>(sizeof(int));
  }

  // The schedule chosen from the row lengths for at most `max_lanes` lanes (row_lanes())
  // and the back end's fill_threads(), with column bands when the vector a product gathers
  // (h.columns scalars of `vector_bytes`; 0: unknown, only bands asked for by the test hook
  // or the environment) is larger than the device's cache can hold (choose_column_bands).
  static DeviceCsr scheduled(const HostCsr& h, const std::string& label, int max_lanes,
                             std::size_t vector_bytes = 0) {
    const std::vector<std::int64_t> lengths = lengths_of(h);
    RowSchedule s = plan(lengths, h.columns, max_lanes, vector_bytes);
    const std::vector<std::int64_t> pieces = banded_lengths(s, lengths, max_lanes, [&](auto& piece) {
      for_row_ranges(h.rows, [&](const int i) {
        for (int k = h.row_ptr[i]; k < h.row_ptr[i + 1]; ++k) ++piece(i, h.col_ind[k]);
      });
    });
    DeviceCsr m(pieces, h.columns, label, s);
    m.fill_rows_of(h, pieces);
    return m;
  }

  // The transpose of `a` (columns ascending within each row, as ridge::transpose gives),
  // scheduled as above, built straight into the device layout: no transposed HostCsr in
  // double, zero-filled, first. With this and huge pages for the scattered stores (see
  // fill_entries), the set-up of the fused engine on a 2^20 x 2^17 matrix of 2^24 nonzeros
  // took 1.2-1.5 s instead of 3.6-3.8 s on the CPU build (2-core development machine).
  // The passes over A run on the host's CPUs, each a range of A's rows (count_by_rows,
  // scatter_by_rows), and the entries of a row (or piece) of A^T land in ascending rows of
  // A, as one loop would store them.
  static DeviceCsr transpose_of(const HostCsr& a, const std::string& label, int max_lanes,
                                std::size_t vector_bytes = 0) {
    const std::vector<std::int64_t> lengths = column_entries(a);
    RowSchedule s = plan(lengths, a.rows, max_lanes, vector_bytes);
    // the piece of an entry of A: its row of A^T (A's column) and its band of A^T's columns
    const auto piece_of = [&s](const int i, const int c) {
      return static_cast<std::int64_t>(c) * s.bands + i / s.band_columns;
    };
    const std::vector<std::int64_t> pieces = banded_lengths(s, lengths, max_lanes, [&](auto& piece) {
      const std::vector<std::int64_t> counts =
          count_by_rows(a, static_cast<std::int64_t>(lengths.size()) * s.bands, piece_of);
      for (std::size_t j = 0; j < counts.size(); ++j)
        piece(static_cast<std::int64_t>(j) / s.bands, static_cast<std::int64_t>(j) % s.bands * s.band_columns) += counts[j];
    });
    DeviceCsr t(pieces, a.rows, label, s);
    t.fill_entries(pieces, [&](auto& c, auto& v, const auto& rp) {
      using Index = typename std::decay_t<decltype(c)>::value_type;
      std::vector<std::int64_t> first(pieces.size());
      for (std::size_t j = 0; j < pieces.size(); ++j) first[j] = rp(j);
      const auto bucket = [&](const int i, const int column) {
        return s.bands > 1 ? piece_of(i, column) : static_cast<std::int64_t>(column);
      };
      scatter_by_rows(a, static_cast<std::int64_t>(pieces.size()), first, bucket,
                      [&](const std::int64_t slot, const int i, const int k) {
                        c(slot) = static_cast<Index>(i);
                        v(slot) = static_cast<M>(a.values[static_cast<std::size_t>(k)]);
                      });
    });
    return t;
  }

  DeviceCsr() = default;
  // `row_lanes` lanes per work item; rows longer than `segment_packs` packs cut into
  // segments (0: never).
  DeviceCsr(const HostCsr& h, const std::string& label, int row_lanes, int segment_packs = 0)
      : DeviceCsr(lengths_of(h), h.columns, label, unbanded(row_lanes, segment_packs)) {
    fill_rows_of(h, lengths_of(h));
  }

 private:
  static std::vector<std::int64_t> lengths_of(const HostCsr& h) {
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(h.rows));
    for (int i = 0; i < h.rows; ++i) lengths[i] = h.row_ptr[i + 1] - h.row_ptr[i];
    return lengths;
  }
  // Packs of each row once padded.
  static std::vector<std::int64_t> packs_of(const std::vector<std::int64_t>& lengths) {
    std::vector<std::int64_t> packs(lengths.size());
    for (std::size_t i = 0; i < lengths.size(); ++i) packs[i] = (lengths[i] + kPack - 1) / kPack;
    return packs;
  }

  static RowSchedule unbanded(int row_lanes, int segment_packs) {
    RowSchedule s;
    s.lanes = row_lanes;
    s.segment_packs = segment_packs;
    return s;
  }

  // The schedule of rows of `lengths` entries that gather from a vector of `x_length`
  // scalars of `vector_bytes`: segments, column bands, or neither (whole_rows: segments
  // or neither). With bands the lanes fit the mean piece rather than the mean row; the
  // callers drop the bands when the rows do not spread over them (rows_spread_over_bands).
  static RowSchedule whole_rows(const std::vector<std::int64_t>& lengths, int max_lanes) {
    return choose_row_schedule(packs_of(lengths), max_lanes, fill_threads(), kPack);
  }

  static RowSchedule plan(const std::vector<std::int64_t>& lengths, std::int64_t x_length, int max_lanes,
                          std::size_t vector_bytes) {
    RowSchedule s = whole_rows(lengths, max_lanes);
    if (s.split()) return s;
    double total = 0;
    for (const std::int64_t l : lengths) total += static_cast<double>(l);
    const double mean = lengths.empty() ? 0.0 : total / static_cast<double>(lengths.size());
    const int bands = choose_column_bands(x_length, vector_bytes, mean, gather_cache_bytes());
    if (bands < 2) return s;
    s.bands = bands;
    s.band_columns = (x_length + bands - 1) / bands;
    std::vector<std::int64_t> piece_packs(lengths.size());
    for (std::size_t i = 0; i < lengths.size(); ++i)
      piece_packs[i] = static_cast<std::int64_t>(static_cast<double>(lengths[i]) / bands / kPack + 1);
    s.lanes = choose_row_schedule(piece_packs, max_lanes, 0, kPack).lanes;
    return s;
  }

  // The entry counts the layout stores: `lengths` (the rows') when `s` has no bands, else
  // each row's pieces, row by row, counted by count(piece), which adds the entries through
  // piece(row, column) (a reference to that row's count in the column's band). Rows that do
  // not spread over the bands (rows_spread_over_bands) drop them: `s` becomes whole_rows'.
  template <class Count>
  static std::vector<std::int64_t> banded_lengths(RowSchedule& s, const std::vector<std::int64_t>& lengths,
                                                  int max_lanes, Count count) {
    if (s.bands < 2) return lengths;
    std::vector<std::int64_t> pieces(lengths.size() * static_cast<std::size_t>(s.bands), 0);
    const std::int64_t bands = s.bands, width = s.band_columns;
    auto piece = [&](std::int64_t row, std::int64_t column) -> std::int64_t& {
      return pieces[static_cast<std::size_t>(row * bands + column / width)];
    };
    count(piece);
    if (rows_spread_over_bands(pieces, s.bands)) return pieces;
    s = whole_rows(lengths, max_lanes);
    return lengths;
  }

  // The layout for rows of `lengths` entries (with bands: the rows' pieces, row by row):
  // padded offsets, the schedule's work items, and the arrays of entries allocated (filled
  // by fill_entries). `plan` gives the lanes, the segment length and the bands.
  DeviceCsr(const std::vector<std::int64_t>& lengths, int column_count, const std::string& label,
            const RowSchedule& plan)
      : rows(static_cast<int>(lengths.size() / static_cast<std::size_t>(plan.bands))),
        columns(column_count),
        lanes(plan.lanes),
        bands(plan.bands),
        band_columns(static_cast<int>(plan.band_columns)) {
    const int segment_packs = bands > 1 ? 0 : plan.segment_packs;
    if (lanes < 1 || (kLanesAreWarpThreads && (lanes > 32 || (lanes & (lanes - 1)) != 0)))
      throw std::invalid_argument(label + ": " + std::to_string(lanes) +
                                  " lanes a row; expected 1 or more (on CUDA a power of two up to 32)");
    const std::vector<std::int64_t> packs = packs_of(lengths);
    std::vector<std::int64_t> offsets(lengths.size() + 1, 0);
    for (std::size_t i = 0; i < lengths.size(); ++i) offsets[i + 1] = offsets[i] + packs[i] * kPack;
    if (offsets.back() > std::numeric_limits<int>::max())
      throw std::length_error(label + ": more than 2^31 entries once padded");
    stored = offsets.back();
    schedule.lanes = lanes;
    schedule.rows = rows;
    for (const std::int64_t p : packs) schedule.longest_packs = std::max(schedule.longest_packs, p);
    schedule.mean_packs = lengths.empty() ? 0.0 : static_cast<double>(stored / kPack) / static_cast<double>(lengths.size());
    schedule.bands = bands;
    schedule.band_columns = band_columns;
    if (segment_packs > 0 && schedule.longest_packs > segment_packs) schedule.segment_packs = segment_packs;
    row_ptr = Kokkos::View<int*, RidgeDevice>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::row_ptr"), offsets.size());
    values = Kokkos::View<M*, RidgeDevice>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::values"), stored);
    auto rp = Kokkos::create_mirror_view(row_ptr);
    for (std::size_t i = 0; i < offsets.size(); ++i) rp(i) = static_cast<int>(offsets[i]);
    Kokkos::deep_copy(row_ptr, rp);
    if (split()) {
      const RowSegments cut = cut_segments(packs, schedule.segment_packs);
      work_items = static_cast<std::int64_t>(cut.begin.size());  // at most rows + packs: fits int
      const auto device_ints = [&](const std::string& name, const std::vector<std::int64_t>& values, int scale) {
        Kokkos::View<int*, RidgeDevice> v(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + name),
                                          values.size());
        auto h = Kokkos::create_mirror_view(v);
        for (std::size_t k = 0; k < values.size(); ++k) h(k) = static_cast<int>(values[k] * scale);
        Kokkos::deep_copy(v, h);
        return v;
      };
      work_begin = device_ints("::item_begin", cut.begin, kPack);
      work_end = device_ints("::item_end", cut.end, kPack);
      long_rows = device_ints("::long_rows", cut.long_rows, 1);
      further_first = device_ints("::further_first", cut.further_first, 1);
      long_row_bits = Kokkos::View<std::uint32_t*, RidgeDevice>(label + "::long_row_bits", (rows + 31) / 32);
      auto bits = Kokkos::create_mirror_view(long_row_bits);
      for (const std::int64_t r : cut.long_rows) bits(r / 32) |= std::uint32_t(1) << (r % 32);
      Kokkos::deep_copy(long_row_bits, bits);
    } else if (bands > 1) {
      // band-major: item b * rows + i is piece i * bands + b
      work_items = static_cast<std::int64_t>(lengths.size());
      Kokkos::View<int*, RidgeDevice> begin(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::item_begin"),
                                            work_items);
      Kokkos::View<int*, RidgeDevice> end(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::item_end"),
                                          work_items);
      auto hb = Kokkos::create_mirror_view(begin);
      auto he = Kokkos::create_mirror_view(end);
      for (std::int64_t b = 0; b < bands; ++b)
        for (std::int64_t i = 0; i < rows; ++i) {
          hb(b * rows + i) = static_cast<int>(offsets[i * bands + b]);
          he(b * rows + i) = static_cast<int>(offsets[i * bands + b + 1]);
        }
      Kokkos::deep_copy(begin, hb);
      Kokkos::deep_copy(end, he);
      work_begin = begin;
      work_end = end;
    } else {
      work_items = rows;
      work_begin = Kokkos::subview(row_ptr, std::make_pair(0, rows));
      work_end = Kokkos::subview(row_ptr, std::make_pair(1, rows + 1));
    }
    schedule.segments = work_items;
    if (narrow_indices())
      narrow = Kokkos::View<std::uint16_t*, RidgeDevice>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::col_ind16"), stored);
    else
      wide = Kokkos::View<int*, RidgeDevice>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::col_ind"),
                                             stored);
  }

  // Stores the entries: place(c, v, rp) writes row i's entries, columns ascending, from
  // rp(i) on into the column indices c and values v (host copies, or the arrays themselves
  // on host back ends); then each row of `lengths[i]` entries is padded and all is copied
  // to the device. Padding: value 0 at the row's last column, so that it adds 0 * x(c) with
  // an x(c) the row reads anyway (never a NaN from 0 * inf that the row would not have had).
  template <class Place>
  void fill_entries(const std::vector<std::int64_t>& lengths, Place place) {
    const auto rp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_ptr);
    auto fill = [&](auto& indices) {
      auto c = unfilled_host_copy(indices);
      auto v = unfilled_host_copy(values);
      advise_huge_pages(c.data(), c.span() * sizeof(*c.data()));  // the transpose's scattered stores
      advise_huge_pages(v.data(), v.span() * sizeof(*v.data()));
      place(c, v, rp);
      for_row_ranges(static_cast<std::int64_t>(lengths.size()), [&](const std::int64_t i) {
        for (std::int64_t out = rp(i) + lengths[i]; out < rp(i + 1); ++out) {
          c(out) = c(out - 1);
          v(out) = M(0);
        }
      });
      if (c.data() != indices.data()) {  // a host copy: uploaded from page-locked memory
        // (the 6.4 GB of A and A^T of 4e8 nonzeros took 0.85 s from pageable memory)
        const core::PageLock lock_indices(c.data(), c.span() * sizeof(*c.data()));
        const core::PageLock lock_values(v.data(), v.span() * sizeof(*v.data()));
        Kokkos::deep_copy(indices, c);
        Kokkos::deep_copy(values, v);
      }
    };
    if (narrow_indices()) fill(narrow);
    else fill(wide);
  }

  // The entries of h's rows, in their order (with bands, each into its piece: the columns
  // ascend, so a row's pieces come one after the other). `lengths`: the rows' or pieces'.
  void fill_rows_of(const HostCsr& h, const std::vector<std::int64_t>& lengths) {
    fill_entries(lengths, [&h, this](auto& c, auto& v, const auto& rp) {
      using Index = typename std::decay_t<decltype(c)>::value_type;
      for_row_ranges(h.rows, [&](const int i) {
        int band = -1;
        std::int64_t out = 0;
        for (int k = h.row_ptr[i]; k < h.row_ptr[i + 1]; ++k, ++out) {
          const int b = bands > 1 ? h.col_ind[k] / band_columns : 0;
          if (b != band) {
            band = b;
            out = rp(static_cast<std::int64_t>(i) * bands + b);
          }
          c(out) = static_cast<Index>(h.col_ind[k]);
          v(out) = static_cast<M>(h.values[k]);
        }
      });
    });
  }

  // row(i) for every row i, on the host's CPUs in ranges of rows (what a row writes is its
  // own: its counts, its slots).
  template <class Row>
  static void for_row_ranges(const std::int64_t rows, Row row) {
    core::host_parallel_ranges(rows, std::int64_t(1) << 12, [&](const std::int64_t first, const std::int64_t last) {
      for (std::int64_t i = first; i < last; ++i) row(static_cast<int>(i));
    });
  }
};

// The most lanes that share one row of a product with a vector of `vector_bytes` scalars
// (rows shorter on average get fewer: row_schedule.hpp): one on host back ends; on GPUs
// half a warp for float vectors and a warp for double ones, as measured on the tutorial's
// sweep on an H200 (float32: 0.098 s with 16 lanes, 0.105 s with 32; mixed, with double
// vectors: 0.131 s with 16, 0.119 s with 32).
inline int row_lanes(std::size_t vector_bytes) {
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, RidgeExec::memory_space>::accessible) return 1;
  return vector_bytes == 4 ? 16 : 32;
}

// Each lane's partial sum as it is summed: float when matrix and vector are, double
// otherwise. The lanes of a work item are added in double.
template <class M, class X>
using LaneSum = std::conditional_t<std::is_same_v<M, float> && std::is_same_v<X, float>, float, double>;

// First pass of a row product: each work item's (a row, or a segment of one) sum in double
// into item_sums. Lane l of an item sums its packs l, l + lanes, ...; on CUDA the lanes are
// consecutive threads of a warp that add their sums in double by a butterfly of shuffles
// (a fixed order: the sum does not depend on how many rows or λ a launch holds). Before,
// each lane stored its sum and the second pass added them: on a 2^27-nonzero matrix of
// 8 Mi rows and 4 lanes that was 256 MB written and read again an iteration, 1.04-1.19
// times cuSPARSE's time. A flat range of threads, not a team per row: Kokkos' team
// reductions cost more than the product itself here. Nothing is done while *skip is set
// (skip may be null).
template <class M, class I, class XView>
struct LaneProducts {
  static constexpr int kPack = DeviceCsr<M>::kPack;
  using Sum = LaneSum<M, typename XView::non_const_value_type>;

  Kokkos::View<const int*, RidgeDevice> work_begin, work_end;  // entry offsets of the work items
  Kokkos::View<const I*, RidgeDevice> col;
  Kokkos::View<const M*, RidgeDevice> val;
  XView x;  // a vector, or a column of a LayoutLeft block
  Kokkos::View<double*, RidgeDevice> item_sums;
  int lanes;
  const int* skip;

  // Lane `lane` of work item `item`: two packs loaded before their sums, so that each lane
  // has two wide reads in flight.
  KOKKOS_INLINE_FUNCTION Sum lane_sum(const int item, int p) const {
    const int begin = work_begin(item);
    const int packs = (work_end(item) - begin) / kPack;
    const auto* vp = reinterpret_cast<const Pack<M, kPack>*>(val.data() + begin);
    const auto* cp = reinterpret_cast<const Pack<I, kPack>*>(col.data() + begin);
    Sum s0 = 0, s1 = 0;
    for (; p + lanes < packs; p += 2 * lanes) {
      const Pack<M, kPack> v0 = stream_load(vp + p), v1 = stream_load(vp + p + lanes);
      const Pack<I, kPack> c0 = stream_load(cp + p), c1 = stream_load(cp + p + lanes);
      for (int k = 0; k < kPack; ++k) {
        s0 += static_cast<Sum>(v0.v[k]) * static_cast<Sum>(x(c0.v[k]));
        s1 += static_cast<Sum>(v1.v[k]) * static_cast<Sum>(x(c1.v[k]));
      }
    }
    if (p < packs) {
      const Pack<M, kPack> v0 = stream_load(vp + p);
      const Pack<I, kPack> c0 = stream_load(cp + p);
      for (int k = 0; k < kPack; ++k) s0 += static_cast<Sum>(v0.v[k]) * static_cast<Sum>(x(c0.v[k]));
    }
    return s0 + s1;
  }

  // t: a thread (lanes a work item) on CUDA, a work item elsewhere (items x lanes may pass 2^31).
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t t) const {
    if (skip && *skip) return;
#if defined(__CUDA_ARCH__)
    // lanes is a power of two up to 32 (row_lanes) and Kokkos' range threads are laid
    // out along warps, so an item's lanes are one aligned group of a warp. Only item and
    // lane live across the loop: 32 registers, full occupancy (40 with the thread index,
    // the group and the lane's place in the warp held from the start: the tutorial's
    // float32 sweep 0.1185 s against 0.098).
    const int shift = __ffs(lanes) - 1;
    const int item = static_cast<int>(t >> shift), lane = static_cast<int>(t) & (lanes - 1);
    double s = static_cast<double>(lane_sum(item, lane));
    unsigned lane_id;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane_id));
    if (((static_cast<unsigned>(lane) - lane_id) & static_cast<unsigned>(lanes - 1)) != 0) __trap();
    const unsigned group = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1u) << (lane_id & ~unsigned(lanes - 1));
    for (int offset = lanes / 2; offset > 0; offset /= 2) s += __shfl_xor_sync(group, s, offset, lanes);
    if (lane == 0) item_sums(item) = s;
#else
    const int item = static_cast<int>(t);
    double s = 0;
    for (int l = 0; l < lanes; ++l) s += static_cast<double>(lane_sum(item, l));
    item_sums(item) = s;
#endif
  }
};

// Each long row's segment sums (its first at item row, the further ones past the rows)
// added, the long rows taken in groups of a warp's lanes (32 on CUDA, 1 on host back ends):
// a lane adds a row of at most kLaneSegments segments alone, in segment order; a row of
// more takes the whole warp (row_total: lane l adds segments l, l + 32, ..., then a
// butterfly of shuffles). Either way a row's order depends only on its length: results
// stay fixed. FinishRows does this for the products it finishes; as a pass of its own
// (operator()) it stores the sums into item_sums(row) for launch_row_sums. One thread
// adding a dense row's 2048 segments in turn was most of the 215 µs that finishing
// power-law rows took an iteration at 2^27 nonzeros (one H200); a Kokkos team of 32 per
// row took 11.2 µs for 3152 long rows at 2^24 (float64 power-law), a warp of range
// threads 5.0. A warp for each of the 8854 long rows at 2^27 (most of them of a few
// segments) left most of its lanes idle: a lane a row took A's finishing pass there from
// 79.8 to 74.3 µs (ncu, one H200).
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

// Second pass: each row's sum handed to finish, whose returns are summed (OrderedSum) into
// result(), after which the last warp runs `after`. Finish is a functor
// `double operator()(int row, double product) const` that stores the row's result and
// gives its contribution to a squared norm, or, when it reads something of the row,
// `load(row)` and `operator()(row, product, loaded)`. A row's sum is item_sums(row), or
// with bands its pieces' item_sums(b * rows + row) added in band order; long rows of a
// split matrix come first, a warp for a group of them (LongRowSums::group_totals), and the
// other threads pass over them (long_row_bits): the segments are added in this pass, not
// one of their own. A thread finishes kRows rows, `stride` apart (coalesced), with every
// load issued before the first store, and again `row_threads` further on while rows
// remain; a warp of long_threads takes groups of long rows long_warps apart. The threads
// are capped (kMostFinishThreads) because each warp pays a fence and an atomic to add its
// partial (OrderedSum): at 2^27 float32 power-law rows (8 Mi of them) a warp per 128 rows
// took 104-109 µs an iteration on an H200. On the same GPU 4 rows a thread against 1
// (then under Kokkos' range reduction): 2336 against 2370 µs an iteration at 2^27 float32
// uniform, 2375 against 2401 power-law. (A team reduction of 256 threads per 256 rows
// instead was far slower: 2966 against 2366 µs at 2^27 uniform.)
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
  // hide their latency; without the bound nvcc took 40 for 32-bit indices. Double sums
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
