#pragma once
// How the fused engine spreads a matrix's rows over GPU threads in a product, chosen once
// at setup from the row lengths (device_csr.hpp runs it):
//  - lanes: threads that share a work item, a power of two up to the back end's most
//    (row_lanes()): about a lane per 4 entries of the mean row (a pack of 4 floats, two
//    packs of 2 doubles), so that short rows do not leave most of their lanes idle;
//  - segments: when a few rows are far longer than the rest (power-law rows, dense rows;
//    a dense column of A is a dense row of A^T), or when long rows are too few to give the
//    device enough threads (a tall matrix with few columns: A^T has few, long rows), rows
//    longer than segment_packs are cut into segments of segment_packs packs, each a work
//    item of its own, and a pass over those long rows alone adds each one's segment sums
//    (a warp per group of rows, in a fixed order). Otherwise (even rows) a row is one work
//    item: the fast path, one launch fewer.
// The schedule depends only on the matrix, the back end and ScheduleOptions, never on the
// rank count or the λ, and every sum has a fixed order: results stay bitwise the same over
// rank counts.
#include <cstdint>
#include <string>
#include <vector>

#include "core/overrides.hpp"

namespace trident::ridge {

// What may override the automatic schedule: the TRIDENT_RIDGE_* knobs, for comparing
// schedules on one matrix without rebuilding (from_overrides), and tests, which set the
// fields to send small matrices down the segmented or banded paths.
struct ScheduleOptions {
  // Segment length in packs: 0 chosen from the rows, -1 never cut, n > 0 segments of n
  // packs whenever a row is longer (TRIDENT_RIDGE_ROW_SEGMENTS).
  core::AutoOffCount row_segments = 0;
  // Lanes per work item: 0 chosen from the rows, else 1, 2, 4, 8, 16 or 32, at most the
  // back end's most (TRIDENT_RIDGE_ROW_LANES).
  int row_lanes = 0;
  // Column bands: 0 chosen from the cache, -1 none, n > 0 n bands where bands are used
  // (TRIDENT_RIDGE_COLUMN_BANDS).
  core::AutoOffCount column_bands = 0;
  // Tests: column_bands (n > 0) on every matrix whose rows are not cut, whatever its size
  // and however its rows spread, so that small matrices on host back ends are banded too.
  bool bands_on_any_matrix = false;

  static ScheduleOptions from_overrides(const core::Overrides& overrides) {
    ScheduleOptions o;
    o.row_segments = overrides.ridge_row_segments;
    o.row_lanes = overrides.ridge_row_lanes;
    o.column_bands = overrides.ridge_column_bands;
    return o;
  }
};

struct RowSchedule {
  int lanes = 1;          // threads per work item
  int segment_packs = 0;  // 0: one work item per row; otherwise the most packs of a segment
  int bands = 1;                     // column bands (choose_column_bands); 1: none
  std::int64_t band_columns = 0;     // columns a band holds (the last may hold fewer)
  std::int64_t rows = 0;
  std::int64_t segments = 0;  // work items: the rows, and the further segments of long rows
  std::int64_t longest_packs = 0;
  double mean_packs = 0;
  bool split() const { return segment_packs > 0; }
  // "16 lanes, rows cut into segments of 256 packs (4104 segments; longest row 262144
  // packs, mean 16.0)" for the run log.
  std::string describe() const;
};

// The schedule for rows of `row_packs[i]` packs of `pack_entries` entries on a back end
// that gives a work item at most `max_lanes` lanes (a power of two) and wants at least
// `fill_threads` threads in a product (0: any number; host back ends); `options`' lanes and
// segments where they are set.
RowSchedule choose_row_schedule(const std::vector<std::int64_t>& row_packs, int max_lanes,
                                std::int64_t fill_threads = 0, int pack_entries = 4,
                                const ScheduleOptions& options = {});

// Column bands, for a product whose gathered vector x is larger than the device's cache
// can hold beside the matrix's stream (A^T u of a 2^23 x 2^20 matrix gathers from 32 MB of
// u): the columns are split into `bands` ranges, each row into the pieces that fall in each
// range (each padded to whole packs), and the products run band after band, every row's
// piece of band 0 first, so that the gathers in flight hit one range of x. Each row's sum
// adds its pieces in band order. Bands are used when x is larger than half of
// `cache_bytes` (0: a host back end, never) and the mean row holds at least 32 entries:
// about one band per quarter of the cache, at most one per 16 entries of the mean row (a
// piece of fewer would be mostly padding). Rows cut into segments are never banded.
// options.column_bands turns bands off or sets their count where they are used (or on any
// matrix, with bands_on_any_matrix; never more bands than columns).
int choose_column_bands(std::int64_t columns, std::size_t vector_bytes, double mean_entries,
                        std::int64_t cache_bytes, const ScheduleOptions& options = {});
// Whether rows cut into `bands` pieces (`pieces[i * bands + b]` entries) spread over the
// bands: at least 3/4 of the pieces of rows that hold entries are nonempty. Banded or
// block-diagonal rows, whose columns are close together, already gather from a small range
// of x each; cut, most of their pieces would be empty work items. Always true with
// options.bands_on_any_matrix and bands asked for.
bool rows_spread_over_bands(const std::vector<std::int64_t>& pieces, int bands,
                            const ScheduleOptions& options = {});

// The work items of rows cut at `segment_packs` packs. Item i < rows is row i's first
// segment: the whole row unless it is longer (an empty item for an empty row), so that the
// pass that finishes the rows finds row i's sum at item i, as when no row is cut. Each long
// row's further segments are the items after the rows, in row order.
struct RowSegments {
  std::vector<std::int64_t> begin, end;      // each item's first pack and one past its last
  std::vector<std::int64_t> long_rows;       // the rows longer than a segment, ascending
  std::vector<std::int64_t> further_first;   // long rows + 1: where each one's further
                                             // segments start, counted from item `rows`
};
RowSegments cut_segments(const std::vector<std::int64_t>& row_packs, int segment_packs);

}  // namespace trident::ridge
