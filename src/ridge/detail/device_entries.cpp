#include "ridge/detail/device_entries.hpp"

#include <type_traits>
#include <string>

#include "core/device_memory.hpp"
#include "transport/page_lock.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#endif

namespace trident::ridge {

namespace {

template <class T>
Kokkos::View<T*, RidgeDevice> uploaded(const T* data, std::size_t count, const std::string& label) {
  Kokkos::View<T*, RidgeDevice> v(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), count);
  const transport::PageLock lock(const_cast<T*>(data), count * sizeof(T));  // copies at the link's rate
  Kokkos::deep_copy(v, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(data, count));
  return v;
}

// A's entries by column, rows ascending within a column: a stable sort of the entry
// numbers by column on CUDA devices; elsewhere the host's counting pass by ranges of rows
// (scatter_by_rows), which stores them in that order whatever the thread count.
Kokkos::View<int*, RidgeDevice> sorted_by_column(const HostCsr& a, const Kokkos::View<int*, RidgeDevice>& col_ind) {
  const std::int64_t n = a.nonzeros();
  Kokkos::View<int*, RidgeDevice> order(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::by_column"),
                                        static_cast<std::size_t>(n));
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<RidgeExec, Kokkos::Cuda>) {
    Kokkos::View<int*, RidgeDevice> keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::sort_keys"),
                                         static_cast<std::size_t>(n));
    Kokkos::deep_copy(keys, col_ind);
    Kokkos::parallel_for("trident::ridge::entry_numbers", Kokkos::RangePolicy<RidgeExec>(0, n),
                         KOKKOS_LAMBDA(const int k) { order(k) = k; });
    const RidgeExec exec;
    thrust::stable_sort_by_key(thrust::cuda::par.on(exec.cuda_stream()), keys.data(), keys.data() + n, order.data());
    exec.fence();
    return order;
  }
#endif
  (void)col_ind;
  const std::vector<std::int64_t> counts = column_entries(a);
  std::vector<std::int64_t> first(counts.size(), 0);
  for (std::size_t c = 1; c < counts.size(); ++c) first[c] = first[c - 1] + counts[c - 1];
  auto host = Kokkos::create_mirror_view(order);  // the scatter stores every entry
  scatter_by_rows(a, a.columns, first, [](int, const int c) { return c; },
                  [&](const std::int64_t slot, int, const int k) { host(slot) = k; });
  Kokkos::deep_copy(order, host);
  return order;
}

}  // namespace

DeviceEntries::DeviceEntries(const HostCsr& a)
    : row_ptr(uploaded(a.row_ptr.data(), a.row_ptr.size(), "trident::ridge::entries_row_ptr")),
      col_ind(uploaded(a.col_ind.data(), a.col_ind.size(), "trident::ridge::entries_col_ind")),
      values(uploaded(a.values.data(), a.values.size(), "trident::ridge::entries_values")),
      by_column(sorted_by_column(a, col_ind)) {}

std::int64_t DeviceEntries::peak_bytes(const std::int64_t rows, const std::int64_t nonzeros) {
  // offsets; columns, values and order (16 bytes an entry); the sort's keys, and its
  // scratch (double buffers of keys and order), for the while it runs
  return 4 * (rows + 1) + 16 * nonzeros + 20 * nonzeros + (std::int64_t(64) << 20);
}

bool entries_on_device_wanted(const core::Switch setting, const HostCsr& a, const std::int64_t layout_bytes) {
  if (setting != core::Switch::automatic) return setting == core::Switch::on;
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, RidgeDevice::memory_space>::accessible) return false;
  const std::int64_t free = device_free_bytes();
  return free < 0 || free - layout_bytes > DeviceEntries::peak_bytes(a.rows, a.nonzeros()) * 5 / 4;
}

template <class Index, class M>
void place_entries(const DeviceEntries& entries, const bool transposed, const int bands, const int band_columns,
                   const std::vector<std::int64_t>& starts, const Kokkos::View<int*, RidgeDevice>& row_ptr,
                   const Kokkos::View<Index*, RidgeDevice>& indices, const Kokkos::View<M*, RidgeDevice>& values) {
  Kokkos::View<std::int64_t*, RidgeDevice> start(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::piece_starts"), starts.size());
  Kokkos::deep_copy(start, Kokkos::View<const std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                               starts.data(), starts.size()));
  const auto offsets = entries.row_ptr, columns = entries.col_ind, order = entries.by_column;
  const auto source = entries.values;
  const int rows = static_cast<int>(offsets.extent(0)) - 1;
  const auto n = static_cast<std::int64_t>(columns.extent(0));
  using Range = Kokkos::RangePolicy<RidgeExec, Kokkos::IndexType<std::int64_t>>;
  // Entry p of the order (A's, or by column): its row i of A, the binary search's last
  // row starting at or before it (a row holding it, so never an empty one).
  Kokkos::parallel_for(
      "trident::ridge::place_entries", Range(0, n), KOKKOS_LAMBDA(const std::int64_t p) {
        const int k = transposed ? order(p) : static_cast<int>(p);
        int lo = 0, hi = rows;  // offsets(lo) <= k < offsets(hi)
        while (hi - lo > 1) {
          const int mid = lo + (hi - lo) / 2;
          (offsets(mid) <= k ? lo : hi) = mid;
        }
        const int c = columns(k);
        const int line = transposed ? c : lo, across = transposed ? lo : c;
        const std::int64_t j = static_cast<std::int64_t>(line) * bands + (bands > 1 ? across / band_columns : 0);
        const std::int64_t out = row_ptr(j) + (p - start(j));
        indices(out) = static_cast<Index>(across);
        values(out) = static_cast<M>(source(k));
      });
  // Padding: zeros at the piece's last index, as fill_entries pads on the host.
  Kokkos::parallel_for(
      "trident::ridge::pad_entries", Range(0, static_cast<std::int64_t>(starts.size()) - 1),
      KOKKOS_LAMBDA(const std::int64_t j) {
        for (std::int64_t out = row_ptr(j) + (start(j + 1) - start(j)); out < row_ptr(j + 1); ++out) {
          indices(out) = indices(out - 1);
          values(out) = M(0);
        }
      });
  RidgeExec().fence();
}

#define TRIDENT_PLACE_ENTRIES(Index, M)                                                                        \
  template void place_entries<Index, M>(const DeviceEntries&, bool, int, int, const std::vector<std::int64_t>&, \
                                        const Kokkos::View<int*, RidgeDevice>&,                                 \
                                        const Kokkos::View<Index*, RidgeDevice>&, const Kokkos::View<M*, RidgeDevice>&);
TRIDENT_PLACE_ENTRIES(std::uint16_t, float)
TRIDENT_PLACE_ENTRIES(std::uint16_t, double)
TRIDENT_PLACE_ENTRIES(int, float)
TRIDENT_PLACE_ENTRIES(int, double)
#undef TRIDENT_PLACE_ENTRIES

}  // namespace trident::ridge
