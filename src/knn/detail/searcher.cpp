// The Searcher (searcher.hpp): a pass over batches of observations, each batch in slices
// (slice_pipeline.hpp), each slice screened tile by tile (screen_launch.hpp), then settled
// and written; and the screen of the places for the list bound.
#include "knn/detail/searcher.hpp"

#include <algorithm>
#include <type_traits>
#include <utility>

#include "core/device_buffers.hpp"
#include "core/timers.hpp"
#include "knn/detail/slice_pipeline.hpp"
#include "knn/detail/screen_launch.hpp"
#include "knn/detail/search.hpp"

namespace trident::knn {

namespace {
using HostUnmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
}  // namespace

// Phase timing: fence, then charge the time since the last mark to a phase of the
// profile (a widened pass is charged as a whole, to widened_seconds).
template <class T>
class Searcher<T>::PhaseClock {
 public:
  using Phase = double SearchProfile::*;
  // Starts at `start`, charged to arrays_seconds up to now (after a fence).
  PhaseClock(SearchProfile& profile, bool first_pass, double start) : profile_(profile), first_pass_(first_pass) {
    Kokkos::fence();
    mark_ = wall_seconds();
    profile_.arrays_seconds += mark_ - start;
  }
  void charge(Phase phase) {
    Kokkos::fence();
    charge_fenced(phase);
  }
  // The same after the caller's own fences.
  void charge_fenced(Phase phase) {
    const double now = wall_seconds();
    (first_pass_ ? profile_.*phase : profile_.widened_seconds) += now - mark_;
    mark_ = now;
  }

 private:
  SearchProfile& profile_;
  const bool first_pass_;
  double mark_ = 0.0;
};

template <class T>
Searcher<T>::Searcher(const std::vector<Vec4<double>>& references, const SearchOptions& options,
                      const SearchTestHooks& hooks, SearchProfile& profile)
    : options_(options), hooks_(hooks), profile_(profile), refs64_(references),
      per_team_(kSelectLanes > 1 || hooks.centre_per_team),
      buffers_(options.device_buffers ? options.device_buffers : std::make_shared<core::DeviceBuffers>()) {
  n_refs_ = static_cast<std::int64_t>(references.size());
  budget_ = search_memory_budget(buffers_->held());
  const std::size_t per_ref = sizeof(Vec4<T>) + sizeof(Vec4<double>);
  tile_ = options.tile_size > 0 ? std::min<std::int64_t>(options.tile_size, n_refs_)
          : n_refs_ * per_ref <= budget_ / 2
              ? n_refs_
              : std::max<std::int64_t>(1, static_cast<std::int64_t>(budget_ / 4 / per_ref));
  tiles_ = (n_refs_ + tile_ - 1) / tile_;
  profile_.tiles = tiles_;
  tile_screen_ = buffers_->view<PointsView<T>>(name("reference_tile"), per_team_ ? 0 : tile_);
  tile64_ = buffers_->view<PointsView<double>>(name("reference_tile64"), tile_);
  centre_.point = buffers_->view<decltype(centre_.point)>(name("centre"));
  // replicated references stay for the whole search, and for the next searches that share
  // the buffers (a study's rounds and widened passes), uploaded only by the first
  if (tiles_ == 1 && buffers_->filled_with(name("reference_tile64")) != tile_label(0)) upload_tile(0);
}

template <class T>
void Searcher<T>::reserve(std::int64_t rows, ListChoice lists) {
  const double start = wall_seconds();
  (void)arrays_for(static_cast<int>(batch_rows(rows, lists)), lists);
  (void)slice_spaces(*buffers_, kMaxSliceSpaces, lists);  // the pipelined slices' streams
  Kokkos::fence();
  profile_.arrays_seconds += wall_seconds() - start;
}

template <class T>
RowList Searcher<T>::search_rows(const Vec4<double>* observations, RowSelection which, ListChoice lists,
                                 bool first_pass, ResultRows out, const ListBound& bound) {
  const int k = options_.k;
  const std::int64_t batch = batch_rows(static_cast<std::int64_t>(which.size()), lists);
  const int nb = static_cast<int>(batch);
  // which = 0, 1, 2, ...: batches are slices of the caller's arrays, copied in and out
  // without staging on the host
  const bool contiguous = !which.empty() && which[0] == 0 && which[which.size() - 1] == which.size() - 1;
  const double allocation_start = wall_seconds();
  const BatchArrays a = arrays_for(nb, lists);
  // host staging, never initialized: a first touch of gigabytes of host memory costs more
  // than the whole screen
  HostStaging staging;
  if (!contiguous) {
    const auto no_init = [](const std::string& label) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, label); };
    staging.obs64 = decltype(staging.obs64)(no_init("trident::knn::observations64_host"), nb);
    staging.index = decltype(staging.index)(no_init("trident::knn::indices_host"), nb, k);
    staging.distance = decltype(staging.distance)(no_init("trident::knn::distances_host"), nb, k);
  }
  PhaseClock clock(profile_, first_pass, allocation_start);
  RowList failed;
  const std::int64_t total = which.size();
  for (std::int64_t first = 0; first < total; first += batch) {
    Batch b;
    b.first = first;
    b.n = static_cast<int>(std::min<std::int64_t>(batch, total - first));
    b.contiguous = contiguous;
    b.from = contiguous ? observations + first : staging.obs64.data();
    b.index_to = contiguous ? out.indices + first * k : staging.index.data();
    b.distance_to = contiguous ? out.distances + first * k : staging.distance.data();
    search_batch(observations, which, b, lists, a, staging, out, bound, clock, failed);
  }
  return failed;
}

