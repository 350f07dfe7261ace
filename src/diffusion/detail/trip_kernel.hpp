#pragma once
// The kernel of the trips (trip.hpp), included by trip.cpp alone: a team streams a strip's
// rows, each row through the trip's steps (see TripKernel::stream), and its form (TripRule's
// in bits) adds what the deck's scheme computes besides c's update, each cell by the
// one-step kernels' own formulas (stencil.hpp, stencil_anisotropic.hpp, stencil_field.hpp,
// the source after the step, boundary.hpp's ghosts), so that the bits are theirs.
#include <cstddef>
#include <type_traits>

#include "core/unroll.hpp"
#include "diffusion/settings.hpp"
#include "diffusion/detail/stencil_anisotropic.hpp"
#include "diffusion/detail/stencil_field.hpp"
#include "diffusion/detail/trip.hpp"
#include "diffusion/detail/trip_face_ring.hpp"
#include "diffusion/detail/trip_kernel_parts.hpp"
#include "diffusion/detail/trip_tiles.hpp"

namespace trident::diffusion::trips {

// kSteps: the most steps this instance takes (its registers); m may be fewer.
template <class T, int kSteps, int kForm = 0>
struct TripKernel : TripExtrasOf<T, kForm> {
  using Member = typename TripPolicy<T, kSteps, kForm>::member_type;
  using Scratch =
      Kokkos::View<T*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static constexpr bool kWithField = (kForm & kField) != 0;
  static constexpr bool kFolds = kForm == kMirror || kForm == kWrap;  // edges read folded
  // Two rows (this row's values and the last row's) of each step but the last, with a zero
  // column on either side of the strip so that its edge columns read no neighbour's memory.
  static constexpr int kStride = kTripColumns + 2;
  static constexpr int kFlag = 2 * kSteps * kStride;  // a flag: a value was not finite
  // The follow form alone takes c's plain update everywhere in a single trip, its ghosts
  // chosen in the step (row): a neumann west or east ghost read as the edge cell's own value,
  // the others set only on the rows and columns they border, so that an edge tile costs what
  // it costs without them. A chain's edge tiles keep cell(), with which its kernel spills less.
  static constexpr bool kFollowAlone = kForm == kFollow;
  static constexpr bool kRing = kWithField && kOnDevice && sizeof(T) == 4;
  template <int kMode> using Ring = FaceRing<kSteps, kMode == kOneTrip>;  // kRing's, after the flag
  template <int kMode> static constexpr int kScratchValues = kFlag + 1 + (kRing ? Ring<kMode>::kValues : 0);

  Grid<T> u, next;
  Kokkos::View<std::int64_t> first_bad;
  T c;
  std::int64_t step;
  int m, ny, nx;
  Trip trip;
  TilePlan plan;
  // A chain (step_trips): `chain` trips; board(t) counts the trips done on tile t, and
  // board(plan.tiles) hands out (trip, tile) pairs in that order.
  int chain = 0;
  Kokkos::View<int*> board;

  // The source's value, or zero outside the grid (a domain's edge beyond the allocated halo);
  // kReflect (an edge tile's, kFolds): a row past a mirrored or wrapped edge read as its
  // image inside (columns: column_read).
  template <int kMode, bool kReflect>
  KOKKOS_INLINE_FUNCTION T load(int j, int i, bool wanted) const {
    if constexpr (kReflect && kFolds) j = this->folded(j, 0, trip.first);
    if (!(wanted && static_cast<unsigned>(j) < static_cast<unsigned>(ny) &&
          static_cast<unsigned>(i) < static_cast<unsigned>(nx)))
      return T(0);
#if defined(__CUDA_ARCH__)
    if constexpr (kMode != kOneTrip) return __ldcg(&(kMode == kChainOdd ? next : u)(j, i));
#endif
    return (kMode == kChainOdd ? next : u)(j, i);
  }

  // The column a strip's column reads and writes: kFolds' edge tiles read past a mirrored or
  // wrapped west or east edge folded (and write only kept cells, which no fold moves).
  template <bool kEdge>
  KOKKOS_INLINE_FUNCTION int column_read(const int i) const {
    if constexpr (kEdge && kFolds) return this->folded(i, 1, trip.first);
    return i;
  }

