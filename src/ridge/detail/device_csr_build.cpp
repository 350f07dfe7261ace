// Building a DeviceCsr: the row schedule and column bands from the row lengths, the padded
// offsets and work items on the host; the entries placed on the host (A's rows in order, or
// A^T's scattered from A's rows on every CPU) and uploaded from page-locked memory, or
// placed on the device from A's entries there (device_entries.hpp). Instantiated for float
// and double matrices.
#include "ridge/detail/device_csr.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "core/host_threads.hpp"
#include "core/huge_pages.hpp"
#include "transport/page_lock.hpp"
#include "ridge/detail/device_tuning.hpp"

namespace trident::ridge {

namespace {

// A host view to fill and copy into `v`: `v` itself where the host can reach it, else a
// new one without the zero fill (create_mirror_view's would write it all once more).
template <class V>
auto unfilled_host_copy(const V& v) {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename V::memory_space>::accessible)
    return v;
  else
    return typename V::HostMirror(Kokkos::view_alloc(Kokkos::WithoutInitializing, v.label()), v.extent(0));
}

// row(i) for every row i, on the host's CPUs in ranges of rows (what a row writes is its
// own: its counts, its slots).
template <class Row>
void for_row_ranges(const std::int64_t rows, Row row) {
  core::host_parallel_ranges(rows, std::int64_t(1) << 12, [&](const std::int64_t first, const std::int64_t last) {
    for (std::int64_t i = first; i < last; ++i) row(static_cast<int>(i));
  });
}

std::vector<std::int64_t> lengths_of(const HostCsr& h) {
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(h.rows));
  for (int i = 0; i < h.rows; ++i) lengths[i] = h.row_ptr[i + 1] - h.row_ptr[i];
  return lengths;
}

// Packs of `pack` entries of each row once padded.
std::vector<std::int64_t> packs_of(const std::vector<std::int64_t>& lengths, int pack) {
  std::vector<std::int64_t> packs(lengths.size());
  for (std::size_t i = 0; i < lengths.size(); ++i) packs[i] = (lengths[i] + pack - 1) / pack;
  return packs;
}

RowSchedule unbanded(int row_lanes, int segment_packs) {
  RowSchedule s;
  s.lanes = row_lanes;
  s.segment_packs = segment_packs;
  return s;
}

// The schedule of rows of `lengths` entries that gather from a vector of `x_length`
// scalars of `vector_bytes`: segments, column bands, or neither (whole_rows: segments
// or neither). With bands the lanes fit the mean piece rather than the mean row; the
// callers drop the bands when the rows do not spread over them (rows_spread_over_bands).
RowSchedule whole_rows(const std::vector<std::int64_t>& lengths, int max_lanes, int pack,
                       const ScheduleOptions& options) {
  return choose_row_schedule(packs_of(lengths, pack), max_lanes, fill_threads(), pack, options);
}

RowSchedule plan(const std::vector<std::int64_t>& lengths, std::int64_t x_length, int max_lanes,
                 std::size_t vector_bytes, int pack, const ScheduleOptions& options) {
  RowSchedule s = whole_rows(lengths, max_lanes, pack, options);
  if (s.split()) return s;
  double total = 0;
  for (const std::int64_t l : lengths) total += static_cast<double>(l);
  const double mean = lengths.empty() ? 0.0 : total / static_cast<double>(lengths.size());
  const int bands = choose_column_bands(x_length, vector_bytes, mean, gather_cache_bytes(), options);
  if (bands < 2) return s;
  s.bands = bands;
  s.band_columns = (x_length + bands - 1) / bands;
  std::vector<std::int64_t> piece_packs(lengths.size());
  for (std::size_t i = 0; i < lengths.size(); ++i)
    piece_packs[i] = static_cast<std::int64_t>(static_cast<double>(lengths[i]) / bands / pack + 1);
  s.lanes = choose_row_schedule(piece_packs, max_lanes, 0, pack, options).lanes;
  return s;
}

// The entry counts the layout stores: `lengths` (the rows') when `s` has no bands, else
// each row's pieces, row by row, counted by count(piece), which adds the entries through
// piece(row, column) (a reference to that row's count in the column's band). Rows that do
// not spread over the bands (rows_spread_over_bands) drop them: `s` becomes whole_rows'.
template <class Count>
std::vector<std::int64_t> banded_lengths(RowSchedule& s, const std::vector<std::int64_t>& lengths, int max_lanes,
                                         int pack, const ScheduleOptions& options, Count count) {
  if (s.bands < 2) return lengths;
  std::vector<std::int64_t> pieces(lengths.size() * static_cast<std::size_t>(s.bands), 0);
  const std::int64_t bands = s.bands, width = s.band_columns;
  auto piece = [&](std::int64_t row, std::int64_t column) -> std::int64_t& {
    return pieces[static_cast<std::size_t>(row * bands + column / width)];
  };
  count(piece);
  if (rows_spread_over_bands(pieces, s.bands, options)) return pieces;
  s = whole_rows(lengths, max_lanes, pack, options);
  return lengths;
}

