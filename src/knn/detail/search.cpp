// The public entry points of the search (search.hpp, and the test hooks' nearest() of
// search_test_hooks.hpp): a first pass, widened passes for the rows it could not prove,
// the list bound and its cache, and the reservation of a search's device arrays.
#include "knn/detail/search.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <string>

#include "core/device_memory.hpp"
#include "core/error.hpp"
#include "transport/page_lock.hpp"
#include "core/timers.hpp"
#include "knn/detail/slice_pipeline.hpp"
#include "knn/detail/list_bound.hpp"
#include "knn/detail/list_choice.hpp"
#include "knn/detail/search_test_hooks.hpp"
#include "knn/detail/searcher.hpp"

namespace trident::knn {

namespace {

template <class T>
ListBound list_bound_in(const std::vector<Vec4<double>>& references, int kc, std::int64_t most_places,
                        const SearchOptions& options) {
  const auto n_refs = static_cast<std::int64_t>(references.size());
  if (kc < 1 || kc > n_refs) return {};
  SearchProfile unused;
  const SearchTestHooks hooks;
  Searcher<T> searcher(references, options, hooks, unused);
  return searcher.bound_from(most_places, lists_for<T>(kc, 0, n_refs, options, hooks));
}

// The list bound of a search of `n_obs` observations: options.bound_cache's when it has
// one for these lists, else made (and kept there).
template <class T>
ListBound list_bound_for(Searcher<T>& searcher, std::int64_t n_obs, ListChoice lists, const SearchOptions& options,
                         SearchProfile& profile) {
  const std::int64_t places =
      bound_places(n_obs, static_cast<std::int64_t>(searcher.reference_count()), lists.kc, options);
  if (places == 0) return {};
  ListBoundCache* const cache = options.bound_cache.get();
  if (cache != nullptr && cache->kc == lists.kc && cache->precision == options.precision && cache->places >= places) {
    return cache->bound;
  }
  ListBound bound = searcher.bound_from(places, lists);
  ++profile.bounds_made;
  if (cache != nullptr) *cache = ListBoundCache{lists.kc, options.precision, places, bound};
  return bound;
}

// Rows of the widened pass whose arrays reserve_search allocates: the rows of a round
// whose lists could not prove their answer are few (2525 of 2^24 uniform points at k = 1).
constexpr std::int64_t kWidenedReserve = 65536;

// The device arrays of a search of `n_obs` contiguous observations (and of its first
// widened pass, on kWidenedReserve rows), and its list bound into options.bound_cache:
// allocations and the bound cost milliseconds of each round otherwise. The bound depends
// on the references alone: it is made before the observations' search, as an index is
// built before its queries.
template <class T>
void reserve_in(std::int64_t n_obs, const std::vector<Vec4<double>>& references, const SearchOptions& options) {
  SearchProfile unused;
  const SearchTestHooks hooks;
  const auto n_refs = static_cast<std::int64_t>(references.size());
  Searcher<T> searcher(references, options, hooks, unused);
  const ListChoice lists = first_pass_lists<T>(n_refs, options, hooks);
  searcher.reserve(n_obs, lists);
  (void)list_bound_for(searcher, n_obs, lists, options, unused);
  Searcher<double> widened(references, options, hooks, unused);
  widened.reserve(std::min(n_obs, kWidenedReserve), widened_lists(lists, n_refs, options, hooks));
}

// Observations 0 to n_obs - 1; `out` holds their n_obs x k rows (made by the caller,
// outside the timed search).
template <class T>
void search(const Vec4<double>* observations, std::int64_t n_obs, const std::vector<Vec4<double>>& references,
            const SearchOptions& options, const SearchTestHooks& hooks, SearchProfile& profile, ResultRows out) {
  const std::int64_t n_refs = static_cast<std::int64_t>(references.size());
  if (n_obs <= 0) return;
  ListChoice lists = first_pass_lists<T>(n_refs, options, hooks);
  profile.list_length = lists.kc;
  const double setup_start = wall_seconds();
  Searcher<T> searcher(references, options, hooks, profile);
  const ListBound bound = list_bound_for(searcher, n_obs, lists, options, profile);
  Kokkos::fence();
  profile.setup_seconds = wall_seconds() - setup_start;
  profile.bound_places = static_cast<std::int64_t>(bound.places.extent(0));
  RowList todo = searcher.search_rows(observations, RowSelection::all(n_obs), lists, true, out, bound);
  if (todo.empty()) return;
  // Lists too short to prove the answer: references within the screening window of the
  // k-th that the list could not hold (points closer than the screening precision resolves
  // around the slice's centre, e.g. several dense clusters in one batch, or duplicates).
  // They are searched again in float64 (whose window is about 1e-11 of the radius: only
  // duplicates and near-ties within it need more) with lists four times longer (at least
  // 64 off the registers), until the window closes or every reference is kept.
  Searcher<double> searcher64(references, options, hooks, profile);
  while (!todo.empty()) {
    profile.widened += static_cast<std::int64_t>(todo.size());
    lists = widened_lists(lists, n_refs, options, hooks);
    todo = searcher64.search_rows(observations, RowSelection(todo), lists, false, out);
  }
}

void search_into(const Vec4<double>* observations, std::int64_t n_obs, const std::vector<Vec4<double>>& references,
                 const SearchOptions& options, const SearchTestHooks& hooks, ResultRows rows, SearchProfile* profile) {
  if (options.k < 1 || static_cast<std::size_t>(options.k) > references.size()) {
    throw RunError("knn: k must lie between 1 and the number of references");
  }
  if (references.size() >= static_cast<std::size_t>(kNoIndex)) {
    throw InputError("knn: at most 2147483646 references are supported, got " +
                     std::to_string(references.size()));
  }
  SearchProfile local;
  SearchProfile& p = profile ? *profile : local;
  const double start = wall_seconds();
  if (options.precision == core::Precision::float64) {
    search<double>(observations, n_obs, references, options, hooks, p, rows);
  } else {
    search<float>(observations, n_obs, references, options, hooks, p, rows);
  }
  Kokkos::fence();
  p.search_seconds = wall_seconds() - start;
}

Neighbours nearest_with(const Vec4<double>* observations, std::int64_t n_obs,
                        const std::vector<Vec4<double>>& references, const SearchOptions& options,
                        const SearchTestHooks& hooks, SearchProfile* profile) {
  Neighbours out;  // allocated and touched here, outside the timing
  allocate_rows(out, static_cast<std::size_t>(std::max<std::int64_t>(0, n_obs * options.k)));
  // the result rows page-locked while the search writes them: copies from the device into
  // pageable memory go through the driver's small staging buffers at a fraction of the
  // link's speed
  const transport::PageLock lock_indices(out.indices.data(), out.indices.size() * sizeof(NeighbourIndex));
  const transport::PageLock lock_distances(out.distances.data(), out.distances.size() * sizeof(double));
  search_into(observations, n_obs, references, options, hooks, {out.indices.data(), out.distances.data()}, profile);
  return out;
}

}  // namespace

ListBound list_bound(const std::vector<Vec4<double>>& references, int kc, std::int64_t most_places,
                     const SearchOptions& options) {
  return options.precision == core::Precision::float64 ? list_bound_in<double>(references, kc, most_places, options)
                                        : list_bound_in<float>(references, kc, most_places, options);
}

std::vector<Vec4<double>> unit_vectors(const std::vector<double>& lat_lon) {
  std::vector<Vec4<double>> v(lat_lon.size() / 2);
  unit_vectors_into(lat_lon.data(), static_cast<std::int64_t>(v.size()), v.data());
  return v;
}

void reserve_search(std::int64_t n_obs, const std::vector<Vec4<double>>& references, const SearchOptions& options) {
  if (!options.device_buffers || n_obs <= 0 || references.empty()) return;
  if (options.precision == core::Precision::float64) {
    reserve_in<double>(n_obs, references, options);
  } else {
    reserve_in<float>(n_obs, references, options);
  }
}

std::size_t search_memory_budget(std::size_t held) {
  if constexpr (kOnCuda) {
    const std::int64_t free_bytes = device_free_bytes();
    if (free_bytes >= 0) return (static_cast<std::size_t>(free_bytes) + held) / 2;
  }
  (void)held;
  return std::size_t(2) << 30;
}

Neighbours nearest(const std::vector<Vec4<double>>& observations,
                   const std::vector<Vec4<double>>& references, const SearchOptions& options,
                   SearchProfile* profile) {
  return nearest_with(observations.data(), static_cast<std::int64_t>(observations.size()), references, options,
                      SearchTestHooks{}, profile);
}

Neighbours nearest(const std::vector<Vec4<double>>& observations, const std::vector<Vec4<double>>& references,
                   const SearchOptions& options, const SearchTestHooks& hooks, SearchProfile* profile) {
  return nearest_with(observations.data(), static_cast<std::int64_t>(observations.size()), references, options, hooks,
                      profile);
}

Neighbours nearest(const Vec4<double>* observations, std::int64_t n_obs,
                   const std::vector<Vec4<double>>& references, const SearchOptions& options,
                   SearchProfile* profile) {
  return nearest_with(observations, n_obs, references, options, SearchTestHooks{}, profile);
}

void nearest_into(const Vec4<double>* observations, std::int64_t n_obs,
                  const std::vector<Vec4<double>>& references, const SearchOptions& options, ResultRows rows,
                  SearchProfile* profile) {
  search_into(observations, n_obs, references, options, SearchTestHooks{}, rows, profile);
}

}  // namespace trident::knn
