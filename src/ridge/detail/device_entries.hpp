#pragma once
// A's entries copied to the device once, so that A's and A^T's device layouts
// (device_csr.hpp) are filled there rather than on the host's CPUs, which the ranks of a
// host share. The entries of A^T come from A's in a stable sort by column: within a
// column, A's rows ascend, as the host's transpose stores them, so both fills store the
// host path's bits.
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/overrides.hpp"
#include "ridge/detail/csr.hpp"
#include "ridge/detail/execution.hpp"

namespace trident::ridge {

struct DeviceEntries {
  Kokkos::View<int*, RidgeDevice> row_ptr;    // A's offsets (rows + 1)
  Kokkos::View<int*, RidgeDevice> col_ind;    // A's columns, entry by entry
  Kokkos::View<double*, RidgeDevice> values;  // A's values
  Kokkos::View<int*, RidgeDevice> by_column;  // A's entries ordered by column, rows ascending within one

  // Uploads `a` and sorts its entries by column (on CUDA devices there; elsewhere on the
  // host's CPUs, as the host path's transpose orders them).
  explicit DeviceEntries(const HostCsr& a);

  // The device memory they take at the most (the sort's scratch included), for a matrix
  // of `rows` rows and `nonzeros` entries.
  static std::int64_t peak_bytes(std::int64_t rows, std::int64_t nonzeros);
};

// Whether A's and A^T's entries are placed on the device: automatically where the host
// cannot reach the device's memory and the device has room for the entries (peak_bytes)
// beside the layouts' `layout_bytes`; `setting` on or off forces the choice (tests,
// benchmarks: TRIDENT_RIDGE_DEVICE_SETUP).
bool entries_on_device_wanted(core::Switch setting, const HostCsr& a, std::int64_t layout_bytes);

// Fills `indices` and `values` (a DeviceCsr's arrays, `row_ptr` its padded offsets of
// pieces) with A's entries, or with A^T's (`transposed`): piece j of `starts[j + 1] -
// starts[j]` entries lands from row_ptr(j) on, in the order the host path stores it, and is
// then padded to row_ptr(j + 1) with zeros at its last index. Pieces: each row's (of A, or
// of A^T) entries in `bands` bands of `band_columns` of its columns; bands = 1: whole rows.
template <class Index, class M>
void place_entries(const DeviceEntries& entries, bool transposed, int bands, int band_columns,
                   const std::vector<std::int64_t>& starts, const Kokkos::View<int*, RidgeDevice>& row_ptr,
                   const Kokkos::View<Index*, RidgeDevice>& indices, const Kokkos::View<M*, RidgeDevice>& values);

}  // namespace trident::ridge
