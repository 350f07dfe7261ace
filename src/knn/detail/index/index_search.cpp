// The index search's passes. A batch of observations goes to the device, is put in the
// order of its cube keys within each slice of the pipeline (so that neighbouring threads
// visit the same cells and their lists lie side by side), screened through the index
// (index_screen.hpp), settled by the brute force's own bound, settle and order kernels
// (settle_kernels.hpp), and written back to the rows' own places; each slice's rows
// download while the next slice is searched (slice_pipeline.hpp, as in the brute force).
// Rows whose lists could not prove their answer go to a pass with float64 lists four times
// longer, as in the brute force.
#include "knn/detail/index/index_search.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>

#include "core/device_buffers.hpp"
#include "core/error.hpp"
#include "core/timers.hpp"
#include "knn/detail/slice_pipeline.hpp"
#include "knn/detail/index/cube_key.hpp"
#include "knn/detail/index/index_screen.hpp"
#include "knn/detail/index/radix_sort.hpp"
#include "knn/detail/row_list.hpp"
#include "knn/detail/settle_kernels.hpp"

namespace trident::knn {

namespace {

using HostUnmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
using Flags = Kokkos::View<int*, DeviceMemory>;

constexpr std::int64_t kMaxBatch = std::int64_t(1) << 22;  // rows a batch

// Device bytes a batch row takes with lists of kc entries in precision T: its vector as
// given and in key order, its key and order (twice, for the sort), list, angles, count,
// offset, flag and result row.
template <class T>
std::size_t bytes_per_row(int kc, int k) {
  return 2 * sizeof(Vec4<double>) + 2 * (sizeof(std::uint64_t) + sizeof(int)) +
         static_cast<std::size_t>(kc) * (sizeof(T) + sizeof(int) + sizeof(double)) + 2 * sizeof(int) +
         sizeof(double) + static_cast<std::size_t>(k) * (sizeof(NeighbourIndex) + sizeof(double));
}

// The first pass's list length wanted: k and a quarter more, as the brute force's, so that
// most rows prove their answer.
int first_list_length(int k) { return k + std::max(1, k / 4); }

// The first pass's lists (IndexOptions::lists).
IndexLists first_lists(int k, std::int64_t n_refs, core::Precision precision, IndexOptions::Lists where) {
  constexpr bool on_device = !std::is_same<ExecSpace, Kokkos::DefaultHostExecutionSpace>::value;
  const bool registers = where == IndexOptions::Lists::registers || (where == IndexOptions::Lists::automatic && on_device);
  return index_lists(first_list_length(k), n_refs, precision == core::Precision::float64, registers);
}

// Rows a batch: the deck's batch size, else what the search's memory budget holds, at
// most kMaxBatch.
template <class T>
std::int64_t batch_rows(int kc, const SearchOptions& options, std::size_t held) {
  if (options.batch_size > 0) return std::min<std::int64_t>(options.batch_size, std::int64_t(1) << 30);
  const auto rows = static_cast<std::int64_t>(search_memory_budget(held) / bytes_per_row<T>(kc, options.k));
  return std::max<std::int64_t>(1, std::min(kMaxBatch, rows));
}

// Where the slices of a batch of n rows start: the brute force's pipeline (a thread a row).
std::vector<int> slices_of(int n, const SearchOptions& options) {
  return slice_starts(n, slice_count(n, n, true, options.slices, false));
}

// The most slices a batch of a pass over `total` rows in batches of `batch` is cut into:
// the last, smaller batch can have more than a whole one (7 rows in 3 slices, 6 in 4:
// slice_starts halves the last slice only where it is long enough), and each slice counts
// its leaves in a slot of its own.
int most_slices(std::int64_t total, int batch, const SearchOptions& options) {
  const auto pieces = [&](int n) { return static_cast<int>(slices_of(n, options).size()) - 1; };
  const auto last = static_cast<int>(total % batch);
  return std::max(pieces(batch), last > 0 ? pieces(last) : 0);
}

// One batch's device arrays, views over the search's device buffers (valid for one pass).
template <class T>
struct BatchArrays {
  PointsView<double> obs, sorted;  // as given, and in key order
  index::Keys keys;
  index::Values order;  // row t in key order is row order(t) as given
  ListValues<T> best;
  ListIndices best_index;
  Distances angle;
  Counts count;
  Kokkos::View<double*, DeviceMemory> offset;  // 0: every row is screened around itself
  OutIndices out_index;
  OutDistances out_distance;
  Flags unproven;  // 1 where a row (as given) must be searched again
  Kokkos::View<std::int64_t*, DeviceMemory> leaves;  // screened, a slice each

