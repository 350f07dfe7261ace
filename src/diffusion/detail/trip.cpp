#include "diffusion/detail/trip.hpp"
#include "diffusion/detail/trip_tiles.hpp"

#include <algorithm>

#include "core/unroll.hpp"

namespace trident::diffusion {

namespace {

#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
// A GPU: one thread a column, a team a strip. Loads go out kPrefetch rows before their row
// is needed, so that memory's latency hides behind the steps of the rows in between. The
// rule for the tiles' rows counts on kTeamsPerMultiprocessor teams resident at once, which
// the launch bounds hold the registers to. Double adds up each step's sides before the
// chain of steps (kHoistSides), which its fewer teams can spend the registers on; float's
// edge tiles test their rows apart (kEdgeRowsApart), which made double's slower
// (docs/history/diffusion.md).
constexpr int kColumnsPerThread = 1;
constexpr int kPrefetch = 4;
constexpr bool kOnDevice = true;
template <class T, int kSteps>
constexpr int kTeamsPerMultiprocessor = sizeof(T) == 4 ? 8 : (kSteps <= 4 ? 6 : 4);
template <class T>
constexpr bool kHoistSides = sizeof(T) == 8;
template <class T>
constexpr bool kEdgeRowsApart = sizeof(T) == 4;
template <class T, int kSteps, class... Tag>
using TripPolicy = Kokkos::TeamPolicy<ExecutionSpace,
                                      Kokkos::LaunchBounds<kTripColumns, kTeamsPerMultiprocessor<T, kSteps>>, Tag...>;
#else
// A host: a team is one thread, which takes the strip's columns in turn on each row.
constexpr int kColumnsPerThread = kTripColumns;
constexpr int kPrefetch = 1;
constexpr bool kOnDevice = false;
template <class T, int kSteps>
constexpr int kTeamsPerMultiprocessor = 1;
template <class T>
constexpr bool kHoistSides = true;
template <class T>
constexpr bool kEdgeRowsApart = true;
template <class T, int kSteps, class... Tag>
using TripPolicy = Kokkos::TeamPolicy<ExecutionSpace, Tag...>;
#endif

// Where a tile reads and writes: one trip (u into next), or a chain's trip of even or odd
// index (u into next, next into u), which reads around L1 (other multiprocessors wrote
// those values during the same launch).
enum TripMode { kOneTrip, kChainEven, kChainOdd };
struct ChainTag {};
#if defined(__CUDA_ARCH__)
// The (trip, tile) pair a chain's team holds, trip-major: in shared memory rather than in
// registers across the tile, which the float trip of 8 steps has none left for.
__shared__ int chain_ticket;
#endif

// kSteps: the most steps this instance takes (its registers); m may be fewer.
template <class T, int kSteps>
struct TripKernel {
  using Member = typename TripPolicy<T, kSteps>::member_type;
  using Scratch =
      Kokkos::View<T*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  // Two rows (this row's values and the last row's) of each step but the last, with a zero
  // column on either side of the strip so that its edge columns read no neighbour's memory.
  static constexpr int kStride = kTripColumns + 2;
  static constexpr int kScratchValues = 2 * kSteps * kStride + 1;  // and a flag: a value was not finite
  static constexpr int kFlag = kScratchValues - 1;

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

