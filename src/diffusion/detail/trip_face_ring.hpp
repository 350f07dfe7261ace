#pragma once
// A float diffusivity field's faces in a trip on a GPU (trip_kernel.hpp): each thread copies
// its column's four faces a cell (field_faces) a row ahead into a ring of its own in shared
// memory, once a trip, and every step reads them there. Read from global memory at each step,
// a team's last rows of faces did not stay in L1 beside u's rows, and their loads waited on L2.
// The copies are asynchronous (cp.async), so they hold no registers while they are in flight;
// a thread reads only what it copied, so no barrier orders them. The values are field_faces',
// bit for bit. A single trip keeps the ring twice over (kTwice, fewer instructions a step),
// a chain once (room for more teams). Double's faces (two a cell, half the bytes) stay in
// L1, and a ring of them ran no faster at 8192^2 (docs/history/diffusion-field.md).
#include <cstddef>
#include <cstdint>

#include "diffusion/detail/stencil_field.hpp"
#include "diffusion/detail/trip.hpp"

namespace trident::diffusion::trips {

template <int kSteps, bool kTwice>
struct FaceRing {
  // Rows held: the kSteps rows that a row's steps reach, and the row copied ahead, each in its
  // slot r % kRows (r a row of the stream). kTwice: read from one address a row, so that a
  // step adds only a constant to it, the slots 2 to kRows - 1 are kept twice, at slots
  // kRows + 2 to 2 kRows - 1 as well: a row's steps read slots p + kRows - k + 1 (p row
  // s - 1's slot, step k), all between 2 and 2 kRows - 1. Stored from slot 2: 2 kRows - 2
  // slots, which leave room for 5 teams a multiprocessor (a single trip's; a chain's take 8,
  // with the ring kept once: docs/history/diffusion-field.md).
  static constexpr int kRows = kSteps + 1;
  static constexpr int kSlots = kTwice ? 2 * kRows - 2 : kRows;
  static constexpr int kSlotBytes = kTripColumns * 16;  // a row's faces, a float4 a cell
  // The ring's floats in a team's scratch (and 16 bytes for its alignment).
  static constexpr int kValues = (kSlots * kSlotBytes + 16) / int(sizeof(float));

  char* base;  // 16-byte aligned

  KOKKOS_INLINE_FUNCTION explicit FaceRing(float* scratch_at) {
    // aligned as an offset from the scratch pointer, so that the compiler still knows the
    // ring is in shared memory and reads it with shared loads, not generic ones
    char* const at = reinterpret_cast<char*>(scratch_at);
    base = at + ((16 - (reinterpret_cast<std::uintptr_t>(at) & 15)) & 15);
  }

  // A thread's ring on a row of the stream: kTwice, the faces of the row that step 1 reaches
  // (step k's lie k - 1 slots below); else the thread's slot 0, and that row's slot.
  struct Row {
    const char* top = nullptr;
    int slot = 0;
  };

  // Row s of a stream from row y0 (trip_kernel.hpp), on `thread`'s column i: starts copying
  // the faces of cell (y0 + s, i) (zero outside the ny x nx grid) as a group of its own, and
  // waits for every group before it, which holds the rows the row's steps reach (s - 1 and
  // before).
  KOKKOS_INLINE_FUNCTION Row fetch(const float* faces, const int ny, const int nx, const int y0, const int s,
                                   const int i, const int thread) const {
    const int t = s % kRows, p = t == 0 ? kRows - 1 : t - 1;  // row s's slot, row s - 1's
    char* const column = base + 16 * thread;  // kTwice: slot 2, the first stored
    if constexpr (!kTwice) {
      copy(faces, ny, nx, y0 + s, i, column + t * kSlotBytes, nullptr);
      return Row{column, p};
    }
    copy(faces, ny, nx, y0 + s, i, column + (t + kRows - 2) * kSlotBytes,
         t >= 2 ? column + (t - 2) * kSlotBytes : nullptr);
    return Row{column + (p + kRows - 2) * kSlotBytes, p};
  }

  // Waits for every copy: before the ring's slots are copied into anew (the next tile, or the
  // tile's second pass).
  KOKKOS_INLINE_FUNCTION static void drain() {
#if defined(__CUDA_ARCH__)
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
  }

  // Step k's faces on a row (west, east, south, north), from fetch's Row.
  KOKKOS_INLINE_FUNCTION static void read(const Row& row, const int k, float (&f)[4]) {
#if defined(__CUDA_ARCH__)
    const int at = kTwice ? 1 - k : row.slot - (k - 1) + (row.slot < k - 1 ? kRows : 0);
    const float4 four = *reinterpret_cast<const float4*>(row.top + at * kSlotBytes);
    f[0] = four.x, f[1] = four.y, f[2] = four.z, f[3] = four.w;  // kFaceWest ... kFaceNorth
#else
    (void)row, (void)k, (void)f;
#endif
  }

 private:
  // Copies cell (j, i)'s faces to `to` and, unless null, to `twin`, as one group.
  KOKKOS_INLINE_FUNCTION static void copy(const float* faces, const int ny, const int nx, const int j, const int i,
                                          char* to, char* twin) {
#if defined(__CUDA_ARCH__)
    const bool inside = static_cast<unsigned>(j) < static_cast<unsigned>(ny) &&
                        static_cast<unsigned>(i) < static_cast<unsigned>(nx);
    const float* const from = faces + (inside ? (std::size_t(j) * std::size_t(nx) + std::size_t(i)) * 4 : 0);
    const int bytes = inside ? 16 : 0;  // zero-filled past `bytes`
    const unsigned shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared), "l"(from), "r"(bytes) : "memory");
    if (twin != nullptr) {
      const unsigned shared_twin = static_cast<unsigned>(__cvta_generic_to_shared(twin));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_twin), "l"(from), "r"(bytes)
                   : "memory");
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    asm volatile("cp.async.wait_group 1;\n" ::: "memory");
#else
    (void)faces, (void)ny, (void)nx, (void)j, (void)i, (void)to, (void)twin;
#endif
  }
};

}  // namespace trident::diffusion::trips