  BatchArrays(core::DeviceBuffers& b, int n, int kc, int k, int slices) {
    const std::string p = std::is_same<T, float>::value ? "index32_" : "index64_";
    obs = b.view<PointsView<double>>(p + "observations", n);
    sorted = b.view<PointsView<double>>(p + "sorted_observations", n);
    keys = b.view<index::Keys>(p + "keys", n);
    order = b.view<index::Values>(p + "order", n);
    best = b.view<ListValues<T>>(p + "list_values", n, kc);
    best_index = b.view<ListIndices>(p + "list_indices", n, kc);
    angle = b.view<Distances>(p + "list_angles", n, kc);
    count = b.view<Counts>(p + "settle_counts", n);
    offset = b.view<Kokkos::View<double*, DeviceMemory>>(p + "offsets", n);
    out_index = b.view<OutIndices>(p + "indices", n, k);
    out_distance = b.view<OutDistances>(p + "distances", n, k);
    unproven = b.view<Flags>(p + "unproven", n);
    leaves = b.view<Kokkos::View<std::int64_t*, DeviceMemory>>(p + "leaves", slices);
    Kokkos::deep_copy(offset, 0.0);
  }
};

// Puts rows [0, n) of a batch in the order of their cube keys within each slice (starts):
// a slice's number above the key, so that one sort orders every slice and slice c's rows in
// key order are its own rows, [starts[c], starts[c + 1]). The key's lowest bits make room
// for the number (cells of centimetres either way).
template <class T>
void order_rows(const BatchArrays<T>& a, int n, const std::vector<int>& starts) {
  const int slices = static_cast<int>(starts.size()) - 1;
  int shift = 0;
  while ((1 << shift) < slices) ++shift;
  const index::Keys keys = a.keys;
  const index::Values order = a.order;
  const PointsView<double> obs = a.obs;
  for (int c = 0; c < slices; ++c) {
    const std::uint64_t tag = shift == 0 ? 0 : static_cast<std::uint64_t>(c) << (64 - shift);
    Kokkos::parallel_for(
        "trident::knn::index::observation_keys", Kokkos::RangePolicy<ExecSpace>(starts[c], starts[c + 1]),
        KOKKOS_LAMBDA(int o) {
          keys(o) = tag | index::cube_key(obs(o)) >> shift;
          order(o) = o;
        });
  }
  index::Keys sort_keys = Kokkos::subview(keys, std::make_pair(0, n));
  index::Values sorted_order = Kokkos::subview(order, std::make_pair(0, n));
  index::sort_by_key(sort_keys, sorted_order);
  const PointsView<double> sorted = a.sorted;
  Kokkos::parallel_for(
      "trident::knn::index::sort_observations", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(int t) {
        const int o = sorted_order(t);
        sorted(t) = obs(o);
        order(t) = o;
      });
}

// The first k entries of each ordered list (row t in key order) into the result rows at
// the row's own place, distances scaled by the radius (WriteRows' arithmetic), and the
// row's flag: 1 when Bound or Order found it unproven (its row is written again later).
struct WriteSortedRows {
  index::Values order;
  ListIndices best_index;
  Distances angle;
  Counts count;
  OutIndices out_index;
  OutDistances out_distance;
  Flags unproven;
  int k = 1;
  double radius = 1.0;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t f) const {
    const int t = static_cast<int>(f / k), i = static_cast<int>(f % k);
    const int o = order(t);
    out_index(o, i) = best_index(t, i);
    out_distance(o, i) = radius * angle(t, i);
    if (i == 0) unproven(o) = count(t) < 0 ? 1 : 0;
  }
};

// Bound, settle, order and write rows [r0, r1) (in key order) of a batch.
template <class T>
void finish_rows(const ExecSpace& space, const SphereIndex& index, const BatchArrays<T>& a, int r0, int r1,
                 IndexLists lists, const SearchOptions& options) {
  const int k = options.k, n_refs = index.view.references;
  const int kept = std::min(lists.kc, n_refs);
  const bool complete = kept == n_refs;
  const auto range = Kokkos::RangePolicy<ExecSpace>(space, r0, r1);
  Kokkos::parallel_for("trident::knn::bound", range, Bound<T>{a.best, a.count, a.offset, k, kept, complete});
  Kokkos::parallel_for("trident::knn::settle", range,
                       Settle{a.sorted, index.references, a.best_index, a.count, a.angle, 0, n_refs});
  Kokkos::parallel_for("trident::knn::order", range, Order{a.best_index, a.count, a.angle, k, complete});
  Kokkos::parallel_for(
      "trident::knn::index::write_rows",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, std::int64_t(r0) * k,
                                                                     std::int64_t(r1) * k),
      WriteSortedRows{a.order, a.best_index, a.angle, a.count, a.out_index, a.out_distance, a.unproven, k,
                         options.radius});
}

