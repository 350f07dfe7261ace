#include "diffusion/detail/trip_tiles.hpp"

#include <algorithm>
#include <cstdint>

namespace trident::diffusion {

namespace {

int bands_of(const Box& b, int rows) { return b.empty() ? 0 : (b.y1 - b.y0 + rows - 1) / rows; }

std::int64_t tiles_of(const Box* boxes, int count, int columns, int rows) {
  std::int64_t tiles = 0;
  for (int p = 0; p < count; ++p) tiles += std::int64_t(strips_across(boxes[p], columns)) * bands_of(boxes[p], rows);
  return tiles;
}

// The rows of a band: tall bands recompute fewer overlap rows (2 m a tile), but a last wave
// of teams that fills only part of the device leaves the rest idle. So: the fewest rows (at
// least kMinRows) whose tiles fill a whole number of waves of `resident` teams.
int wave_rows(const Box* boxes, int count, int columns, int resident) {
  constexpr int kMinRows = 16, kRowsPerWave = 128;
  std::int64_t work = 0;  // strips times rows
  int tallest = 1;
  for (int p = 0; p < count; ++p) {
    if (boxes[p].empty()) continue;
    work += std::int64_t(strips_across(boxes[p], columns)) * (boxes[p].y1 - boxes[p].y0);
    tallest = std::max(tallest, boxes[p].y1 - boxes[p].y0);
  }
  const std::int64_t waves = std::max<std::int64_t>(1, work / (std::int64_t(resident) * kRowsPerWave));
  const std::int64_t budget = waves * resident;
  int low = std::min(kMinRows, tallest), high = tallest;  // the least rows with tiles_of <= budget
  if (tiles_of(boxes, count, columns, low) <= budget) return low;
  while (high - low > 1) {
    const int mid = low + (high - low) / 2;
    (tiles_of(boxes, count, columns, mid) <= budget ? high : low) = mid;
  }
  return high;
}

}  // namespace

TilePlan plan_tiles(const Trip& trip, int m, int resident, const TripShape& shape) {
  TilePlan plan;
  const int widest = kTripColumns - 2 * m;
  plan.columns = shape.columns > 0 ? std::min(shape.columns, widest) : widest;
  if (shape.tail_rows > 0) {
    plan.tail_rows = shape.tail_rows;
    plan.tail_height = shape.tail_rows * std::max(shape.tail_bands, 1);
  }
  Box head[Trip::kMaxKeeps], tail[Trip::kMaxKeeps];
  for (int p = 0; p < trip.keeps; ++p) {
    const Box& keep = trip.keep[p];
    const int split = plan.split(keep);
    head[p] = {keep.y0, split, keep.x0, keep.x1};
    tail[p] = {split, keep.y1, keep.x0, keep.x1};
  }
  plan.rows = shape.rows > 0 ? shape.rows : wave_rows(head, trip.keeps, plan.columns, resident);
  for (int g = 0; g < TilePlan::kMaxGroups; ++g) {
    plan.first_tile[g] = plan.tiles;
    if (g < trip.keeps) plan.tiles += strips_across(head[g], plan.columns) * bands_of(head[g], plan.rows);
    else if (g < 2 * trip.keeps)
      plan.tiles += strips_across(tail[g - trip.keeps], plan.columns) * bands_of(tail[g - trip.keeps], plan.tail_rows);
  }
  return plan;
}

}  // namespace trident::diffusion
