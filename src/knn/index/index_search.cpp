// The index search's passes: batches of observations ordered by their cube keys (so that
// neighbouring threads visit the same cells), the index's screen (query_kernel.hpp), then
// the brute force's own bound, settle, order and write kernels (settle_kernels.hpp); rows
// whose lists could not prove their answer go to a pass with float64 lists four times
// longer, as in the brute force.
#include "knn/index/index_search.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "core/timers.hpp"
#include "knn/index/cube_key.hpp"
#include "knn/index/query_kernel.hpp"
#include "knn/index/radix_sort.hpp"
#include "knn/row_list.hpp"
#include "knn/settle_kernels.hpp"

namespace trident::knn {

namespace {

using HostPoints = Kokkos::View<Vec4<double>*, Kokkos::HostSpace>;
using HostUnmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;

// Device bytes a batch row takes with lists of kc entries in precision T: its vector, key
// and order (twice, for the sort), list, angles, count, offset and result row.
template <class T>
std::size_t bytes_per_row(int kc, int k) {
  return sizeof(Vec4<double>) + 2 * (sizeof(std::uint64_t) + sizeof(int)) +
         static_cast<std::size_t>(kc) * (sizeof(T) + sizeof(int) + sizeof(double)) + sizeof(int) + sizeof(double) +
         static_cast<std::size_t>(k) * (sizeof(NeighbourIndex) + sizeof(double));
}

// Rows a batch: the deck's batch size, else what half the search's memory budget holds
// (besides the index), at most 2^22.
template <class T>
std::int64_t batch_rows(const SphereIndex& index, int kc, const SearchOptions& options) {
  if (options.batch_size > 0) return std::min<std::int64_t>(options.batch_size, std::int64_t(1) << 30);
  const std::size_t budget = search_memory_budget() / 2;
  const std::size_t held = index.bytes() + index.references.span() * sizeof(Vec4<double>);
  const std::size_t left = budget > held ? budget - held : 0;
  return std::max<std::int64_t>(1, std::min<std::int64_t>(std::int64_t(1) << 22, left / bytes_per_row<T>(kc, options.k)));
}

// One batch's device arrays.
template <class T>
struct BatchArrays {
  PointsView<double> obs;
  ListValues<T> best;
  ListIndices best_index;
  Distances angle;
  Counts count;
  Kokkos::View<double*, DeviceMemory> offset;  // 0: every row is screened around itself
  OutIndices out_index;
  OutDistances out_distance;