// Host staging of a pass over scattered rows (a widened pass): their observations and
// rows; empty for contiguous rows, which go straight from and to the caller's arrays.
struct HostStaging {
  Kokkos::View<Vec4<double>*, Kokkos::HostSpace> obs;
  Kokkos::View<NeighbourIndex**, Kokkos::LayoutRight, Kokkos::HostSpace> index;
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> distance;

  HostStaging(bool contiguous, std::int64_t rows, int k) {
    if (contiguous) return;
    const auto no_init = [](const std::string& label) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, label); };
    obs = decltype(obs)(no_init("trident::knn::index::staged_observations"), rows);
    index = decltype(index)(no_init("trident::knn::index::staged_indices"), rows, k);
    distance = decltype(distance)(no_init("trident::knn::index::staged_distances"), rows, k);
  }
};

// One pass over the rows of `which` with `lists` (screened in precision T); returns the
// rows it could not prove, ascending.
template <class T>
RowList index_pass(const SphereIndex& index, const Vec4<double>* observations, RowSelection which, bool contiguous,
                   IndexLists lists, bool first_pass, const SearchOptions& options, const IndexOptions& index_options,
                   core::DeviceBuffers& buffers, ResultRows out, SearchProfile& profile) {
  const int k = options.k;
  const std::int64_t total = which.size();
  const auto batch = static_cast<int>(std::min(total, batch_rows<T>(lists.kc, options, buffers.held())));
  const int start_leaves = index_options.start_leaves > 0 ? index_options.start_leaves
                                                          : default_start_leaves(lists.kc);
  const BatchArrays<T> a(buffers, batch, lists.kc, k, most_slices(total, batch, options));
  const HostStaging staging(contiguous, batch, k);
  const ExecSpace space;
  RowList failed;
  std::vector<std::int64_t> leaves;
  std::vector<int> flags;
  for (std::int64_t first = 0; first < total; first += batch) {
    const int n = static_cast<int>(std::min<std::int64_t>(batch, total - first));
    const std::vector<int> starts = slices_of(n, options);
    const int slices = static_cast<int>(starts.size()) - 1;
    // a slice's counter past the array is written silently on host back ends (into the
    // allocation's slack) and fails only the device's download: refuse it everywhere
    if (static_cast<std::size_t>(slices) > a.leaves.extent(0))
      throw RunError("knn: the index search cut a batch into " + std::to_string(slices) + " slices, more than the " +
                     std::to_string(a.leaves.extent(0)) + " it sized for (a bug: please report it)");
    ++profile.batches;
    if (slices > 1) profile.pipelined_slices += slices;
    const double start = wall_seconds();
    if (!contiguous) {
      for (int o = 0; o < n; ++o) staging.obs(o) = observations[which[first + o]];
    }
    Kokkos::deep_copy(Kokkos::subview(a.obs, std::make_pair(0, n)),
                      Kokkos::View<const Vec4<double>*, Kokkos::HostSpace, HostUnmanaged>(
                          contiguous ? observations + which[first] : staging.obs.data(), static_cast<std::size_t>(n)));
    const double uploaded = wall_seconds();
    order_rows(a, n, starts);
    Kokkos::deep_copy(a.leaves, std::int64_t(0));
    NeighbourIndex* const index_to = contiguous ? out.indices + which[first] * k : staging.index.data();
    double* const distance_to = contiguous ? out.distances + which[first] * k : staging.distance.data();
    SliceTransfers transfers(slices > 1);
    for (int c = 0; c < slices; ++c) {
      const int r0 = starts[c], r1 = starts[c + 1];
      screen_rows<T>(space, index.view, a.sorted, a.best, a.best_index, r0, r1, k, lists, start_leaves,
                     Kokkos::subview(a.leaves, c));
      finish_rows<T>(space, index, a, r0, r1, lists, options);
      const std::size_t entries = static_cast<std::size_t>(r1 - r0) * static_cast<std::size_t>(k);
      const std::size_t at = static_cast<std::size_t>(r0) * static_cast<std::size_t>(k);
      transfers.download(space, index_to + at, a.out_index.data() + at, entries * sizeof(NeighbourIndex));
      transfers.download(space, distance_to + at, a.out_distance.data() + at, entries * sizeof(double));
    }
    space.fence();
    const double screened = wall_seconds();
    transfers.finish();
    const double downloaded = wall_seconds();
    leaves.resize(static_cast<std::size_t>(slices));
    Kokkos::deep_copy(Kokkos::View<std::int64_t*, Kokkos::HostSpace, HostUnmanaged>(leaves.data(), leaves.size()),
                      Kokkos::subview(a.leaves, std::make_pair(0, slices)));
    for (const std::int64_t l : leaves) profile.index_leaves += l;
    profile.index_rows += n;
    // the rows to search again: few or none, so the flags come back only when there are some
    const Flags unproven = a.unproven;
    int again = 0;
    Kokkos::parallel_reduce(
        "trident::knn::index::count_unproven", Kokkos::RangePolicy<ExecSpace>(0, n),
        KOKKOS_LAMBDA(int o, int& sum) { sum += unproven(o); }, again);
    if (again > 0) {
      flags.resize(static_cast<std::size_t>(n));
      Kokkos::deep_copy(Kokkos::View<int*, Kokkos::HostSpace, HostUnmanaged>(flags.data(), flags.size()),
                        Kokkos::subview(unproven, std::make_pair(0, n)));
      for (int o = 0; o < n; ++o)
        if (flags[static_cast<std::size_t>(o)] != 0) failed.push_back(which[first + o]);
    }
    if (!contiguous) {
      for (int o = 0; o < n; ++o) {
        const std::int64_t row = which[first + o];
        std::copy(&staging.index(o, 0), &staging.index(o, 0) + k, out.indices + row * k);
        std::copy(&staging.distance(o, 0), &staging.distance(o, 0) + k, out.distances + row * k);
      }
    }
    if (first_pass) {
      profile.upload_seconds += uploaded - start;
      profile.screen_seconds += screened - uploaded;
      profile.download_seconds += downloaded - screened;
    } else {
      profile.widened_seconds += wall_seconds() - start;
    }
  }
  return failed;
}

}  // namespace

