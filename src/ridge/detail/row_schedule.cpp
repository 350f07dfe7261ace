// Choosing how a product spreads a matrix's rows over threads: lanes per work item, segments
// of long rows and column bands, from the row lengths, the back end and ScheduleOptions.
#include "ridge/detail/row_schedule.hpp"

#include <algorithm>
#include <cstdio>

namespace trident::ridge {

namespace {

// Packs that one lane of a segment reads: long enough that a segment's fixed costs (its
// share of the launch, its partial sum written and read back) are small against its reads.
constexpr std::int64_t kPacksPerLane = 16;
// A row is long when it holds more than this many times the mean: then the threads of
// its work item would run long after the rest of the product has finished.
constexpr double kSkew = 8;
// Most segments of one row: a warp adds their sums (LongRowSums in finish_rows.hpp), each
// thread a run of them in turn; longer rows get longer segments instead.
constexpr std::int64_t kMostSegmentsPerRow = 4096;

}  // namespace

int choose_column_bands(std::int64_t columns, std::size_t vector_bytes, double mean_entries,
                        std::int64_t cache_bytes, const ScheduleOptions& options) {
  const int asked = options.column_bands;
  if (asked < 0) return 1;
  if (options.bands_on_any_matrix && asked > 0) return static_cast<int>(std::min<std::int64_t>(asked, columns));
  const std::int64_t gathered = columns * static_cast<std::int64_t>(vector_bytes);
  const std::int64_t most = static_cast<std::int64_t>(mean_entries / 16);
  if (cache_bytes <= 0 || gathered <= cache_bytes / 2 || most < 2) return 1;
  if (asked > 0) return static_cast<int>(std::min<std::int64_t>(asked, columns));
  const std::int64_t quarter = cache_bytes / 4;
  return static_cast<int>(std::min((gathered + quarter - 1) / quarter, most));
}

bool rows_spread_over_bands(const std::vector<std::int64_t>& pieces, int bands, const ScheduleOptions& options) {
  if (options.bands_on_any_matrix && options.column_bands > 0) return true;
  std::int64_t rows_with_entries = 0, nonempty = 0;
  for (std::size_t i = 0; i + static_cast<std::size_t>(bands) <= pieces.size(); i += static_cast<std::size_t>(bands)) {
    std::int64_t here = 0;
    for (int b = 0; b < bands; ++b) here += pieces[i + static_cast<std::size_t>(b)] > 0;
    rows_with_entries += here > 0;
    nonempty += here;
  }
  return 4 * nonempty >= 3 * rows_with_entries * bands;
}

std::string RowSchedule::describe() const {
  char text[320];
  if (bands > 1)
    std::snprintf(text, sizeof text,
                  "%d lanes, columns in %d bands of %lld, a work item per row and band (longest piece %lld "
                  "packs, mean %.1f)",
                  lanes, bands, static_cast<long long>(band_columns), static_cast<long long>(longest_packs),
                  mean_packs);
  else if (split())
    std::snprintf(text, sizeof text,
                  "%d lanes, rows longer than %d packs cut into segments (%lld work items for %lld rows; "
                  "longest row %lld packs, mean %.1f)",
                  lanes, segment_packs, static_cast<long long>(segments), static_cast<long long>(rows),
                  static_cast<long long>(longest_packs), mean_packs);
  else
    std::snprintf(text, sizeof text, "%d lanes, one work item per row (longest row %lld packs, mean %.1f)", lanes,
                  static_cast<long long>(longest_packs), mean_packs);
  return text;
}

RowSchedule choose_row_schedule(const std::vector<std::int64_t>& row_packs, int max_lanes,
                                std::int64_t fill_threads, int pack_entries, const ScheduleOptions& options) {
  RowSchedule s;
  s.rows = static_cast<std::int64_t>(row_packs.size());
  std::int64_t total = 0;
  for (const std::int64_t p : row_packs) {
    total += p;
    s.longest_packs = std::max(s.longest_packs, p);
  }
  s.mean_packs = s.rows > 0 ? static_cast<double>(total) / static_cast<double>(s.rows) : 0.0;
  if (options.row_lanes > 0)
    s.lanes = std::min(options.row_lanes, max_lanes);
  else
    // A lane per 4 entries of the mean row, rounded up to a power of two: more lanes than
    // that leave most of them idle on short rows (docs/history/ridge.md, "Lanes per row").
    while (s.lanes < max_lanes && s.lanes * 4 < s.mean_packs * pack_entries) s.lanes *= 2;

  const int forced = options.row_segments;
  std::int64_t segment = 0;
  if (forced > 0) {
    segment = forced;
  } else if (forced == 0) {
    const std::int64_t base = kPacksPerLane * s.lanes;
    const bool skewed = static_cast<double>(s.longest_packs) > kSkew * s.mean_packs;
    const bool too_few_threads = s.rows * s.lanes < fill_threads;
    if (s.longest_packs > base && (skewed || too_few_threads)) {
      // Segments of a whole number of the lanes' strides, at most kMostSegmentsPerRow a row.
      const std::int64_t fewest = (s.longest_packs + kMostSegmentsPerRow - 1) / kMostSegmentsPerRow;
      segment = std::max(base, (fewest + s.lanes - 1) / s.lanes * s.lanes);
      if (!skewed) {
        // Even rows too few to fill the device: segments as long as still give it twice its
        // fill in threads. Shorter ones, more of them at once, each gathering from its own
        // stretch of x, thrash the cache (docs/history/ridge.md, "Segments of even rows").
        const std::int64_t items = std::max<std::int64_t>(1, 2 * fill_threads / s.lanes);
        const std::int64_t even = (total / items + s.lanes - 1) / s.lanes * s.lanes;
        segment = std::max(segment, even);
      }
    }
  }
  if (segment > 0 && s.longest_packs > segment) {
    s.segment_packs = static_cast<int>(std::min<std::int64_t>(segment, 1 << 30));
    s.segments = s.rows;
    for (const std::int64_t p : row_packs)
      if (p > s.segment_packs) s.segments += (p + s.segment_packs - 1) / s.segment_packs - 1;
  } else {
    s.segments = s.rows;
  }
  return s;
}

RowSegments cut_segments(const std::vector<std::int64_t>& row_packs, int segment_packs) {
  RowSegments out;
  const std::size_t rows = row_packs.size();
  out.begin.resize(rows);
  out.end.resize(rows);
  out.further_first.push_back(0);
  std::int64_t at = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    out.begin[i] = at;
    out.end[i] = at + std::min<std::int64_t>(row_packs[i], segment_packs);
    if (row_packs[i] > segment_packs) {
      out.long_rows.push_back(static_cast<std::int64_t>(i));
      for (std::int64_t k = segment_packs; k < row_packs[i]; k += segment_packs) {
        out.begin.push_back(at + k);
        out.end.push_back(at + std::min<std::int64_t>(row_packs[i], k + segment_packs));
      }
      out.further_first.push_back(static_cast<std::int64_t>(out.begin.size() - rows));
    }
    at += row_packs[i];
  }
  return out;
}

}  // namespace trident::ridge
