#pragma once
// The layout of a CSR matrix on the device for the fused LSMR engine, made for reading at
// full bandwidth, since an LSMR iteration is bound by reading A and A^T:
//  - column indices are 16 bits when the matrix has at most 65536 columns, which cuts a
//    float32 nonzero from 8 to 6 bytes;
//  - each row is padded with zeros to a multiple of a 16-byte pack of values (4 floats or
//    2 doubles), so that a lane reads a pack of values and one of indices with one wide
//    load each (lane_products.hpp);
//  - the rows are spread over threads by a RowSchedule (row_schedule.hpp): a row is one
//    work item, or long rows are cut into segments that are work items of their own, or
//    each row is stored as its pieces in bands of columns, band after band.
// device_csr_build.cpp builds it (float and double): the layout on the host, the entries
// placed there too or, given A's entries on the device (device_entries.hpp), there;
// row_products.hpp runs the products.
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ridge/detail/csr.hpp"
#include "ridge/detail/device_entries.hpp"
#include "ridge/detail/execution.hpp"
#include "ridge/detail/row_schedule.hpp"

namespace trident::ridge {

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
  // (h.columns scalars of `vector_bytes`; 0: unknown, only bands asked for on any matrix
  // by `options`) is larger than the device's cache can hold (choose_column_bands). With
  // `on_device` (h's entries there), the entries are placed on the device; the same bits.
  static DeviceCsr scheduled(const HostCsr& h, const std::string& label, int max_lanes,
                             std::size_t vector_bytes = 0, const ScheduleOptions& options = {},
                             const DeviceEntries* on_device = nullptr);

  // The transpose of `a` (columns ascending within each row, as ridge::transpose gives),
  // scheduled as above, built straight into the device layout: no transposed HostCsr in
  // double first. The passes over A run on the host's CPUs, each a range of A's rows, and
  // the entries of a row (or piece) of A^T land in ascending rows of A, as one loop would
  // store them. With `on_device` (a's entries there), they are placed on the device from
  // its sorted order instead; the same bits.
  static DeviceCsr transpose_of(const HostCsr& a, const std::string& label, int max_lanes,
                                std::size_t vector_bytes = 0, const ScheduleOptions& options = {},
                                const DeviceEntries* on_device = nullptr);

  DeviceCsr() = default;
  // `row_lanes` lanes per work item; rows longer than `segment_packs` packs cut into
  // segments (0: never); no bands.
  DeviceCsr(const HostCsr& h, const std::string& label, int row_lanes, int segment_packs = 0);

 private:
  // The layout for rows of `lengths` entries (with bands: the rows' pieces, row by row):
  // padded offsets, the schedule's work items, and the arrays of entries allocated, to be
  // filled (device_csr_build.cpp). `plan` gives the lanes, the segment length and the bands.
  DeviceCsr(const std::vector<std::int64_t>& lengths, int column_count, const std::string& label,
            const RowSchedule& plan);
};

extern template struct DeviceCsr<float>;
extern template struct DeviceCsr<double>;

}  // namespace trident::ridge
