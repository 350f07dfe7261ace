#pragma once
// What the trips' kernel (trip_kernel.hpp) is built from: how a device or a host runs it
// (threads, prefetch, registers), where a tile reads and writes (TripMode), and what an
// instance computes besides c's update (its form, and the rule's data it holds).
#include <cstddef>
#include <type_traits>

#include "diffusion/detail/trip.hpp"

namespace trident::diffusion::trips {

// What an instance computes besides c's isotropic update (its form, TripRule's in bits).
// kFollow: ghosts that follow their edge cells, set at each step in the tiles at the domain's
// edge; kSource: a source added after each step (a number or a field: TripRule::source);
// kAnisotropic, kField: the operator (kField alone: a field's with its ghosts held still and
// no source, whose kernel holds the faces alone and spills far less). kMirror (alone): c's
// plain update, whose edge tiles read past a mirrored edge reflected (neumann's sides,
// TripRule::mirror_sides); kWrap (alone) the same, read past a wrapped edge wrapped (a lone
// block's periodic axes, TripRule::wrap_axes): a form of its own, since choosing between the
// two at run time made ptxas spill the float trip of 8 steps more (4 / 32 to 8 / 44 bytes of
// spill stores / loads), and neumann's decks slower.
// Runs take the fewest bits their rule needs (form_of).
constexpr int kFollow = 1, kSource = 2, kAnisotropic = 4, kField = 8, kMirror = 16, kWrap = 32;

#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
// A GPU: one thread a column, a team a strip. Loads go out kPrefetch rows before their row
// is needed, so that memory's latency hides behind the steps of the rows in between. The
// rule for the tiles' rows counts on kTeamsPerMultiprocessor teams resident at once, which
// the launch bounds hold the registers to: float's anisotropic operator and a chain of the
// field's with ghosts that follow or a source (c_x and c_y, the faces' c) take 6 (80
// registers), with which they spill less and ran faster than with 8 (64) at 8192², while its
// other forms, a chain of the field's alone among them, ran slower with 6; a single trip of
// a field takes 5 (96), for its ring of faces kept twice over (trip_face_ring.hpp). Double
// adds up each step's sides before the chain of steps (kHoistSides), which its fewer teams
// can spend the registers on; float's edge tiles test their rows apart (kEdgeRowsApart),
// which made double's slower (docs/history/diffusion.md).
constexpr int kColumnsPerThread = 1;
constexpr int kPrefetch = 4;
constexpr bool kOnDevice = true;
template <class T, int kSteps, int kForm = 0, bool kChain = false>
constexpr int kTeamsPerMultiprocessor =
    sizeof(T) == 4
        ? ((kForm & kField) != 0 && !kChain ? 5 : kForm != kField && (kForm & (kAnisotropic | kField)) != 0 ? 6 : 8)
        : (kSteps <= 4 ? 6 : 4);
template <class T>
constexpr bool kHoistSides = sizeof(T) == 8;
template <class T>
constexpr bool kEdgeRowsApart = sizeof(T) == 4;
template <class T, int kSteps, int kForm, class... Tag>
using TripPolicy =
    Kokkos::TeamPolicy<ExecutionSpace,
                       Kokkos::LaunchBounds<kTripColumns,
                                            kTeamsPerMultiprocessor<T, kSteps, kForm, sizeof...(Tag) != 0>>,
                       Tag...>;
#else
// A host: a team is one thread, which takes the strip's columns in turn on each row.
constexpr int kColumnsPerThread = kTripColumns;
constexpr int kPrefetch = 1;
constexpr bool kOnDevice = false;
template <class T, int kSteps, int kForm = 0, bool kChain = false>
constexpr int kTeamsPerMultiprocessor = 1;
template <class T>
constexpr bool kHoistSides = true;
template <class T>
constexpr bool kEdgeRowsApart = true;
template <class T, int kSteps, int kForm, class... Tag>
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

template <class T>
int form_of(const TripRule<T>& rule) {
  if (rule.op == TripRule<T>::field) return rule.follows() || rule.source != 0 ? kFollow | kSource | kField : kField;
  if (rule.op == TripRule<T>::anisotropic) return kFollow | kSource | kAnisotropic;
  if (rule.source != 0) return kFollow | kSource;
  if (rule.follows()) return kFollow;
  return rule.mirror_sides != 0 ? kMirror : rule.wrap_axes != 0 ? kWrap : 0;
}

// The rule's data the kernels hold (none for c's plain update: its kernel's arguments stay
// as small as they were). Fields as pointers: the source into a grid shaped like u, the
// faces into field_faces' planes.
template <class T>
struct TripExtras {
  KOKKOS_INLINE_FUNCTION static constexpr bool wraps(int) { return false; }  // only kWrap's axes wrap
  T cx = T(0), cy = T(0), s = T(0);
  const T* faces = nullptr;  // TripRule::faces (field_faces)
  const T* sf = nullptr;
  int source = 0;
  TripSide<T> west, east, south, north;
};
struct TripNoExtras {
  KOKKOS_INLINE_FUNCTION static constexpr bool wraps(int) { return false; }
};
// kFollow alone, kMirror and kWrap hold only what they read: larger kernel arguments made ptxas
// spill their float trips' registers (kMirror's four edges, 16 bytes, took its 8-step trip
// from 4 to 104 bytes of spill stores; all of TripExtras took kFollow's from 256 to 404).
template <class T>
struct TripFollowExtras {
  KOKKOS_INLINE_FUNCTION static constexpr bool wraps(int) { return false; }
  TripSide<T> west, east, south, north;
};
// kField alone (a field's operator with its ghosts held still and no source): its faces.
template <class T>
struct TripFieldExtras {
  KOKKOS_INLINE_FUNCTION static constexpr bool wraps(int) { return false; }
  const T* faces = nullptr;
};
// kMirror's sides (kWraps false) or kWrap's (true).
template <bool kWraps>
struct TripFoldExtras {
  // Bit k for side k in Trip::shrink's order: TripRule::mirror_sides, or both sides of each of
  // TripRule::wrap_axes.
  unsigned sides = 0;
  // Whether axis a (0 y, 1 x) wraps.
  KOKKOS_INLINE_FUNCTION bool wraps(const int a) const { return kWraps && ((sides >> (2 * a)) & 1u); }
  // Side k's mirrored or wrapped edge, from the trip's `first` box, which covers kMaxTripSteps
  // cells of its image and never shrinks there; kNoMirror's where the side does neither.
  KOKKOS_INLINE_FUNCTION int edge(const int k, const Box& first) const {
    if (!((sides >> k) & 1u)) return k % 2 == 0 ? -kNoMirror : kNoMirror;
    const int e = k == 0 ? first.y0 : k == 1 ? first.y1 : k == 2 ? first.x0 : first.x1;
    return k % 2 == 0 ? e + kMaxTripSteps : e - kMaxTripSteps;
  }
  // The index v along axis a read at: reflected (kMirror) or wrapped (kWrap) past the edges.
  // kWrap's rows (read a row at a time) test their axis first, and its columns (once a thread)
  // select their edges: of the forms tried, those with which ptxas spilled the float trips of 8
  // steps least (none in one trip, 36 / 120 bytes of spill stores / loads in a chain).
  KOKKOS_INLINE_FUNCTION int folded(const int v, const int a, const Box& first) const {
    if constexpr (kWraps) {  // both sides of an axis or neither
      if (a == 0) return wraps(0) ? wrapped(v, first.y0 + kMaxTripSteps, first.y1 - kMaxTripSteps) : v;
      const bool w = wraps(1);
      return wrapped(v, w ? first.x0 + kMaxTripSteps : -kNoMirror, w ? first.x1 - kMaxTripSteps : kNoMirror);
    }
    return reflected(v, edge(2 * a, first), edge(2 * a + 1, first));
  }
};
template <class T, int kForm>
using TripExtrasOf = std::conditional_t<
    kForm == 0, TripNoExtras,
    std::conditional_t<
        kForm == kMirror || kForm == kWrap, TripFoldExtras<kForm == kWrap>,
        std::conditional_t<kForm == kFollow, TripFollowExtras<T>,
                           std::conditional_t<kForm == kField, TripFieldExtras<T>, TripExtras<T>>>>>;

// Bits of a column's `updates` above its steps': its cells are the west (east) edge's, whose
// ghosts follow them (kFollow), by neumann's rule or by convective's.
constexpr unsigned kNeumannWest = 1u << 28, kNeumannEast = 1u << 29;
constexpr unsigned kConvectiveWest = 1u << 30, kConvectiveEast = 1u << 31;
constexpr unsigned kAtWest = kNeumannWest | kConvectiveWest, kAtEast = kNeumannEast | kConvectiveEast;

// The end of the run of a stream's rows from `from` (before `to`) that are all, or all not,
// among the rows [g, g + m) of the two `windows` g (ghosts set), and which (`ghosts`).
KOKKOS_INLINE_FUNCTION int ghost_rows_split(const int from, const int to, const int (&windows)[2], const int m,
                                            bool& ghosts) {
  int end = to;
  ghosts = false;
  for (int w = 0; w < 2; ++w) {
    const int g = windows[w];
    if (from >= g && from < g + m) {
      ghosts = true;
      end = end < g + m ? end : g + m;
    } else if (g > from) {
      end = end < g ? end : g;
    }
  }
  return end;
}

}  // namespace trident::diffusion::trips