  KOKKOS_INLINE_FUNCTION int mirror_edge(const int k) const { return this->edge(k, trip.first); }  // kFolds

  // Side k of the rule (kFollow's forms): a copy, with which ptxas spilled less.
  KOKKOS_INLINE_FUNCTION TripSide<T> side(const int k) const {
    return k == kWest ? this->west : k == kEast ? this->east : k == kSouth ? this->south : this->north;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Scratch shared(team.team_scratch(0), kScratchValues<kOneTrip>);
    run_at<kOneTrip>(team, shared, plan.tile(trip, team.league_rank()));
  }

  // Steps taken before the tile's trip: 0, or in a chain its trip's index times m.
  template <int kMode>
  KOKKOS_INLINE_FUNCTION int steps_before() const {
#if defined(__CUDA_ARCH__)
    if constexpr (kMode != kOneTrip) return chain_ticket / plan.tiles * m;
#endif
    return 0;
  }
  // What step k of the tile's trip updates: a chain's trip n is the first trip moved on by
  // n m steps (its boxes shrink by m cells a trip on the sides that shrink).
  template <int kMode>
  KOKKOS_INLINE_FUNCTION Box step_box(int k) const {
    return trip.step_box(k + steps_before<kMode>());
  }

  // A chain: each team takes the next (trip, tile) and waits until the tiles of the trip
  // before whose cells it reads or overwrites (its neighbours; a tile is at least m cells
  // each way) are done. Only teams that hold a pair wait, for pairs handed out before
  // theirs, so the chain never waits for a team that has not started.
  KOKKOS_INLINE_FUNCTION void operator()(ChainTag, const Member& team) const {
#if defined(__CUDA_ARCH__)
    const Scratch shared(team.team_scratch(0), kScratchValues<kChainEven>);
    const int rank = team.team_rank();
    for (;;) {
      if (rank == 0) chain_ticket = atomicAdd(&board(plan.tiles), 1);
      team.team_barrier();
      const int ticket = chain_ticket;
      if (ticket >= chain * plan.tiles) return;
      const int n = ticket / plan.tiles, t = plan.chain_tile(trip, ticket, this->wraps(0));
      if (n > 0) {
        if (rank < 9) {
          const int around = plan.chain_neighbour(trip, t, rank, this->wraps(1), this->wraps(0));
          if (around >= 0) {
            const volatile int* flag = &board(around);
            while (*flag < n) {
            }
          }
          __threadfence();
        }
        team.team_barrier();
      }
      // the first trip's tile, less what trip n no longer keeps
      Box kept = plan.tile(trip, t);
      const Box keep = trip.shrunk(trip.keep[0], n * m);
      kept.y0 = Kokkos::max(kept.y0, keep.y0);
      kept.y1 = Kokkos::min(kept.y1, keep.y1);
      kept.x0 = Kokkos::max(kept.x0, keep.x0);
      kept.x1 = Kokkos::min(kept.x1, keep.x1);
      if (kept.y1 > kept.y0 && kept.x1 > kept.x0) {
        if (n & 1)
          run_at<kChainOdd>(team, shared, kept);
        else
          run_at<kChainEven>(team, shared, kept);
      }
      __threadfence();  // this thread's values, before the tile is marked done
      team.team_barrier();
      if (rank == 0)
        atomicExch(&board(plan.chain_tile(trip, chain_ticket, this->wraps(0))), chain_ticket / plan.tiles + 1);
    }
#else
    (void)team;
#endif
  }

  template <int kMode>
  KOKKOS_INLINE_FUNCTION void run_at(const Member& team, const Scratch& shared, const Box& kept) const {
    // Most tiles read only cells that every step updates, none mirrored: they skip the test
    // of each cell.
    const Box last = step_box<kMode>(m - 1);
    bool edge = !(kept.y0 - m >= last.y0 && kept.y1 + m <= last.y1 && kept.x0 - m >= last.x0 &&
                  kept.x1 + m <= last.x1);
    if constexpr (kFolds)
      edge = edge || kept.y0 - m < mirror_edge(0) || kept.y1 + m > mirror_edge(1) || kept.x0 - m < mirror_edge(2) ||
             kept.x1 + m > mirror_edge(3);
    // Trips of kSteps steps (most of them) know their length when compiled.
    if (m == kSteps)
      edge ? run_tile<true, kSteps, kMode>(team, shared, kept) : run_tile<false, kSteps, kMode>(team, shared, kept);
    else
      edge ? run_tile<true, 0, kMode>(team, shared, kept) : run_tile<false, 0, kMode>(team, shared, kept);
  }

