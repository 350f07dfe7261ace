#pragma once
// The launch of the index's screen (query_kernel.hpp) over a range of a batch's rows: the
// list kind and length (registers up to 80 entries, compiled for each length, else the
// batch's list arrays) and how many leaves each row screens around its key first.
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "knn/detail/index/sphere_index.hpp"
#include "knn/detail/screen_kernels.hpp"

namespace trident::knn {

// How a pass keeps its lists: kc entries a row, in registers or in the list arrays.
struct IndexLists {
  int kc = 1;
  bool registers = false;
};

// The lists of a pass that wants kc_wanted entries a row over n_refs references, screened
// in float64 or float32: in registers (kc rounded up to a compiled length) when
// `registers_allowed` and kc_wanted is at most 80 (float32) or 64 (float64), else
// kc_wanted entries (at most n_refs) in the list arrays.
IndexLists index_lists(int kc_wanted, std::int64_t n_refs, bool float64, bool registers_allowed);

// Leaves a row screens around its own key before the depth-first walk: enough to hold a
// list of kc entries and one more (the walk skips no cell before the list holds k entries;
// with fewer leaves first it wanders through many at large k: docs/history/knn.md).
int default_start_leaves(int kc);

// Screens rows [r0, r1) of a batch (observations `sorted`, in key order) into `best` and
// `best_index`, on `space`; adds the leaves screened to `leaves` (on the device).
template <class T>
void screen_rows(const ExecSpace& space, const SphereIndexView& ix, const PointsView<double>& sorted,
                 const ListValues<T>& best, const ListIndices& best_index, int r0, int r1, int k, IndexLists lists,
                 int start_leaves, const Kokkos::View<std::int64_t, DeviceMemory>& leaves);

extern template void screen_rows<float>(const ExecSpace&, const SphereIndexView&, const PointsView<double>&,
                                        const ListValues<float>&, const ListIndices&, int, int, int, IndexLists, int,
                                        const Kokkos::View<std::int64_t, DeviceMemory>&);
extern template void screen_rows<double>(const ExecSpace&, const SphereIndexView&, const PointsView<double>&,
                                         const ListValues<double>&, const ListIndices&, int, int, int, IndexLists, int,
                                         const Kokkos::View<std::int64_t, DeviceMemory>&);

}  // namespace trident::knn