  BatchArrays(int n, int kc, int k)
      : obs(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::knn::index::observations"), n),
        best(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::knn::index::lists"), n, kc),
        best_index(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::knn::index::list_indices"), n, kc),
        angle(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::knn::index::angles"), n, kc),
        count(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::knn::index::counts"), n),
        offset("trident::knn::index::offsets", n),
        out_index(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::knn::index::out_indices"), n, k),
        out_distance(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::knn::index::out_distances"), n, k) {}
};

// The order a batch's rows are screened in: by the cube keys of their observations.
Kokkos::View<int*, DeviceMemory> screening_order(const PointsView<double>& obs) {
  const int n = static_cast<int>(obs.extent(0));
  index::Keys keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::knn::index::observation_keys"), n);
  index::Values order(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::knn::index::observation_order"), n);
  Kokkos::parallel_for(
      "trident::knn::index::observation_keys", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(int i) {
        keys(i) = index::cube_key(obs(i));
        order(i) = i;
      });
  index::sort_by_key(keys, order);
  return order;
}

// Screens, settles and orders one batch whose observations are on the device in a.obs;
// leaves the rows in a.out_index and a.out_distance, and a.count(o) < 0 where row o must
// be searched again.
template <class T>
void search_batch(const SphereIndex& index, const BatchArrays<T>& a, int kc, const SearchOptions& options,
                  const IndexOptions& index_options, IndexStats& istats) {
  const int n = static_cast<int>(a.obs.extent(0)), k = options.k, n_refs = index.view.references;
  const int kept = std::min(kc, n_refs);
  const bool complete = kept == n_refs;
  const auto range = Kokkos::RangePolicy<ExecSpace>(0, n);
  const Kokkos::View<std::int64_t, DeviceMemory> depth_first("trident::knn::index::depth_first_rows");
  const IndexScreen<T> screen{index.view, a.obs, screening_order(a.obs), a.best, a.best_index, k, kept, complete,
                              depth_first,
                              index_options.heap_capacity > 0 ? std::min(index_options.heap_capacity, kHeap) : kHeap};
  std::int64_t leaves = 0, depth_first_rows = 0;
  Kokkos::parallel_reduce("trident::knn::index::screen", range, screen, leaves);
  Kokkos::deep_copy(depth_first_rows, depth_first);
  istats.leaves_visited += leaves;
  istats.depth_first_rows += depth_first_rows;
  istats.rows_screened += n;
  Kokkos::parallel_for("trident::knn::bound", range, Bound<T>{a.best, a.count, a.offset, k, kept, complete});
  Kokkos::parallel_for("trident::knn::settle", range,
                       Settle{a.obs, index.references, a.best_index, a.count, a.angle, 0, n_refs});
  Kokkos::parallel_for("trident::knn::order", range, Order{a.best_index, a.count, a.angle, k, complete});
  const int rows_per_team = WriteRows::rows_for(k);
  Kokkos::parallel_for("trident::knn::write_rows",
                       Kokkos::TeamPolicy<ExecSpace>((n + rows_per_team - 1) / rows_per_team, Kokkos::AUTO),
                       WriteRows{a.best_index, a.angle, a.out_index, a.out_distance, k, 0, n, rows_per_team,
                                 options.radius});
}

// One pass over the rows of `which` with lists of kc entries (screened in precision T);
// returns the rows it could not prove.
template <class T>
RowList index_pass(const SphereIndex& index, const Vec4<double>* observations, RowSelection which, bool contiguous,
                   int kc, const SearchOptions& options, const IndexOptions& index_options, ResultRows out,
                   SearchProfile& stats, IndexStats& istats) {
  const int k = options.k;
  const std::int64_t total = which.size(), batch = batch_rows<T>(index, kc, options);
  RowList failed;
  HostPoints h_obs;
  std::vector<int> h_count;
  for (std::int64_t first = 0; first < total; first += batch) {
    const int n = static_cast<int>(std::min(batch, total - first));
    ++stats.batches;
    const BatchArrays<T> a(n, kc, k);
    if (contiguous) {
      Kokkos::deep_copy(a.obs, Kokkos::View<const Vec4<double>*, Kokkos::HostSpace, HostUnmanaged>(
                                   observations + which[first], static_cast<std::size_t>(n)));
    } else {
      h_obs = HostPoints(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::knn::index::gathered"), n);
      for (int o = 0; o < n; ++o) h_obs(o) = observations[which[first + o]];
      Kokkos::deep_copy(a.obs, h_obs);
    }
    search_batch<T>(index, a, kc, options, index_options, istats);
    const auto h_index = Kokkos::create_mirror_view(a.out_index);
    const auto h_distance = Kokkos::create_mirror_view(a.out_distance);
    Kokkos::deep_copy(h_index, a.out_index);
    Kokkos::deep_copy(h_distance, a.out_distance);
    h_count.resize(static_cast<std::size_t>(n));
    Kokkos::deep_copy(Kokkos::View<int*, Kokkos::HostSpace, HostUnmanaged>(h_count.data(), h_count.size()), a.count);
    for (int o = 0; o < n; ++o) {
      const std::int64_t row = which[first + o];
      if (h_count[static_cast<std::size_t>(o)] < 0) failed.push_back(row);
      std::copy(&h_index(o, 0), &h_index(o, 0) + k, out.indices + row * k);
      std::copy(&h_distance(o, 0), &h_distance(o, 0) + k, out.distances + row * k);
    }
  }
  return failed;
}

}  // namespace

void index_nearest_into(const SphereIndex& index, const Vec4<double>* observations, std::int64_t n_obs,
                        const SearchOptions& options, ResultRows rows, SearchProfile* stats, IndexStats* index_stats,
                        const IndexOptions& index_options) {
  const std::int64_t n_refs = index.view.references;
  if (options.k < 1 || options.k > n_refs) throw RunError("knn: k must lie between 1 and the number of references");
  SearchProfile local;
  SearchProfile& s = stats != nullptr ? *stats : local;
  IndexStats local_index;
  IndexStats& is = index_stats != nullptr ? *index_stats : local_index;
  is.index_bytes = index.bytes();
  is.levels = index.view.levels;
  const double start = wall_seconds();
  // the brute force's first lists: k and a quarter more, so most rows prove their answer
  int kc = static_cast<int>(std::min<std::int64_t>(options.k + std::max(1, options.k / 4), n_refs));
  s.list_length = kc;
  RowList todo = options.precision == "float64"
                     ? index_pass<double>(index, observations, RowSelection::all(n_obs), true, kc, options, index_options, rows, s, is)
                     : index_pass<float>(index, observations, RowSelection::all(n_obs), true, kc, options, index_options, rows, s, is);
  // lists too short for the references inside the window (duplicates, near-ties): float64
  // lists four times longer, at least 64, until the window closes or every reference is kept
  while (!todo.empty()) {
    s.widened += static_cast<std::int64_t>(todo.size());
    kc = static_cast<int>(std::min<std::int64_t>(std::max<std::int64_t>(4 * std::int64_t(kc), 64), n_refs));
    todo = index_pass<double>(index, observations, RowSelection(todo), false, kc, options, index_options, rows, s, is);
  }
  Kokkos::fence();
  s.search_seconds = wall_seconds() - start;
}

Neighbours index_nearest(const std::vector<Vec4<double>>& observations, const std::vector<Vec4<double>>& references,
                         const SearchOptions& options, SearchProfile* stats, IndexStats* index_stats,
                         const IndexOptions& index_options) {
  if (options.k < 1 || static_cast<std::size_t>(options.k) > references.size()) {
    throw RunError("knn: k must lie between 1 and the number of references");
  }
  SearchProfile local;
  SearchProfile& s = stats != nullptr ? *stats : local;
  IndexStats local_index;
  IndexStats& is = index_stats != nullptr ? *index_stats : local_index;
  Neighbours out;
  allocate_rows(out, observations.size() * static_cast<std::size_t>(options.k));
  const SphereIndex index = build_sphere_index(references);
  index_nearest_into(index, observations.data(), static_cast<std::int64_t>(observations.size()), options,
                     {out.indices.data(), out.distances.data()}, &s, &is, index_options);
  is.build_seconds = index.build_seconds;
  s.setup_seconds = index.build_seconds;
  s.search_seconds += index.build_seconds;
  return out;
}

}  // namespace trident::knn