  // The tile streamed once noting only whether any value it computed was not finite (no
  // branch a cell); only then once more, finding the first non-finite step as the one-step
  // kernels do (every value it checks is one the first pass computed, bit for bit alike).
  template <bool kEdge, int kFixed, int kMode>
  KOKKOS_INLINE_FUNCTION void run_tile(const Member& team, const Scratch& shared, const Box& kept) const {
    clear(team, shared);
    if (!stream<kEdge, kFixed, false, kMode>(team, shared, kept)) return;
    clear(team, shared);
    stream<kEdge, kFixed, true, kMode>(team, shared, kept);
  }

  KOKKOS_INLINE_FUNCTION void clear(const Member& team, const Scratch& shared) const {
    for (int k = team.team_rank(); k <= kFlag; k += team.team_size()) shared(k) = T(0);  // not the ring
    team.team_barrier();
  }

  // The strip's rows, from m rows before `kept` to m rows after it. Row s of the stream is
  // read from memory (step 0), and step k computes row s - k from the step k - 1 values of
  // rows s - k - 1 (held since two rows), s - k (since one row) and s - k + 1 (computed just
  // now) of this column, and of row s - k in the neighbouring columns (published in `shared`
  // on the last row). A value is right where its cone of inputs lies inside the strip's
  // loaded columns and rows: at step k, the columns [k, columns - k) and the rows from s = 2k.
  // Those are the only values written to `next` (step m) or, with kExact, checked for
  // non-finite values as the one-step kernels check them (first_bad lowered); without it,
  // returns on every thread of the team whether any value computed was not finite.
  template <bool kEdge, int kFixed, bool kExact, int kMode>  // kFixed: m when known, else 0
  KOKKOS_INLINE_FUNCTION bool stream(const Member& team, const Scratch& shared, const Box& kept) const {
    const int m = kFixed > 0 ? kFixed : this->m;
    const int x0 = kept.x0 - m, y0 = kept.y0 - m;  // the strip's first column and row, read from u
    const int columns = kept.x1 - kept.x0 + 2 * m, rows = kept.y1 - kept.y0 + 2 * m;
    const int rank = team.team_rank(), size = team.team_size();
    T centre_of[kColumnsPerThread][kSteps], south_of[kColumnsPerThread][kSteps];
    T ahead[kColumnsPerThread][kPrefetch];
    unsigned updates[kColumnsPerThread], checks[kColumnsPerThread];  // bit k: this column at step k
    for (int q = 0; q < kColumnsPerThread; ++q) {
      const int col = rank + q * size, i = column_read<kEdge>(x0 + col);
      updates[q] = checks[q] = 0;
      if constexpr (kEdge && (kForm & kFollow) != 0) {  // this column's edge cells, once (cell)
        if (side(kWest).kind != 0 && i == side(kWest).edge)
          updates[q] |= side(kWest).kind == 1 ? kNeumannWest : kConvectiveWest;
        if (side(kEast).kind != 0 && i == side(kEast).edge)
          updates[q] |= side(kEast).kind == 1 ? kNeumannEast : kConvectiveEast;
      }
      TRIDENT_UNROLL
      for (int k = 1; k <= kSteps; ++k) {
        const Box b = step_box<kMode>(k - 1);
        if (k <= m && (!kEdge || (i >= b.x0 && i < b.x1))) {
          updates[q] |= 1u << k;
          if (col >= k && col < columns - k) checks[q] |= 1u << k;
        }
        centre_of[q][k - 1] = south_of[q][k - 1] = T(0);
      }
      TRIDENT_UNROLL
      for (int r = 0; r < kPrefetch; ++r) ahead[q][r] = load<kMode, kEdge>(y0 + r, i, col < columns && r < rows);
    }
    T* const base = shared.data() + 1;  // column 0 of the strip (after the zero column)
    // Step k's values are right from row s = 2k on: the first 2m rows skip the steps whose
    // values would be wrong (and never read), a loop of their own so the rest test nothing.
    const int prologue = rows < 2 * m ? rows : 2 * m;
    bool not_finite = false;
    if constexpr (kEdge && kFollowAlone && kMode == kOneTrip) {
      follow_rows<kEdge, kFixed, kExact, kMode>(team, base, kept, m, x0, y0, columns, rows, prologue, centre_of,
                                                south_of, ahead, updates, checks, not_finite);
    } else {
      // kMirror: the rows on which a step reaches past the south mirrored edge lie among the
      // prologue's, those past the north one among the last loop's (kGhostRows).
      constexpr bool kMirrorRows = kEdge && kForm == kMirror;
      for (int s = 0; s < prologue; ++s)
        row<kEdge, kFixed, kExact, true, kEdge, kMode, kMirrorRows>(team, base, kept, s, m, x0, y0, columns, rows,
                                                                    centre_of, south_of, ahead, updates, checks,
                                                                    not_finite);
      // kEdgeRowsApart: an edge tile's rows before `inside_to` reach only rows that every step
      // updates (a row that some step does not update lies below them or among the prologue's),
      // so they test the columns alone, one bit a step.
      int inside_to = kEdge ? prologue : rows;
      if constexpr (kEdge && kEdgeRowsApart<T>) {
        inside_to = edge_inside_to<kMode>(m, y0, rows, prologue);
        if constexpr (kMirrorRows) inside_to = mirror_rows_from(y0, prologue, inside_to);
        for (int s = prologue; s < inside_to; ++s)
          row<kEdge, kFixed, kExact, false, false, kMode, false>(team, base, kept, s, m, x0, y0, columns, rows,
                                                                 centre_of, south_of, ahead, updates, checks,
                                                                 not_finite);
      } else if constexpr (kMirrorRows) {
        inside_to = mirror_rows_from(y0, prologue, rows);
        for (int s = prologue; s < inside_to; ++s)
          row<kEdge, kFixed, kExact, false, true, kMode, false>(team, base, kept, s, m, x0, y0, columns, rows,
                                                                centre_of, south_of, ahead, updates, checks,
                                                                not_finite);
      } else if constexpr (!kEdge) {
        for (int s = prologue; s < rows; ++s)
          row<kEdge, kFixed, kExact, false, false, kMode, false>(team, base, kept, s, m, x0, y0, columns, rows,
                                                                 centre_of, south_of, ahead, updates, checks,
                                                                 not_finite);
      }
      if constexpr (kEdge)
        for (int s = inside_to; s < rows; ++s)
          row<kEdge, kFixed, kExact, false, true, kMode, kMirrorRows>(team, base, kept, s, m, x0, y0, columns, rows,
                                                                      centre_of, south_of, ahead, updates, checks,
                                                                      not_finite);
    }
    if constexpr (kRing) Ring<kMode>::drain();
    if (kExact) return false;
    if (not_finite) shared(kFlag) = T(1);
    team.team_barrier();
    return shared(kFlag) != T(0);
  }

