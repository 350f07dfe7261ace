#pragma once
// What a search measured of itself, for the benchmarks and the run log: counts (batches,
// tiles, rows searched again), the time of each phase, and the slice timeline of its
// largest pipelined batch. Never part of the results: the rows (result_rows.hpp) are the
// same whatever is measured here.
#include <cstdint>
#include <vector>

namespace trident::knn {

struct SearchProfile {
  std::int64_t batches = 0;        // device batches, all passes
  std::int64_t tiles = 0;          // reference tiles
  std::int64_t widened = 0;        // observations searched again with a longer list
  std::int64_t list_length = 0;    // entries kept per observation in the first pass
  double search_seconds = 0.0;     // whole search, including transfers
  // its parts (each measured between device fences): observations to the device, the
  // screen (with segment merging), bound + settle + order, results back, widened passes
  double upload_seconds = 0.0, screen_seconds = 0.0, settle_seconds = 0.0,
         download_seconds = 0.0, widened_seconds = 0.0;
  // batches split into slices whose transfers overlap the kernels of their neighbours:
  // then screen_seconds holds upload + screen + settle of all slices and download_seconds
  // the transfers still running after the last kernel
  std::int64_t pipelined_slices = 0;
  double setup_seconds = 0.0;  // the references' device copies and the search's setup
  // the batches' device arrays allocated during the search (fenced; none once reserved:
  // reserve_search), and the first round of a search in rounds, whole (rounds.hpp: its
  // fixed costs weigh on every rank count)
  double arrays_seconds = 0.0, first_round_seconds = 0.0;
  // a search in rounds: page-locking the rank's result rows before the first round and
  // unlocking them after the last (outside search_seconds)
  double page_lock_seconds = 0.0;
  std::int64_t bound_places = 0;  // places of the first pass's list bound (0: lists started empty)
  std::int64_t bounds_made = 0;   // list bounds made (a search in rounds reuses one)
  // rows a search in rounds put in the order of their places after a round searched many
  // again (rounds.hpp)
  std::int64_t reordered_rows = 0;
  std::int64_t reference_uploads = 0;  // reference tiles copied to the device
  // a search through the spatial index (index/index_search.hpp): leaves screened, and rows
  // screened (every pass), for the leaves a row
  std::int64_t index_leaves = 0, index_rows = 0;
  // the pipelined batch of most rows (on GPUs): for each slice, when its rows were ready on
  // the device and when they were in host memory, in ms after the batch's first upload was
  // queued; tells rows that wait for the link from rows that wait for the screen
  struct SliceTimes {
    double ready_ms = 0.0, downloaded_ms = 0.0;
  };
  std::vector<SliceTimes> slice_times;
  std::int64_t slice_times_rows = 0;  // the rows of that batch

  // Adds the profile of one more search over the same references (a round of rounds.hpp):
  // counts and times summed, the largest batch's timeline kept.
  void add(const SearchProfile& s);
};

}  // namespace trident::knn