std::size_t index_search_bytes(std::int64_t rows, int k, core::Precision precision) {
  const IndexLists lists = first_lists(k, std::int64_t(1) << 30, precision, IndexOptions::Lists::automatic);
  const std::size_t per_row =
      precision == core::Precision::float64 ? bytes_per_row<double>(lists.kc, k) : bytes_per_row<float>(lists.kc, k);
  return static_cast<std::size_t>(std::min(std::max<std::int64_t>(rows, 1), kMaxBatch)) * per_row;
}

void reserve_index_search(std::int64_t rows, const SphereIndex& index, const SearchOptions& options) {
  if (!options.device_buffers || rows <= 0) return;
  const IndexLists lists =
      first_lists(options.k, index.view.references, options.precision, IndexOptions::Lists::automatic);
  core::DeviceBuffers& buffers = *options.device_buffers;
  const auto reserve = [&](auto precision) {
    using T = decltype(precision);
    const auto batch = static_cast<int>(std::min(rows, batch_rows<T>(lists.kc, options, buffers.held())));
    const BatchArrays<T> arrays(buffers, batch, lists.kc, options.k, most_slices(rows, batch, options));
  };
  if (options.precision == core::Precision::float64) {
    reserve(double());
  } else {
    reserve(float());
  }
}

void index_nearest_into(const SphereIndex& index, const Vec4<double>* observations, std::int64_t n_obs,
                        const SearchOptions& options, ResultRows rows, SearchProfile* profile, IndexStats* index_stats,
                        const IndexOptions& index_options) {
  const std::int64_t n_refs = index.view.references;
  if (options.k < 1 || options.k > n_refs) throw RunError("knn: k must lie between 1 and the number of references");
  SearchProfile local;
  SearchProfile& s = profile != nullptr ? *profile : local;
  IndexStats local_index;
  IndexStats& is = index_stats != nullptr ? *index_stats : local_index;
  is.index_bytes = index.bytes();
  is.levels = index.view.levels;
  if (n_obs <= 0) return;
  const double start = wall_seconds();
  // the batches' arrays: kept between searches when the caller keeps them (the rounds)
  std::shared_ptr<core::DeviceBuffers> buffers = options.device_buffers;
  if (!buffers) buffers = std::make_shared<core::DeviceBuffers>();
  const IndexLists lists = first_lists(options.k, n_refs, options.precision, index_options.lists);
  is.register_lists = lists.registers;
  s.list_length = lists.kc;
  RowList todo = options.precision == core::Precision::float64
                     ? index_pass<double>(index, observations, RowSelection::all(n_obs), true, lists, true, options,
                                          index_options, *buffers, rows, s)
                     : index_pass<float>(index, observations, RowSelection::all(n_obs), true, lists, true, options,
                                         index_options, *buffers, rows, s);
  // lists too short for the references inside the window (duplicates, near-ties): float64
  // lists four times longer, at least 64, until the window closes or every reference is kept
  int kc = lists.kc;
  while (!todo.empty()) {
    s.widened += static_cast<std::int64_t>(todo.size());
    kc = static_cast<int>(std::min<std::int64_t>(std::max<std::int64_t>(4 * std::int64_t(kc), 64), n_refs));
    todo = index_pass<double>(index, observations, RowSelection(todo), false, IndexLists{kc, false}, false, options,
                              index_options, *buffers, rows, s);
  }
  Kokkos::fence();
  s.search_seconds = wall_seconds() - start;
}

Neighbours index_nearest(const std::vector<Vec4<double>>& observations, const std::vector<Vec4<double>>& references,
                         const SearchOptions& options, SearchProfile* profile, IndexStats* index_stats,
                         const IndexOptions& index_options) {
  if (options.k < 1 || static_cast<std::size_t>(options.k) > references.size()) {
    throw RunError("knn: k must lie between 1 and the number of references");
  }
  SearchProfile local;
  SearchProfile& s = profile != nullptr ? *profile : local;
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