  // kMirror: the first row (from `prologue`, before `to`) where a step reaches past the north mirrored edge.
  KOKKOS_INLINE_FUNCTION int mirror_rows_from(const int y0, const int prologue, const int to) const {
    const int from = mirror_edge(1) - y0 + 1;
    return from < prologue ? prologue : from < to ? from : to;
  }

  // An edge tile's first row that some step reaches without updating it (kEdgeRowsApart).
  template <int kMode>
  KOKKOS_INLINE_FUNCTION int edge_inside_to(const int m, const int y0, const int rows, const int prologue) const {
    int inside_to = rows;
    for (int k = 1; k <= m; ++k) {
      const Box b = step_box<kMode>(k - 1);
      inside_to = inside_to < b.y1 - y0 + k ? inside_to : b.y1 - y0 + k;
    }
    return inside_to < prologue ? prologue : inside_to;
  }

  // An edge tile's rows with kFollowAlone, as stream takes them, and the rows on which a step
  // reaches the south or north edge row (s from edge - y0 + 1 to edge - y0 + m) by the
  // instance of row that sets those ghosts (kGhostRows).
  template <bool kEdge, int kFixed, bool kExact, int kMode>
  KOKKOS_INLINE_FUNCTION void follow_rows(const Member& team, T* const base, const Box& kept, const int m,
                                          const int x0, const int y0, const int columns, const int rows,
                                          const int prologue, T (&centre_of)[kColumnsPerThread][kSteps],
                                          T (&south_of)[kColumnsPerThread][kSteps],
                                          T (&ahead)[kColumnsPerThread][kPrefetch],
                                          const unsigned (&updates)[kColumnsPerThread],
                                          const unsigned (&checks)[kColumnsPerThread], bool& not_finite) const {
    const int windows[2] = {side(kSouth).kind != 0 ? side(kSouth).edge - y0 + 1 : rows,
                            side(kNorth).kind != 0 ? side(kNorth).edge - y0 + 1 : rows};
    const auto between = [&](auto prologue_tag, auto row_test_tag, int from, const int to) {
      constexpr bool kP = decltype(prologue_tag)::value, kR = decltype(row_test_tag)::value;
      while (from < to) {
        bool ghosts = false;
        const int end = ghost_rows_split(from, to, windows, m, ghosts);
        if (ghosts)
          for (; from < end; ++from)
            row<kEdge, kFixed, kExact, kP, kR, kMode, true>(team, base, kept, from, m, x0, y0, columns, rows,
                                                            centre_of, south_of, ahead, updates, checks, not_finite);
        else
          for (; from < end; ++from)
            row<kEdge, kFixed, kExact, kP, kR, kMode, false>(team, base, kept, from, m, x0, y0, columns, rows,
                                                             centre_of, south_of, ahead, updates, checks, not_finite);
      }
    };
    using Yes = std::true_type;
    using No = std::false_type;
    between(Yes(), Yes(), 0, prologue);
    int inside_to = prologue;
    if constexpr (kEdgeRowsApart<T>) {
      inside_to = edge_inside_to<kMode>(m, y0, rows, prologue);
      between(No(), No(), prologue, inside_to);
    }
    between(No(), Yes(), inside_to, rows);
  }