// Stores the entries of `m`: place(c, v, rp) writes row i's entries, columns ascending,
// from rp(i) on into the column indices c and values v (host copies, or the arrays
// themselves on host back ends); then each row of `lengths[i]` entries is padded and all
// is copied to the device. Padding: value 0 at the row's last column, so that it adds
// 0 * x(c) with an x(c) the row reads anyway (never a NaN from 0 * inf that the row would
// not have had).
template <class M, class Place>
void fill_entries(DeviceCsr<M>& m, const std::vector<std::int64_t>& lengths, Place place) {
  const auto rp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.row_ptr);
  auto fill = [&](auto& indices) {
    auto c = unfilled_host_copy(indices);
    auto v = unfilled_host_copy(m.values);
    advise_huge_pages(c.data(), c.span() * sizeof(*c.data()));  // the transpose's scattered stores
    advise_huge_pages(v.data(), v.span() * sizeof(*v.data()));
    place(c, v, rp);
    for_row_ranges(static_cast<std::int64_t>(lengths.size()), [&](const std::int64_t i) {
      for (std::int64_t out = rp(i) + lengths[i]; out < rp(i + 1); ++out) {
        c(out) = c(out - 1);
        v(out) = M(0);
      }
    });
    if (c.data() != indices.data()) {  // a host copy: uploaded from page-locked memory, faster
      const transport::PageLock lock_indices(c.data(), c.span() * sizeof(*c.data()));
      const transport::PageLock lock_values(v.data(), v.span() * sizeof(*v.data()));
      Kokkos::deep_copy(indices, c);
      Kokkos::deep_copy(m.values, v);
    }
  };
  if (m.narrow_indices()) fill(m.narrow);
  else fill(m.wide);
}

// The entries of h's rows into `m`, in their order (with bands, each into its piece: the
// columns ascend, so a row's pieces come one after the other). `lengths`: the rows' or
// pieces'.
template <class M>
void fill_rows_of(DeviceCsr<M>& m, const HostCsr& h, const std::vector<std::int64_t>& lengths) {
  const int bands = m.bands, band_columns = m.band_columns;
  fill_entries(m, lengths, [&h, bands, band_columns](auto& c, auto& v, const auto& rp) {
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

// The entries of A (or A^T: `transposed`) placed on the device from `entries`, into pieces
// of `lengths` entries.
template <class M>
void place_on_device(DeviceCsr<M>& m, const std::vector<std::int64_t>& lengths, const DeviceEntries& entries,
                     const bool transposed) {
  std::vector<std::int64_t> starts(lengths.size() + 1, 0);
  for (std::size_t j = 0; j < lengths.size(); ++j) starts[j + 1] = starts[j] + lengths[j];
  if (m.narrow_indices())
    place_entries(entries, transposed, m.bands, m.band_columns, starts, m.row_ptr, m.narrow, m.values);
  else
    place_entries(entries, transposed, m.bands, m.band_columns, starts, m.row_ptr, m.wide, m.values);
}

}  // namespace

template <class M>
DeviceCsr<M> DeviceCsr<M>::scheduled(const HostCsr& h, const std::string& label, int max_lanes,
                                     std::size_t vector_bytes, const ScheduleOptions& options,
                                     const DeviceEntries* on_device) {
  const std::vector<std::int64_t> lengths = lengths_of(h);
  RowSchedule s = plan(lengths, h.columns, max_lanes, vector_bytes, kPack, options);
  const std::vector<std::int64_t> pieces = banded_lengths(s, lengths, max_lanes, kPack, options, [&](auto& piece) {
    for_row_ranges(h.rows, [&](const int i) {
      for (int k = h.row_ptr[i]; k < h.row_ptr[i + 1]; ++k) ++piece(i, h.col_ind[k]);
    });
  });
  DeviceCsr m(pieces, h.columns, label, s);
  if (on_device != nullptr)
    place_on_device(m, pieces, *on_device, false);
  else
    fill_rows_of(m, h, pieces);
  return m;
}

template <class M>
DeviceCsr<M> DeviceCsr<M>::transpose_of(const HostCsr& a, const std::string& label, int max_lanes,
                                        std::size_t vector_bytes, const ScheduleOptions& options,
                                        const DeviceEntries* on_device) {
  const std::vector<std::int64_t> lengths = column_entries(a);
  RowSchedule s = plan(lengths, a.rows, max_lanes, vector_bytes, kPack, options);
  // the piece of an entry of A: its row of A^T (A's column) and its band of A^T's columns
  const auto piece_of = [&s](const int i, const int c) {
    return static_cast<std::int64_t>(c) * s.bands + i / s.band_columns;
  };
  const std::vector<std::int64_t> pieces = banded_lengths(s, lengths, max_lanes, kPack, options, [&](auto& piece) {
    const std::vector<std::int64_t> counts =
        count_by_rows(a, static_cast<std::int64_t>(lengths.size()) * s.bands, piece_of);
    for (std::size_t j = 0; j < counts.size(); ++j)
      piece(static_cast<std::int64_t>(j) / s.bands, static_cast<std::int64_t>(j) % s.bands * s.band_columns) += counts[j];
  });
  DeviceCsr t(pieces, a.rows, label, s);
  if (on_device != nullptr) {
    place_on_device(t, pieces, *on_device, true);
    return t;
  }
  fill_entries(t, pieces, [&](auto& c, auto& v, const auto& rp) {
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

template <class M>
DeviceCsr<M>::DeviceCsr(const HostCsr& h, const std::string& label, int row_lanes, int segment_packs)
    : DeviceCsr(lengths_of(h), h.columns, label, unbanded(row_lanes, segment_packs)) {
  fill_rows_of(*this, h, lengths_of(h));
}

template <class M>
DeviceCsr<M>::DeviceCsr(const std::vector<std::int64_t>& lengths, int column_count, const std::string& label,
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
  const std::vector<std::int64_t> packs = packs_of(lengths, kPack);
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

template struct DeviceCsr<float>;
template struct DeviceCsr<double>;

}  // namespace trident::ridge