// Slices: transfers of one overlap the kernels of the next (contiguous batches with
// resident references only: tiles would be uploaded again for every slice). Appends the
// rows whose lists could not prove their answer to `failed`.
template <class T>
void Searcher<T>::search_batch(const Vec4<double>* observations, RowSelection which, const Batch& b,
                               ListChoice lists, const BatchArrays& a, const HostStaging& staging, ResultRows out,
                               const ListBound& bound, PhaseClock& clock, RowList& failed) {
  const int n = b.n, k = options_.k;
  ++profile_.batches;
  const int slices = slice_count(n, screen_threads<T>(n, lists), b.contiguous && tiles_ == 1, options_.slices,
                                 options_.ordered_by_place);
  SliceTransfers transfers(slices > 1);
  Kokkos::deep_copy(a.unproven_count, 0);
  if (!b.contiguous) {
    for (int o = 0; o < n; ++o) staging.obs64(o) = observations[which[b.first + o]];
  }
  const std::vector<int> starts = slice_starts(n, slices);
  const std::vector<ExecSpace> spaces = slice_spaces(*buffers_, starts.size() - 1, lists);
  if (slices > 1) profile_.pipelined_slices += static_cast<std::int64_t>(starts.size()) - 1;
  for (std::size_t ci = 0; ci + 1 < starts.size(); ++ci) {
    space_ = spaces[std::min(ci, spaces.size() - 1)];
    search_slice(b, starts[ci], starts[ci + 1] - starts[ci], slices == 1, lists, a, bound, transfers, clock);
  }
  space_ = ExecSpace();
  if (slices > 1) {
    for (const ExecSpace& space : spaces) space.fence();  // the kernels; copies may still run
    clock.charge_fenced(&SearchProfile::screen_seconds);
  }
  const std::vector<int> unproven = gather_unproven(a, n);
  keep_timeline(transfers.finish(), starts.size() - 1, n);
  for (int o : unproven) failed.push_back(b.contiguous ? b.first + o : which[b.first + o]);
  if (!b.contiguous) {
    // the staged rows to the caller's, but for the unproven (the wider search writes those)
    std::size_t next_unproven = 0;
    for (int o = 0; o < n; ++o) {
      const std::int64_t row = which[b.first + o];
      if (next_unproven < unproven.size() && unproven[next_unproven] == o) {
        ++next_unproven;
        continue;
      }
      for (int i = 0; i < k; ++i) {
        out.indices[row * k + i] = staging.index(o, i);
        out.distances[row * k + i] = staging.distance(o, i);
      }
    }
  }
  clock.charge(&SearchProfile::download_seconds);
}