  // Row s of the stream (see stream). kPrologue: s < 2 m, where step k runs only from s = 2k
  // and otherwise only passes its registers on. kRowTest: some step reaches a row it does not
  // update (an edge tile's first or last rows). kGhostRows (kFollowAlone): some step reaches
  // the south or north edge row, whose ghost it sets (any other form sets its ghosts in cell);
  // kMirror: some step may reach past a mirrored edge, and takes such rows in mirrored order.
  template <bool kEdge, int kFixed, bool kExact, bool kPrologue, bool kRowTest, int kMode, bool kGhostRows>
  KOKKOS_FORCEINLINE_FUNCTION void row(const Member& team, T* const base, const Box& kept, const int s, const int m,
                                       const int x0, const int y0, const int columns, const int rows,
                                       T (&centre_of)[kColumnsPerThread][kSteps],
                                       T (&south_of)[kColumnsPerThread][kSteps],
                                       T (&ahead)[kColumnsPerThread][kPrefetch],
                                       const unsigned (&updates)[kColumnsPerThread],
                                       const unsigned (&checks)[kColumnsPerThread], bool& not_finite) const {
    // Cells with c's plain update (kFollowAlone's ghosts chosen on the way, in a single
    // trip), or by cell.
    constexpr bool kChooseGhosts = kEdge && kFollowAlone && kMode == kOneTrip;
    constexpr bool kPlainCells = kForm == 0 || kFolds || (kFollowAlone && (!kEdge || kChooseGhosts));
    const int rank = team.team_rank(), size = team.team_size();
    const T* before = base + ((s + 1) & 1) * kSteps * kStride;  // published on row s - 1
    T* now = base + (s & 1) * kSteps * kStride;
    // kFollow at the domain's edge: the step that reaches the south (north) edge row on this
    // row of the stream, or 0 (no step): found once a row, tested against each step's constant.
    int south_k = 0, north_k = 0;
    if constexpr (kEdge && (kForm & kFollow) != 0 && (!kChooseGhosts || kGhostRows)) {
      if (side(kSouth).kind != 0) south_k = y0 + s - side(kSouth).edge;
      if (side(kNorth).kind != 0) north_k = y0 + s - side(kNorth).edge;
    }
    for (int q = 0; q < kColumnsPerThread; ++q) {
      const int col = rank + q * size, i = column_read<kEdge>(x0 + col);
      if (col >= columns) continue;
      T north = ahead[q][0];  // step 0 of row s
      TRIDENT_UNROLL
      for (int r = 0; r + 1 < kPrefetch; ++r) ahead[q][r] = ahead[q][r + 1];
      ahead[q][kPrefetch - 1] = load<kMode, kEdge>(y0 + s + kPrefetch, i, s + kPrefetch < rows);
      now[col] = north;
      typename Ring<kMode>::Row ring;  // kRing: this thread's ring on this row
      if constexpr (kRing) ring = Ring<kMode>(base + kFlag).fetch(this->faces, ny, nx, y0, s, i, rank);
      // The west and east values a step takes: its neighbours' (published on the last row),
      // or with kChooseGhosts a neumann ghost's, which is the edge cell's own value.
      const int west_at = kChooseGhosts && (updates[q] & kNeumannWest) ? col : col - 1;
      const int east_at = kChooseGhosts && (updates[q] & kNeumannEast) ? col : col + 1;
      // What step k takes from the last row (west, east, south), its ghosts set (kChooseGhosts).
      const auto sides_at = [&](const int k, const T centre) {
        T west = before[(k - 1) * kStride + west_at], east = before[(k - 1) * kStride + east_at];
        T south = south_of[q][k - 1];
        if constexpr (kChooseGhosts) {
          if (updates[q] & kConvectiveWest) west = convective_ghost(centre, side(kWest).ratio, side(kWest).ambient);
          if (updates[q] & kConvectiveEast) east = convective_ghost(centre, side(kEast).ratio, side(kEast).ambient);
          if constexpr (kGhostRows)
            if (k == south_k) south = ghost(side(kSouth), centre, T(0));
        }
        return sides_of(west, east, south);
      };
      // kHoistSides: what each step takes from the last row (west, east, south) first, all
      // at once, so that only the north values wait for the step below.
      T sides[kSteps] = {};
      TRIDENT_UNROLL
      for (int k = 1; k <= kSteps; ++k) {
        if (!kHoistSides<T> || !kPlainCells || k > m) break;
        if (kPrologue && s < 2 * k) continue;
        sides[k - 1] = sides_at(k, centre_of[q][k - 1]);
      }
      TRIDENT_UNROLL
      for (int k = 1; k <= kSteps; ++k) {
        if (k > m) break;
        if (kPrologue && s < 2 * k) {  // step k is not right yet here: keep its last two rows
          south_of[q][k - 1] = centre_of[q][k - 1];
          centre_of[q][k - 1] = north;
          continue;
        }
        const int j = y0 + s - k;  // the row step k reaches
        const T centre = centre_of[q][k - 1];
        T v;
        if constexpr (kForm == kMirror && kEdge && kGhostRows) {
          // past a mirrored edge the sum's order is mirrored too: there the south value is
          // the north one of the cell mirrored inside, so that both sums are the same bits
          const T west = before[(k - 1) * kStride + col - 1], east = before[(k - 1) * kStride + col + 1];
          const bool past = j < mirror_edge(0) || j >= mirror_edge(1);
          const T first = past ? north : south_of[q][k - 1], last = past ? south_of[q][k - 1] : north;
          v = stepped(centre, laplacian_with_north(centre, sides_of(west, east, first), last), c);
        } else if constexpr (kPlainCells) {
          const T side_sum = kHoistSides<T> ? sides[k - 1] : sides_at(k, centre);
          T north_value = north;
          if constexpr (kChooseGhosts && kGhostRows)
            if (k == north_k) north_value = ghost(side(kNorth), centre, T(0));
          v = stepped(centre, laplacian_with_north(centre, side_sum, north_value), c);
        } else {
          T ring_faces[4] = {};
          if constexpr (kRing) Ring<kMode>::read(ring, k, ring_faces);
          v = cell<kEdge>(j, i, ring_faces, updates[q], k == south_k, k == north_k, centre,
                          before[(k - 1) * kStride + col - 1], before[(k - 1) * kStride + col + 1],
                          south_of[q][k - 1], north);
        }
        south_of[q][k - 1] = centre;
        centre_of[q][k - 1] = north;
        bool updated = true;
        if (kEdge) {  // a cell the one-step kernels leave alone at this step keeps its value
          updated = (updates[q] >> k) & 1u;
          if (kRowTest) {
            const Box b = step_box<kMode>(k - 1);
            updated = updated && j >= b.y0 && j < b.y1;
          }
          if (!updated) v = centre;
        }
        if constexpr ((kForm & kSource) != 0)  // after the step, as Source::add does
          if (updated && this->source != 0)
            v = v + (this->source == 1 ? this->s : this->sf[std::size_t(j) * std::size_t(nx) + std::size_t(i)]);
        if (!kExact)
          not_finite |= !(v - v == T(0));
        else if (!(v - v == T(0)) && updated && ((checks[q] >> k) & 1u))
          (void)Kokkos::atomic_fetch_min(&first_bad(), step + steps_before<kMode>() + k);
        if (k < m)
          now[k * kStride + col] = v;
        else if (j >= kept.y0 && col >= m && col < columns - m)
          (kMode == kChainOdd ? u : next)(j, i) = v;
        north = v;
      }
    }
    team.team_barrier();
  }

