// SearchProfile::add: one search's profile added to the rounds' total.
#include "knn/detail/search_profile.hpp"

#include <algorithm>

namespace trident::knn {

void SearchProfile::add(const SearchProfile& s) {
  batches += s.batches;
  tiles = s.tiles;
  widened += s.widened;
  if (list_length == 0) list_length = s.list_length;
  search_seconds += s.search_seconds;
  upload_seconds += s.upload_seconds;
  screen_seconds += s.screen_seconds;
  settle_seconds += s.settle_seconds;
  download_seconds += s.download_seconds;
  widened_seconds += s.widened_seconds;
  pipelined_slices += s.pipelined_slices;
  setup_seconds += s.setup_seconds;
  arrays_seconds += s.arrays_seconds;
  bound_places = std::max(bound_places, s.bound_places);
  bounds_made += s.bounds_made;
  reference_uploads += s.reference_uploads;
  index_leaves += s.index_leaves;
  index_rows += s.index_rows;
  if (s.slice_times_rows > slice_times_rows) {
    slice_times = s.slice_times;
    slice_times_rows = s.slice_times_rows;
  }
}

}  // namespace trident::knn
