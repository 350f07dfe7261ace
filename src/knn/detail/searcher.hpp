#pragma once
// The Searcher: one pass of the search of a batch of observations against these
// references on this rank's device, in screening precision T (float or double). It owns
// the references' device tiles and, per batch, screens the lists (starting at an optional
// bound), settles them in float64, writes the finished rows and returns the rows whose
// lists were too short to prove their answer. search.cpp drives it: a first pass, then
// widened passes in float64.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "knn/detail/list_bound.hpp"
#include "knn/detail/list_choice.hpp"
#include "knn/detail/result_rows.hpp"
#include "knn/detail/row_list.hpp"
#include "knn/detail/screen_kernels.hpp"
#include "knn/detail/search_options.hpp"
#include "knn/detail/search_profile.hpp"
#include "knn/detail/search_test_hooks.hpp"
#include "knn/detail/settle_kernels.hpp"

namespace trident::core {
class DeviceBuffers;  // core/device_buffers.hpp
}

namespace trident::knn {

class SliceTransfers;  // slice_pipeline.hpp

template <class T>
class Searcher {
 public:
  // Over `references` (kept where they are: the Searcher refers to them), with the device
  // arrays of options.device_buffers (or its own), counting into `profile`.
  Searcher(const std::vector<Vec4<double>>& references, const SearchOptions& options, const SearchTestHooks& hooks,
           SearchProfile& profile);

  std::int64_t reference_count() const { return n_refs_; }

  // Searches observations `which` (of `observations`, host memory) with lists `lists`,
  // each list starting at `bound` (empty: +inf), in device batches; writes the finished
  // rows to `out` (row i of observations[i]) and returns the observations whose lists were
  // too short to prove their answer, ascending. `first_pass` charges the phases of the
  // profile, else its widened_seconds.
  RowList search_rows(const Vec4<double>* observations, RowSelection which, ListChoice lists, bool first_pass,
                      ResultRows out, const ListBound& bound = ListBound{});

  // The list bound (list_bound.hpp) from at most `most_places` places, their reaches found
  // with lists like `lists`.
  ListBound bound_from(std::int64_t most_places, ListChoice lists);

  // Allocates (in the device buffers) the arrays of a search of `rows` contiguous
  // observations with `lists`.
  void reserve(std::int64_t rows, ListChoice lists);

  // A batch's device arrays: views over the device buffers (valid until the next batch).
  struct BatchArrays {
    PointsView<double> obs64;
    Kokkos::View<double*, DeviceMemory> offset;
    ScreenFrame<T> frame;
    ListValues<T> best;
    ListIndices best_index;
    Distances angle;
    Counts count;
    OutIndices out_index;
    OutDistances out_distance;
    // the batch rows whose lists could not prove the answer, gathered on the device so
    // that only they come back (an atomic counter; sorted on the host)
    Counts unproven;
    Kokkos::View<int, DeviceMemory> unproven_count;
  };

  // Steps of the passes, public only because nvcc takes no extended lambda (KOKKOS_LAMBDA)
  // in a private member function.

  // Sets places(j).w to place j's reach (list_bound.hpp): the limit of the screening
  // window of its lists' last entry, a chord within which at least lists.kc references
  // lie. A screen of the places as observations, without settling or downloading.
  void find_reaches(const PointsView<double>& places, ListChoice lists);
  // The lists of rows [c0, c0 + cn) of a batch set to (start, kNoIndex), the start from
  // `bound`; per slice (host back ends) the slice's screening coordinates first.
  void start_lists(const ScreenFrame<T>& frame, const ListValues<T>& best, const ListIndices& best_index, int c0,
                   int cn, const ListBound& bound);
  // The rows of the first `n` of a batch whose lists could not prove their answer,
  // ascending.
  std::vector<int> gather_unproven(const BatchArrays& a, int n);

 private:
  // Host staging of a pass over scattered rows (a widened pass): their observations and
  // rows; empty for contiguous rows, which go straight from and to the caller's arrays.
  struct HostStaging {
    Kokkos::View<Vec4<double>*, Kokkos::HostSpace> obs64;
    Kokkos::View<NeighbourIndex**, Kokkos::LayoutRight, Kokkos::HostSpace> index;
    Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> distance;
  };
  // One batch of a pass: rows which[first], ..., which[first + n - 1], their observations
  // at `from` and their result rows at `index_to`/`distance_to` (the caller's arrays, or
  // the staging when the rows are scattered), row r of the batch at from + r, index_to +
  // r k and distance_to + r k.
  struct Batch {
    std::int64_t first = 0;
    int n = 0;
    bool contiguous = true;
    const Vec4<double>* from = nullptr;
    NeighbourIndex* index_to = nullptr;
    double* distance_to = nullptr;
  };
  class PhaseClock;

  void search_batch(const Vec4<double>* observations, RowSelection which, const Batch& batch, ListChoice lists,
                    const BatchArrays& a, const HostStaging& staging, ResultRows out, const ListBound& bound,
                    PhaseClock& clock, RowList& failed);
  void search_slice(const Batch& batch, int c0, int cn, bool timed, ListChoice lists, const BatchArrays& a,
                    const ListBound& bound, SliceTransfers& transfers, PhaseClock& clock);
  void settle_slice(const BatchArrays& a, int c0, int cn, int kc);
  void keep_timeline(const std::vector<SearchProfile::SliceTimes>& downloads, std::size_t slices, int n);
  void screen_tiles(const ScreenFrame<T>& frame, const ListValues<T>& best, const ListIndices& best_index, int c0,
                    int cn, ListChoice lists);
  std::int64_t tile_count(std::int64_t tile) const;
  void upload_tile(std::int64_t tile);
  std::string tile_label(std::int64_t tile) const;
  void screen_copy(std::int64_t tile);
  std::int64_t batch_rows(std::int64_t rows, ListChoice lists) const;
  BatchArrays arrays_for(int nb, ListChoice lists);
  static std::string name(const char* what);

  const SearchOptions& options_;
  const SearchTestHooks hooks_;
  SearchProfile& profile_;
  const std::vector<Vec4<double>>& refs64_;
  const bool per_team_;  // screening coordinates per team, else per slice (ScreenFrame)
  // the device arrays (the caller's, kept between searches, or this search's own); the
  // float32 and float64 searchers of one search use different names, so that both may live
  const std::shared_ptr<core::DeviceBuffers> buffers_;
  Centre centre_;
  std::int64_t n_refs_ = 0, tile_ = 0, tiles_ = 0;
  std::size_t budget_ = 0;
  PointsView<T> tile_screen_;
  PointsView<double> tile64_;
  ExecSpace space_;  // where the kernels of the slice under way run
};

extern template class Searcher<float>;
extern template class Searcher<double>;

}  // namespace trident::knn