  // The step's value of cell (j, i) (row s - k of the stream, step k) from its neighbours' of
  // the step before, by the one-step kernels' formulas: ghosts that follow their edge cell
  // set from it first (kFollow, at the domain's edge), then the operator.
  template <bool kEdge>
  KOKKOS_FORCEINLINE_FUNCTION T cell(const int j, const int i, const T (&ring_faces)[4], const unsigned at,
                                     const bool at_south, const bool at_north, const T centre, T west, T east, T south,
                                     T north) const {
    if constexpr (kForm == 0) {
      return T(0);
    } else {
      // the faces' c from the rule's (field_faces), zero for a cell outside the grid (an edge
      // tile's, whose value is never kept); kRing: `ring_faces`, read from the ring by row
      T f_west = ring_faces[0], f_east = ring_faces[1], f_south = ring_faces[2], f_north = ring_faces[3];
      if constexpr (kWithField && !kRing) {
        if (!kEdge || (static_cast<unsigned>(j) < static_cast<unsigned>(ny) &&
                       static_cast<unsigned>(i) < static_cast<unsigned>(nx)))
          faces_of_cell(this->faces, std::size_t(nx), std::size_t(j), std::size_t(i), f_west, f_east, f_south, f_north);
      }
      if constexpr (kEdge && (kForm & kFollow) != 0) {
        if (at & kAtWest) west = ghost(side(kWest), centre, f_west);
        if (at & kAtEast) east = ghost(side(kEast), centre, f_east);
        if (at_south) south = ghost(side(kSouth), centre, f_south);
        if (at_north) north = ghost(side(kNorth), centre, f_north);
      }
      if constexpr (kWithField)
        return centre + field_change_of(centre, west, east, south, north, f_west, f_east, f_south, f_north);
      else if constexpr ((kForm & kAnisotropic) != 0)
        return stepped_anisotropic(centre, west, east, south, north, this->cx, this->cy);
      else
        return stepped(centre, laplacian_of(centre, west, east, south, north), c);
    }
  }

  // A following ghost from its edge cell's value (Edges::follow's formula); with a field,
  // h over the face's c (`face`, the edge cell's with its ghost).
  KOKKOS_FORCEINLINE_FUNCTION T ghost(const TripSide<T> side, const T edge, const T face) const {
    if (side.kind == 1) return edge;
    if constexpr (kWithField) return convective_ghost(edge, field_ratio(side.h, face), side.ambient);
    (void)face;
    return convective_ghost(edge, side.ratio, side.ambient);
  }
};

#undef TRIDENT_UNROLL

}  // namespace trident::diffusion::trips