  // The source's value, or zero outside the grid (a domain's edge beyond the allocated halo).
  template <int kMode>
  KOKKOS_INLINE_FUNCTION T load(int j, int i, bool wanted) const {
    if (!(wanted && static_cast<unsigned>(j) < static_cast<unsigned>(ny) &&
          static_cast<unsigned>(i) < static_cast<unsigned>(nx)))
      return T(0);
#if defined(__CUDA_ARCH__)
    if constexpr (kMode != kOneTrip) return __ldcg(&(kMode == kChainOdd ? next : u)(j, i));
#endif
    return (kMode == kChainOdd ? next : u)(j, i);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Scratch shared(team.team_scratch(0), kScratchValues);
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
    const Scratch shared(team.team_scratch(0), kScratchValues);
    const int rank = team.team_rank();
    for (;;) {
      if (rank == 0) chain_ticket = atomicAdd(&board(plan.tiles), 1);
      team.team_barrier();
      const int ticket = chain_ticket;
      if (ticket >= chain * plan.tiles) return;
      const int n = ticket / plan.tiles, t = ticket - n * plan.tiles;
      if (n > 0) {
        if (rank < 9) {
          const int strips = plan.strips(trip.keep[0]);
          const int a = t % strips + rank % 3 - 1, b = t / strips + rank / 3 - 1;
          if (a >= 0 && a < strips && b >= 0 && b * strips + a < plan.tiles) {
            const volatile int* flag = &board(b * strips + a);
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
      if (rank == 0) atomicExch(&board(chain_ticket % plan.tiles), chain_ticket / plan.tiles + 1);
    }
#else
    (void)team;
#endif
  }

  template <int kMode>
  KOKKOS_INLINE_FUNCTION void run_at(const Member& team, const Scratch& shared, const Box& kept) const {
    // Most tiles read only cells that every step updates: they skip the test of each cell.
    const Box last = step_box<kMode>(m - 1);
    const bool edge = !(kept.y0 - m >= last.y0 && kept.y1 + m <= last.y1 && kept.x0 - m >= last.x0 &&
                        kept.x1 + m <= last.x1);
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
    for (int k = team.team_rank(); k < kScratchValues; k += team.team_size()) shared(k) = T(0);
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
      const int col = rank + q * size, i = x0 + col;
      updates[q] = checks[q] = 0;
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
      for (int r = 0; r < kPrefetch; ++r) ahead[q][r] = load<kMode>(y0 + r, i, col < columns && r < rows);
    }
    T* const base = shared.data() + 1;  // column 0 of the strip (after the zero column)
    // Step k's values are right from row s = 2k on: the first 2m rows skip the steps whose
    // values would be wrong (and never read), a loop of their own so the rest test nothing.
    const int prologue = rows < 2 * m ? rows : 2 * m;
    bool not_finite = false;
    for (int s = 0; s < prologue; ++s)
      row<kEdge, kFixed, kExact, true, kEdge, kMode>(team, base, kept, s, m, x0, y0, columns, rows, centre_of, south_of,
                                              ahead, updates, checks, not_finite);
    // kEdgeRowsApart: an edge tile's rows before `inside_to` reach only rows that every step
    // updates (a row that some step does not update lies below them or among the prologue's),
    // so they test the columns alone, one bit a step.
    int inside_to = kEdge ? prologue : rows;
    if constexpr (kEdge && kEdgeRowsApart<T>) {
      inside_to = rows;
      for (int k = 1; k <= m; ++k) {
        const Box b = step_box<kMode>(k - 1);
        inside_to = inside_to < b.y1 - y0 + k ? inside_to : b.y1 - y0 + k;
      }
      if (inside_to < prologue) inside_to = prologue;
      for (int s = prologue; s < inside_to; ++s)
        row<kEdge, kFixed, kExact, false, false, kMode>(team, base, kept, s, m, x0, y0, columns, rows, centre_of, south_of,
                                                 ahead, updates, checks, not_finite);
    } else if constexpr (!kEdge) {
      for (int s = prologue; s < rows; ++s)
        row<kEdge, kFixed, kExact, false, false, kMode>(team, base, kept, s, m, x0, y0, columns, rows, centre_of, south_of,
                                                 ahead, updates, checks, not_finite);
    }
    if constexpr (kEdge)
      for (int s = inside_to; s < rows; ++s)
        row<kEdge, kFixed, kExact, false, true, kMode>(team, base, kept, s, m, x0, y0, columns, rows, centre_of, south_of,
                                                ahead, updates, checks, not_finite);
    if (kExact) return false;
    if (not_finite) shared(kFlag) = T(1);
    team.team_barrier();
    return shared(kFlag) != T(0);
  }

  // Row s of the stream (see stream). kPrologue: s < 2 m, where step k runs only from s = 2k
  // and otherwise only passes its registers on. kRowTest: some step reaches a row it does not
  // update (an edge tile's first or last rows).
  template <bool kEdge, int kFixed, bool kExact, bool kPrologue, bool kRowTest, int kMode>
  KOKKOS_FORCEINLINE_FUNCTION void row(const Member& team, T* const base, const Box& kept, const int s, const int m,
                                       const int x0, const int y0, const int columns, const int rows,
                                       T (&centre_of)[kColumnsPerThread][kSteps],
                                       T (&south_of)[kColumnsPerThread][kSteps],
                                       T (&ahead)[kColumnsPerThread][kPrefetch],
                                       const unsigned (&updates)[kColumnsPerThread],
                                       const unsigned (&checks)[kColumnsPerThread], bool& not_finite) const {
    const int rank = team.team_rank(), size = team.team_size();
    const T* before = base + ((s + 1) & 1) * kSteps * kStride;  // published on row s - 1
    T* now = base + (s & 1) * kSteps * kStride;
    for (int q = 0; q < kColumnsPerThread; ++q) {
      const int col = rank + q * size, i = x0 + col;
      if (col >= columns) continue;
      T north = ahead[q][0];  // step 0 of row s
      TRIDENT_UNROLL
      for (int r = 0; r + 1 < kPrefetch; ++r) ahead[q][r] = ahead[q][r + 1];
      ahead[q][kPrefetch - 1] = load<kMode>(y0 + s + kPrefetch, i, s + kPrefetch < rows);
      now[col] = north;
      // kHoistSides: what each step takes from the last row (west, east, south) first, all
      // at once, so that only the north values wait for the step below.
      T sides[kSteps] = {};
      TRIDENT_UNROLL
      for (int k = 1; k <= kSteps; ++k) {
        if (!kHoistSides<T> || k > m) break;
        if (kPrologue && s < 2 * k) continue;
        sides[k - 1] = sides_of(before[(k - 1) * kStride + col - 1], before[(k - 1) * kStride + col + 1],
                                south_of[q][k - 1]);
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
        const T side_sum = kHoistSides<T> ? sides[k - 1]
                                          : sides_of(before[(k - 1) * kStride + col - 1],
                                                     before[(k - 1) * kStride + col + 1], south_of[q][k - 1]);
        south_of[q][k - 1] = centre;
        centre_of[q][k - 1] = north;
        T v = stepped(centre, laplacian_with_north(centre, side_sum, north), c);
        bool updated = true;
        if (kEdge) {  // a cell the one-step kernels leave alone at this step keeps its value
          updated = (updates[q] >> k) & 1u;
          if (kRowTest) {
            const Box b = step_box<kMode>(k - 1);
            updated = updated && j >= b.y0 && j < b.y1;
          }
          if (!updated) v = centre;
        }
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
};

#undef TRIDENT_UNROLL

// Teams that surely run at once (what the rule's waves count).
template <class T, int kSteps>
int resident_teams(const ExecutionSpace& space) {
  return std::max(1, space.concurrency() / (kOnDevice ? 2048 : 1)) * kTeamsPerMultiprocessor<T, kSteps>;
}

template <class T, int kSteps>
TripKernel<T, kSteps> trip_kernel(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, T c,
                                  std::int64_t step, int m, const Kokkos::View<std::int64_t>& first_bad,
                                  const Trip& trip, const TripShape& shape) {
  TripKernel<T, kSteps> kernel;
  kernel.u = u;
  kernel.next = next;
  kernel.first_bad = first_bad;
  kernel.c = c;
  kernel.step = step;
  kernel.m = m;
  kernel.ny = static_cast<int>(u.extent(0));
  kernel.nx = static_cast<int>(u.extent(1));
  kernel.trip = trip;
  kernel.plan = plan_tiles(trip, m, resident_teams<T, kSteps>(space), shape);
  return kernel;
}

template <class T, int kSteps>
void launch_trip(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, T c, std::int64_t step, int m,
                 const Kokkos::View<std::int64_t>& first_bad, const Trip& trip, const TripShape& shape) {
  using Kernel = TripKernel<T, kSteps>;
  const Kernel kernel = trip_kernel<T, kSteps>(space, u, next, c, step, m, first_bad, trip, shape);
  const int team = kOnDevice ? kTripColumns : 1;
  const auto policy = TripPolicy<T, kSteps>(space, kernel.plan.tiles, team)
                          .set_scratch_size(0, Kokkos::PerTeam(Kernel::Scratch::shmem_size(Kernel::kScratchValues)));
  Kokkos::parallel_for("trident::diffusion::step_trip", policy, kernel);
}

// The rows of a chain's tiles by the rule (chain_tile_rows), unless under kChainRows.
template <class T, int kSteps>
int chain_rule_rows(const ExecutionSpace& space, const Trip& trip, int m) {
  if (!kOnDevice || trip.keeps != 1) return 0;
  const Box& keep = trip.keep[0];
  const int strips = strips_across(keep, kTripColumns - 2 * m);  // plan_tiles' widest strips
  const int bands = (2 * resident_teams<T, kSteps>(space) + strips - 1) / strips;
  const int rows = (keep.y1 - keep.y0) / std::max(bands, 1);
  return rows < kChainRows ? 0 : std::min(rows, 256);
}

// A chain of `count` trips in one launch (step_trips), where its plan allows: the rows of its
// tiles, or 0 when it does not.
template <class T, int kSteps>
int launch_chain(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, T c, std::int64_t step, int m,
                 int count, const Kokkos::View<std::int64_t>& first_bad, const Trip& trip, TripShape shape,
                 Kokkos::View<int*>& board) {
  if constexpr (!kOnDevice) {
    return 0;
  } else {
    using Kernel = TripKernel<T, kSteps>;
    const int resident = resident_teams<T, kSteps>(space);
    if (trip.keeps != 1 || shape.tail_rows > 0) return 0;
    if (shape.rows == 0) shape.rows = chain_rule_rows<T, kSteps>(space, trip, m);
    if (shape.rows == 0) return 0;
    Kernel kernel = trip_kernel<T, kSteps>(space, u, next, c, step, m, first_bad, trip, shape);
    const TilePlan& plan = kernel.plan;
    if (plan.tail_height > 0 || plan.columns < m || plan.rows < m) return 0;
    if (static_cast<int>(board.extent(0)) <= plan.tiles)
      board = Kokkos::View<int*>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::chain_board"),
                                 plan.tiles + 1);
    kernel.chain = count;
    kernel.board = board;
    Kokkos::deep_copy(space, Kokkos::subview(board, std::make_pair(0, plan.tiles + 1)), 0);
    const int teams = std::min(resident, count * plan.tiles);
    const auto policy = TripPolicy<T, kSteps, ChainTag>(space, teams, kTripColumns)
                            .set_scratch_size(0, Kokkos::PerTeam(Kernel::Scratch::shmem_size(Kernel::kScratchValues)));
    Kokkos::parallel_for("trident::diffusion::step_trips", policy, kernel);
    return plan.rows;
  }
}

}  // namespace

template <class T>
int step_trips(const ExecutionSpace& space, Grid<T> u, Grid<T> next, T c, std::int64_t step, int m, int count,
               const Kokkos::View<std::int64_t>& first_bad, Trip trip, const TripShape& shape,
               Kokkos::View<int*>& board) {
  if (trip.keeps == 0 || count <= 0) return 0;
  if (count > 1 && m > 1) {
    const int rows =
        m <= kMaxTripSteps / 2
            ? launch_chain<T, kMaxTripSteps / 2>(space, u, next, c, step, m, count, first_bad, trip, shape, board)
            : launch_chain<T, kMaxTripSteps>(space, u, next, c, step, m, count, first_bad, trip, shape, board);
    if (rows > 0) return rows;
  }
  for (int n = 0; n < count; ++n) {
    step_trip<T>(space, u, next, c, step + std::int64_t(n) * m, m, first_bad, trip, shape);
    std::swap(u, next);
    // the next trip: its steps' boxes and what it keeps shrink by m cells on the sides that shrink
    trip.first = trip.step_box(m);
    trip.keep[0] = trip.shrunk(trip.keep[0], m);
  }
  return 0;
}

template <class T>
int chain_tile_rows(const ExecutionSpace& space, const Trip& trip, int m) {
  return m <= kMaxTripSteps / 2 ? chain_rule_rows<T, kMaxTripSteps / 2>(space, trip, m)
                                : chain_rule_rows<T, kMaxTripSteps>(space, trip, m);
}

template <class T>
int rule_tile_rows(const ExecutionSpace& space, const Trip& trip, int m) {
  const int resident = m <= kMaxTripSteps / 2 ? resident_teams<T, kMaxTripSteps / 2>(space)
                                              : resident_teams<T, kMaxTripSteps>(space);  // as step_trip picks
  return plan_tiles(trip, m, resident, TripShape{}).rows;
}

bool trips_on_device() { return kOnDevice; }

// Two instances: short trips hold half the registers.
template <class T>
void step_trip(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, T c, std::int64_t step, int m,
               const Kokkos::View<std::int64_t>& first_bad, const Trip& trip, const TripShape& shape) {
  if (trip.keeps == 0) return;
  if (m <= kMaxTripSteps / 2)
    launch_trip<T, kMaxTripSteps / 2>(space, u, next, c, step, m, first_bad, trip, shape);
  else
    launch_trip<T, kMaxTripSteps>(space, u, next, c, step, m, first_bad, trip, shape);
}

int steps_per_trip(bool alone, int halo_width, int forced_steps) {
  int steps = forced_steps;
  if (steps <= 0) steps = kOnDevice ? kDeviceTripSteps : 1;
  steps = std::min(steps, kMaxTripSteps);
  return alone ? steps : std::min(steps, halo_width);
}

std::string describe_trips(int steps) {
  if (steps == 1) return "1 step per trip through memory (the one-step kernel)";
  return std::to_string(steps) + " steps per trip through memory (" + std::to_string(kTripColumns) +
         "-column strips, " + std::to_string(steps) + " columns of overlap each side)";
}

template int step_trips<float>(const ExecutionSpace&, Grid<float>, Grid<float>, float, std::int64_t, int, int,
                               const Kokkos::View<std::int64_t>&, Trip, const TripShape&, Kokkos::View<int*>&);
template int step_trips<double>(const ExecutionSpace&, Grid<double>, Grid<double>, double, std::int64_t, int, int,
                                const Kokkos::View<std::int64_t>&, Trip, const TripShape&, Kokkos::View<int*>&);
template int chain_tile_rows<float>(const ExecutionSpace&, const Trip&, int);
template int chain_tile_rows<double>(const ExecutionSpace&, const Trip&, int);
template int rule_tile_rows<float>(const ExecutionSpace&, const Trip&, int);
template int rule_tile_rows<double>(const ExecutionSpace&, const Trip&, int);
template void step_trip<float>(const ExecutionSpace&, const Grid<float>&, const Grid<float>&, float, std::int64_t,
                               int, const Kokkos::View<std::int64_t>&, const Trip&, const TripShape&);
template void step_trip<double>(const ExecutionSpace&, const Grid<double>&, const Grid<double>&, double,
                                std::int64_t, int, const Kokkos::View<std::int64_t>&, const Trip&, const TripShape&);

}  // namespace trident::diffusion