// Rows [c0, c0 + cn) of the batch: their observations up, their lists screened, settled
// and ordered, their rows written and sent down. `timed`: a batch of one slice, whose
// phases are charged one by one (the slices of a pipelined batch overlap).
template <class T>
void Searcher<T>::search_slice(const Batch& b, int c0, int cn, bool timed, ListChoice lists, const BatchArrays& a,
                               const ListBound& bound, SliceTransfers& transfers, PhaseClock& clock) {
  transfers.upload(space_, a.obs64.data() + c0, b.from + c0, static_cast<std::size_t>(cn) * sizeof(Vec4<double>));
  if (timed) clock.charge(&SearchProfile::upload_seconds);
  start_lists(a.frame, a.best, a.best_index, c0, cn, bound);
  screen_tiles(a.frame, a.best, a.best_index, c0, cn, lists);
  if (timed) clock.charge(&SearchProfile::screen_seconds);
  settle_slice(a, c0, cn, lists.kc);
  if (timed) clock.charge(&SearchProfile::settle_seconds);
  const std::size_t row0 = static_cast<std::size_t>(c0) * options_.k, rows = static_cast<std::size_t>(cn) * options_.k;
  transfers.download(space_, b.index_to + row0, a.out_index.data() + row0, rows * sizeof(NeighbourIndex));
  transfers.download(space_, b.distance_to + row0, a.out_distance.data() + row0, rows * sizeof(double));
}

// Bound, settle (tile by tile, the last first: the screen left it on the device), order,
// and the first k entries of each list into the rows.
template <class T>
void Searcher<T>::settle_slice(const BatchArrays& a, int c0, int cn, int kc) {
  const int k = options_.k;
  const int kept = static_cast<int>(std::min<std::int64_t>(kc, n_refs_));
  const auto range = Kokkos::RangePolicy<ExecSpace>(space_, c0, c0 + cn);
  Kokkos::parallel_for("trident::knn::bound", range, Bound<T>{a.best, a.count, a.offset, k, kept, kept == n_refs_});
  for (std::int64_t tile = tiles_ - 1; tile >= 0; --tile) {
    if (tile + 1 < tiles_) upload_tile(tile);
    Settle settle{a.obs64, tile64_, a.best_index, a.count, a.angle, static_cast<int>(tile * tile_),
                  static_cast<int>(tile_count(tile))};
    Kokkos::parallel_for("trident::knn::settle", range, settle);
  }
  Kokkos::parallel_for("trident::knn::order", range, Order{a.best_index, a.count, a.angle, k, kept == n_refs_});
  const int rows_per_team = WriteRows::rows_for(k);
  Kokkos::parallel_for("trident::knn::write_rows",
                       Kokkos::TeamPolicy<ExecSpace>(space_, (cn + rows_per_team - 1) / rows_per_team, Kokkos::AUTO),
                       WriteRows{a.best_index, a.angle, a.out_index, a.out_distance, k, c0, cn, rows_per_team,
                                 options_.radius});
}

template <class T>
std::vector<int> Searcher<T>::gather_unproven(const BatchArrays& a, int n) {
  const Counts count = a.count, unproven = a.unproven;
  const Kokkos::View<int, DeviceMemory> unproven_count = a.unproven_count;
  Kokkos::parallel_for(
      "trident::knn::gather_unproven", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(int o) {
        if (count(o) < 0) unproven(Kokkos::atomic_fetch_add(&unproven_count(), 1)) = o;
      });
  int n_failed = 0;
  Kokkos::deep_copy(n_failed, unproven_count);
  std::vector<int> rows(static_cast<std::size_t>(n_failed));
  if (n_failed > 0) {
    Kokkos::View<int*, Kokkos::HostSpace, HostUnmanaged> rows_host(rows.data(), rows.size());
    Kokkos::deep_copy(rows_host, Kokkos::subview(unproven, std::make_pair(0, n_failed)));
    std::sort(rows.begin(), rows.end());
  }
  return rows;
}

// The timeline of the pipelined batch of most rows: two downloads a slice, its rows ready
// at the indices' and down with the distances'.
template <class T>
void Searcher<T>::keep_timeline(const std::vector<SearchProfile::SliceTimes>& downloads, std::size_t slices, int n) {
  if (downloads.size() != 2 * slices || n <= profile_.slice_times_rows) return;
  profile_.slice_times.clear();
  for (std::size_t d = 0; d < downloads.size(); d += 2)
    profile_.slice_times.push_back({downloads[d].ready_ms, downloads[d + 1].downloaded_ms});
  profile_.slice_times_rows = n;
}

template <class T>
ListBound Searcher<T>::bound_from(std::int64_t most_places, ListChoice lists) {
  const ListBound bound = ListBound::places_of(refs64_, most_places);
  if (bound.places.extent(0) > 0) find_reaches(bound.places, lists);
  return bound;
}

