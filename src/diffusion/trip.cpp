#include "diffusion/trip.hpp"
#include "diffusion/trip_tiles.hpp"

#include <algorithm>

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
template <class T, int kSteps>
using TripPolicy =
    Kokkos::TeamPolicy<ExecutionSpace, Kokkos::LaunchBounds<kTripColumns, kTeamsPerMultiprocessor<T, kSteps>>>;
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
template <class T, int kSteps>
using TripPolicy = Kokkos::TeamPolicy<ExecutionSpace>;
#endif
// The per-step registers need the loops over steps unrolled (the device compiler's pass only).
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define TRIDENT_UNROLL _Pragma("unroll")
#else
#define TRIDENT_UNROLL
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

  // u's value, or zero outside the grid (a domain's edge beyond the allocated halo).
  KOKKOS_INLINE_FUNCTION T load(int j, int i, bool wanted) const {
    return wanted && static_cast<unsigned>(j) < static_cast<unsigned>(ny) &&
                   static_cast<unsigned>(i) < static_cast<unsigned>(nx)
               ? u(j, i)
               : T(0);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const Box kept = plan.tile(trip, team.league_rank());  // the cells this team writes
    const Scratch shared(team.team_scratch(0), kScratchValues);
    // Most tiles read only cells that every step updates: they skip the test of each cell.
    const Box last = trip.step_box(m - 1);
    const bool edge = !(kept.y0 - m >= last.y0 && kept.y1 + m <= last.y1 && kept.x0 - m >= last.x0 &&
                        kept.x1 + m <= last.x1);
    // Trips of kSteps steps (most of them) know their length when compiled.
    if (m == kSteps)
      edge ? run_tile<true, kSteps>(team, shared, kept) : run_tile<false, kSteps>(team, shared, kept);
    else
      edge ? run_tile<true, 0>(team, shared, kept) : run_tile<false, 0>(team, shared, kept);
  }

  // The tile streamed once noting only whether any value it computed was not finite (no
  // branch a cell); only then once more, finding the first non-finite step as the one-step
  // kernels do (every value it checks is one the first pass computed, bit for bit alike).
  template <bool kEdge, int kFixed>
  KOKKOS_INLINE_FUNCTION void run_tile(const Member& team, const Scratch& shared, const Box& kept) const {
    clear(team, shared);
    if (!stream<kEdge, kFixed, false>(team, shared, kept)) return;
    clear(team, shared);
    stream<kEdge, kFixed, true>(team, shared, kept);
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
  template <bool kEdge, int kFixed, bool kExact>  // kFixed: m when known, else 0
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
        const Box b = trip.step_box(k - 1);
        if (k <= m && (!kEdge || (i >= b.x0 && i < b.x1))) {
          updates[q] |= 1u << k;
          if (col >= k && col < columns - k) checks[q] |= 1u << k;
        }
        centre_of[q][k - 1] = south_of[q][k - 1] = T(0);
      }
      TRIDENT_UNROLL
      for (int r = 0; r < kPrefetch; ++r) ahead[q][r] = load(y0 + r, i, col < columns && r < rows);
    }
    T* const base = shared.data() + 1;  // column 0 of the strip (after the zero column)
    // Step k's values are right from row s = 2k on: the first 2m rows skip the steps whose
    // values would be wrong (and never read), a loop of their own so the rest test nothing.
    const int prologue = rows < 2 * m ? rows : 2 * m;
    bool not_finite = false;
    for (int s = 0; s < prologue; ++s)
      row<kEdge, kFixed, kExact, true, kEdge>(team, base, kept, s, m, x0, y0, columns, rows, centre_of, south_of,
                                              ahead, updates, checks, not_finite);
    // kEdgeRowsApart: an edge tile's rows before `inside_to` reach only rows that every step
    // updates (a row that some step does not update lies below them or among the prologue's),
    // so they test the columns alone, one bit a step.
    int inside_to = kEdge ? prologue : rows;
    if constexpr (kEdge && kEdgeRowsApart<T>) {
      inside_to = rows;
      for (int k = 1; k <= m; ++k) {
        const Box b = trip.step_box(k - 1);
        inside_to = inside_to < b.y1 - y0 + k ? inside_to : b.y1 - y0 + k;
      }
      if (inside_to < prologue) inside_to = prologue;
      for (int s = prologue; s < inside_to; ++s)
        row<kEdge, kFixed, kExact, false, false>(team, base, kept, s, m, x0, y0, columns, rows, centre_of, south_of,
                                                 ahead, updates, checks, not_finite);
    } else if constexpr (!kEdge) {
      for (int s = prologue; s < rows; ++s)
        row<kEdge, kFixed, kExact, false, false>(team, base, kept, s, m, x0, y0, columns, rows, centre_of, south_of,
                                                 ahead, updates, checks, not_finite);
    }
    if constexpr (kEdge)
      for (int s = inside_to; s < rows; ++s)
        row<kEdge, kFixed, kExact, false, true>(team, base, kept, s, m, x0, y0, columns, rows, centre_of, south_of,
                                                ahead, updates, checks, not_finite);
    if (kExact) return false;
    if (not_finite) shared(kFlag) = T(1);
    team.team_barrier();
    return shared(kFlag) != T(0);
  }

  // Row s of the stream (see stream). kPrologue: s < 2 m, where step k runs only from s = 2k
  // and otherwise only passes its registers on. kRowTest: some step reaches a row it does not
  // update (an edge tile's first or last rows).
  template <bool kEdge, int kFixed, bool kExact, bool kPrologue, bool kRowTest>
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
      ahead[q][kPrefetch - 1] = load(y0 + s + kPrefetch, i, s + kPrefetch < rows);
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
            const Box b = trip.step_box(k - 1);
            updated = updated && j >= b.y0 && j < b.y1;
          }
          if (!updated) v = centre;
        }
        if (!kExact)
          not_finite |= !(v - v == T(0));
        else if (!(v - v == T(0)) && updated && ((checks[q] >> k) & 1u))
          (void)Kokkos::atomic_fetch_min(&first_bad(), step + k);
        if (k < m)
          now[k * kStride + col] = v;
        else if (j >= kept.y0 && col >= m && col < columns - m)
          next(j, i) = v;
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
void launch_trip(const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, T c, std::int64_t step, int m,
                 const Kokkos::View<std::int64_t>& first_bad, const Trip& trip, const TripShape& shape) {
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
  using Kernel = TripKernel<T, kSteps>;
  const int team = kOnDevice ? kTripColumns : 1;
  const auto policy = TripPolicy<T, kSteps>(space, kernel.plan.tiles, team)
                          .set_scratch_size(0, Kokkos::PerTeam(Kernel::Scratch::shmem_size(Kernel::kScratchValues)));
  Kokkos::parallel_for("trident::diffusion::step_trip", policy, kernel);
}

}  // namespace

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

template int rule_tile_rows<float>(const ExecutionSpace&, const Trip&, int);
template int rule_tile_rows<double>(const ExecutionSpace&, const Trip&, int);
template void step_trip<float>(const ExecutionSpace&, const Grid<float>&, const Grid<float>&, float, std::int64_t,
                               int, const Kokkos::View<std::int64_t>&, const Trip&, const TripShape&);
template void step_trip<double>(const ExecutionSpace&, const Grid<double>&, const Grid<double>&, double,
                                std::int64_t, int, const Kokkos::View<std::int64_t>&, const Trip&, const TripShape&);

}  // namespace trident::diffusion
