#pragma once
// How a trip's kept boxes are cut into the tiles that teams take (trip.cpp): strips of
// columns, bands of rows. A team recomputes m rows and m columns on each side of its tile
// (the overlap), so tall tiles waste less; but the teams of one wave finish apart, and the
// device then idles. A shape may end each kept box in a tail of short bands, whose tiles
// come after all the others (teams start in league rank order), for the teams that finish
// first (it gained little on an H100: docs/history/diffusion.md).
#include "diffusion/detail/trip.hpp"

namespace trident::diffusion {

// The strips of `columns` kept columns each that cover box b's columns.
KOKKOS_INLINE_FUNCTION int strips_across(const Box& b, int columns) { return (b.x1 - b.x0 + columns - 1) / columns; }

// Held by the kernel, so kept small: a kernel's arguments past a few hundred bytes made the
// device compiler spill the trip's registers.
struct TilePlan {
  // Group g < keeps is the head of trip.keep[g], group keeps + g its tail.
  static constexpr int kMaxGroups = 2 * Trip::kMaxKeeps;
  int columns = 1;      // a strip's kept columns
  int rows = 1;         // a head band's rows
  int tail_rows = 1;    // a tail band's rows
  int tail_height = 0;  // rows of each box in its tail (all of it when the box is shorter)
  int first_tile[kMaxGroups] = {};  // league rank of each group's first tile; `tiles` past the last
  int tiles = 0;

  // The first row of a kept box's tail: all of the box when it is shorter than tail_height.
  KOKKOS_INLINE_FUNCTION int split(const Box& keep) const {
    return keep.y1 - tail_height > keep.y0 ? keep.y1 - tail_height : keep.y0;
  }

  // The strips across `keep` (in a plan of one kept box and no tail, a chain's, tile t is
  // strip t % strips of band t / strips).
  KOKKOS_INLINE_FUNCTION int strips(const Box& keep) const { return strips_across(keep, columns); }

  // A chain's tile for `ticket` (its plan: one kept box, no tail; tickets trip-major): trip n's
  // tiles in order, but across a wrapped y axis trip n starts at band n (mod bands), so that
  // its first band waits for bands handed out nearly a trip before, not just before it.
  KOKKOS_INLINE_FUNCTION int chain_tile(const Trip& trip, const int ticket, const bool wrap_y) const {
    const int n = ticket / tiles, t = ticket - n * tiles, strips = this->strips(trip.keep[0]);
    return wrap_y ? (t / strips + n) % (tiles / strips) * strips + t % strips : t;
  }
  // A chain's tile k (0 to 8: 3 x 3, tile t at 4) around tile t, across a wrapped axis the
  // tile at its other end; -1 past an edge.
  KOKKOS_INLINE_FUNCTION int chain_neighbour(const Trip& trip, const int t, const int k, const bool wrap_x,
                                             const bool wrap_y) const {
    const int strips = this->strips(trip.keep[0]);
    int a = t % strips + k % 3 - 1, b = t / strips + k / 3 - 1;
    if (wrap_x) a = (a + strips) % strips;
    if (wrap_y) b = (b + tiles / strips) % (tiles / strips);
    return a >= 0 && a < strips && b >= 0 && b * strips + a < tiles ? b * strips + a : -1;
  }

  // The cells tile t keeps (0 <= t < tiles), the same for each `trip` it was planned for.
  // Indices fixed when compiled (a kernel that indexes its arguments at run time copies
  // them to local memory).
  KOKKOS_INLINE_FUNCTION Box tile(const Trip& trip, int t) const {
    int g = 0;
    for (int h = 1; h < kMaxGroups; ++h)
      if (t >= first_tile[h]) g = h;
    const bool tail = g >= trip.keeps;
    const Box& keep = trip.keep[tail ? g - trip.keeps : g];
    const int first_tail_row = split(keep);
    const int y0 = tail ? first_tail_row : keep.y0, y1 = tail ? keep.y1 : first_tail_row;
    const int band = tail ? tail_rows : rows;
    const int strips = this->strips(keep);
    t -= first_tile[g];
    Box kept;
    kept.x0 = keep.x0 + (t % strips) * columns;
    kept.x1 = kept.x0 + columns < keep.x1 ? kept.x0 + columns : keep.x1;
    kept.y0 = y0 + (t / strips) * band;
    kept.y1 = kept.y0 + band < y1 ? kept.y0 + band : y1;
    return kept;
  }
};

// The tiles of a trip of m steps with `resident` teams running at once: strips of the
// widest columns a team's threads keep (kTripColumns - 2 m), or shape's; bands of shape's
// rows, else by the rule: the fewest rows whose tiles fill whole waves of resident teams;
// a tail only where shape asks for one.
TilePlan plan_tiles(const Trip& trip, int m, int resident, const TripShape& shape);

}  // namespace trident::diffusion