// The window's limit bounds the true chord of the entry (geometry.hpp: at most sqrt(S) +
// B(S)). Places are few: the buffer screen, a thread a place walking every reference,
// would leave most of the device idle, so the any-k screen takes its lists (a lane group
// per 4 places).
template <class T>
void Searcher<T>::find_reaches(const PointsView<double>& places, ListChoice lists) {
  if (lists.kind == ListKind::buffers) lists.kind = ListKind::select;
  const int n = static_cast<int>(places.extent(0)), kc = lists.kc;
  int columns = kc * (lists.kind == ListKind::registers ? max_segments(n, tile_, hooks_.segments) : 1);
  // (one segment when the segments' lists would take more than a quarter of the budget)
  if (static_cast<std::size_t>(n) * static_cast<std::size_t>(columns) * (sizeof(T) + sizeof(int)) > budget_ / 4) {
    columns = kc;
  }
  core::DeviceBuffers& b = *buffers_;
  const auto places_screen = b.view<PointsView<T>>(name("places_screen"), per_team_ ? 0 : n);
  const auto offset = b.view<Kokkos::View<double*, DeviceMemory>>(name("place_offsets"), n);
  const auto best = b.view<ListValues<T>>(name("place_list_values"), n, columns);
  const auto best_index = b.view<ListIndices>(name("place_list_indices"), n, columns);
  const ScreenFrame<T> frame{places_screen, tile_screen_, places, tile64_, offset, per_team_};
  start_lists(frame, best, best_index, 0, n, ListBound{});
  screen_tiles(frame, best, best_index, 0, n, lists);
  Kokkos::parallel_for(
      "trident::knn::place_reaches", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(int j) { places(j).w = ScreeningWindow<T>(best(j, kc - 1), offset(j)).limit; });
}

// Per slice (host back ends) the screening coordinates are relative to a centre of the
// slice's observations (per team the screens make their own: see ScreenFrame); every
// column of every list (the other segments' too: see RegisterScreen) starts as (start,
// kNoIndex), the start from `bound` (list_bound.hpp; +inf without places).
template <class T>
void Searcher<T>::start_lists(const ScreenFrame<T>& frame, const ListValues<T>& best, const ListIndices& best_index,
                              int c0, int cn, const ListBound& bound) {
  if (!per_team_) {
    Kokkos::parallel_for("trident::knn::find_centre", Kokkos::RangePolicy<ExecSpace>(space_, 0, 1),
                         FindCentre{frame.obs64, centre_, c0, cn});
  }
  const Centre centre = centre_;
  const bool per_team = per_team_;
  const int columns = static_cast<int>(best.extent(1));
  const PointsView<T> obs_screen = frame.obs;
  const PointsView<double> obs64 = frame.obs64;
  const Kokkos::View<double*, DeviceMemory> offset = frame.offset;
  Kokkos::parallel_for(
      "trident::knn::init_lists", Kokkos::RangePolicy<ExecSpace>(space_, c0, c0 + cn), KOKKOS_LAMBDA(int o) {
        if (!per_team) {  // the screening copy, made once per slice
          obs_screen(o) = centre.relative<T>(obs64(o));
          offset(o) = centre.offset(obs64(o));
        }
        const T start = bound.template start_value<T>(obs64(o));
        for (int i = 0; i < columns; ++i) {
          best(o, i) = start;
          best_index(o, i) = kNoIndex;
        }
      });
}

// Screens every tile into the lists of rows [c0, c0 + cn), merging segments.
template <class T>
void Searcher<T>::screen_tiles(const ScreenFrame<T>& frame, const ListValues<T>& best, const ListIndices& best_index,
                               int c0, int cn, ListChoice lists) {
  const ScreenLaunch<T> launch(space_, hooks_.segments);
  for (std::int64_t tile = 0; tile < tiles_; ++tile) {
    if (tiles_ > 1) upload_tile(tile);
    if (!per_team_) screen_copy(tile);
    const int segments = launch.run(frame, best, best_index, c0, cn, static_cast<int>(tile * tile_),
                                    static_cast<int>(tile_count(tile)), lists);
    if (segments > 1) {
      Kokkos::parallel_for("trident::knn::merge_segments", Kokkos::RangePolicy<ExecSpace>(space_, c0, c0 + cn),
                           MergeSegments<T>{best, best_index, lists.kc, segments});
    }
  }
}

template <class T>
std::int64_t Searcher<T>::tile_count(std::int64_t tile) const {
  return std::min<std::int64_t>(tile_, n_refs_ - tile * tile_);
}

// The tile's float64 unit vectors to the device.
template <class T>
void Searcher<T>::upload_tile(std::int64_t tile) {
  const std::int64_t first = tile * tile_, n = tile_count(tile);
  const auto range = std::make_pair<std::size_t, std::size_t>(0, static_cast<std::size_t>(n));
  Kokkos::View<const Vec4<double>*, Kokkos::HostSpace, HostUnmanaged> host(refs64_.data() + first, n);
  Kokkos::deep_copy(Kokkos::subview(tile64_, range), host);
  buffers_->mark_filled(name("reference_tile64"), tile_label(tile));
  ++profile_.reference_uploads;
}

// What the reference tile buffer holds after upload_tile(tile): which references (the
// searches that share device buffers share their references: SearchOptions), which rows.
template <class T>
std::string Searcher<T>::tile_label(std::int64_t tile) const {
  return std::to_string(reinterpret_cast<std::uintptr_t>(refs64_.data())) + ":" + std::to_string(n_refs_) + ":" +
         std::to_string(tile * tile_) + "+" + std::to_string(tile_count(tile));
}

// The uploaded tile's screening coordinates, relative to the current slice's centre.
template <class T>
void Searcher<T>::screen_copy(std::int64_t tile) {
  Kokkos::parallel_for("trident::knn::screen_references", Kokkos::RangePolicy<ExecSpace>(space_, 0, tile_count(tile)),
                       RelativeCopy<T>{tile64_, tile_screen_, centre_});
}

// Rows of a batch of a search of `rows` observations with `lists`: as many as the memory
// budget holds beside the resident references (segment lists only matter for batches too
// small to fill the device: not counted).
template <class T>
std::int64_t Searcher<T>::batch_rows(std::int64_t rows, ListChoice lists) const {
  const std::size_t resident = static_cast<std::size_t>(tile_) * (sizeof(Vec4<T>) + sizeof(Vec4<double>));
  const std::size_t per_obs = sizeof(Vec4<T>) + sizeof(Vec4<double>) + sizeof(double) +
                              static_cast<std::size_t>(lists.kc) * (sizeof(T) + sizeof(int) + sizeof(double)) +
                              sizeof(int) + static_cast<std::size_t>(options_.k) * (sizeof(NeighbourIndex) + sizeof(double));
  const std::size_t room = budget_ > resident ? budget_ - resident : budget_ / 4;
  std::int64_t batch = std::max<std::int64_t>(1, static_cast<std::int64_t>(room / per_obs));
  batch = std::min<std::int64_t>({batch, rows, 1 << 30});
  if (options_.batch_size > 0) batch = std::min(batch, options_.batch_size);
  return batch;
}

template <class T>
typename Searcher<T>::BatchArrays Searcher<T>::arrays_for(int nb, ListChoice lists) {
  core::DeviceBuffers& b = *buffers_;
  BatchArrays a;
  const PointsView<T> obs_screen = b.view<PointsView<T>>(name("observations"), per_team_ ? 0 : nb);
  a.obs64 = b.view<PointsView<double>>(name("observations64"), nb);
  a.offset = b.view<Kokkos::View<double*, DeviceMemory>>(name("offsets"), nb);
  a.frame = ScreenFrame<T>{obs_screen, tile_screen_, a.obs64, tile64_, a.offset, per_team_};
  // register lists get extra columns for the reference segments of small batches
  const int columns = lists.kc * (lists.kind == ListKind::registers ? max_segments(nb, tile_, hooks_.segments) : 1);
  a.best = b.view<ListValues<T>>(name("list_values"), nb, columns);
  a.best_index = b.view<ListIndices>(name("list_indices"), nb, columns);
  a.angle = b.view<Distances>(name("list_angles"), nb, lists.kc);
  a.count = b.view<Counts>(name("settle_counts"), nb);
  a.out_index = b.view<OutIndices>(name("indices"), nb, options_.k);
  a.out_distance = b.view<OutDistances>(name("distances"), nb, options_.k);
  a.unproven = b.view<Counts>(name("unproven_rows"), nb);
  a.unproven_count = b.view<Kokkos::View<int, DeviceMemory>>(name("unproven_count"));
  return a;
}

// A device buffer's name: the float32 and float64 searchers' differ.
template <class T>
std::string Searcher<T>::name(const char* what) {
  return std::string("knn::") + what + (std::is_same<T, float>::value ? "_f32" : "_f64");
}

template class Searcher<float>;
template class Searcher<double>;

}  // namespace trident::knn
