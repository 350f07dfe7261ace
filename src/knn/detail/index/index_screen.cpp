// The index screen's launches (index_screen.hpp): one kernel a register list length, one
// for lists in the batch's arrays.
#include "knn/detail/index/index_screen.hpp"

#include <algorithm>
#include <string>

#include "knn/detail/index/query_kernel.hpp"

namespace trident::knn {

namespace {

// The register list lengths compiled (the brute force's register screen's, and 64 and 80),
// and the longest in each precision that ptxas (sm_90) keeps in registers without spilling
// (docs/history/knn.md has the counts).
constexpr int kRegisterLengths[] = {2, 4, 8, 12, 20, 32, 40, 48, 64, 80};
constexpr int kLongestFloatRegisters = 80, kLongestDoubleRegisters = 64;

template <class T, class List>
void launch(const ExecSpace& space, const std::string& label, const IndexScreen<T, List>& screen, int r0, int r1,
            const Kokkos::View<std::int64_t, DeviceMemory>& leaves) {
  Kokkos::parallel_reduce(label, Kokkos::RangePolicy<ExecSpace>(space, r0, r1), screen, leaves);
}

template <class T, int K>
bool screen_registers(const ExecSpace& space, const IndexScreen<T, GlobalList<T>>& g, int r0, int r1,
                      const Kokkos::View<std::int64_t, DeviceMemory>& leaves) {
  if (g.kc != K) return false;
  const IndexScreen<T, RegisterList<T, K>> screen{g.ix, g.obs, g.best, g.best_index, g.k, g.kc, g.kept, g.start_leaves};
  launch(space, "trident::knn::index::screen_registers_k" + std::to_string(K), screen, r0, r1, leaves);
  return true;
}

}  // namespace

IndexLists index_lists(int kc_wanted, std::int64_t n_refs, bool float64, bool registers_allowed) {
  const int longest = float64 ? kLongestDoubleRegisters : kLongestFloatRegisters;
  if (registers_allowed) {
    for (int length : kRegisterLengths) {
      if (length >= kc_wanted && length <= longest) return IndexLists{length, true};
    }
  }
  return IndexLists{static_cast<int>(std::min<std::int64_t>(kc_wanted, n_refs)), false};
}

int default_start_leaves(int kc) { return (kc + kLeafSize - 1) / kLeafSize + 1; }

template <class T>
void screen_rows(const ExecSpace& space, const SphereIndexView& ix, const PointsView<double>& sorted,
                 const ListValues<T>& best, const ListIndices& best_index, int r0, int r1, int k, IndexLists lists,
                 int start_leaves, const Kokkos::View<std::int64_t, DeviceMemory>& leaves) {
  const int kept = static_cast<int>(std::min<std::int64_t>(lists.kc, ix.references));
  const IndexScreen<T, GlobalList<T>> global{ix, sorted, best, best_index, k, lists.kc, kept, start_leaves};
  if (lists.registers &&
      (screen_registers<T, 2>(space, global, r0, r1, leaves) || screen_registers<T, 4>(space, global, r0, r1, leaves) ||
       screen_registers<T, 8>(space, global, r0, r1, leaves) || screen_registers<T, 12>(space, global, r0, r1, leaves) ||
       screen_registers<T, 20>(space, global, r0, r1, leaves) || screen_registers<T, 32>(space, global, r0, r1, leaves) ||
       screen_registers<T, 40>(space, global, r0, r1, leaves) || screen_registers<T, 48>(space, global, r0, r1, leaves) ||
       screen_registers<T, 64>(space, global, r0, r1, leaves) || screen_registers<T, 80>(space, global, r0, r1, leaves))) {
    return;
  }
  launch(space, "trident::knn::index::screen_lists", global, r0, r1, leaves);
}

template void screen_rows<float>(const ExecSpace&, const SphereIndexView&, const PointsView<double>&,
                                 const ListValues<float>&, const ListIndices&, int, int, int, IndexLists, int,
                                 const Kokkos::View<std::int64_t, DeviceMemory>&);
template void screen_rows<double>(const ExecSpace&, const SphereIndexView&, const PointsView<double>&,
                                  const ListValues<double>&, const ListIndices&, int, int, int, IndexLists, int,
                                  const Kokkos::View<std::int64_t, DeviceMemory>&);

}  // namespace trident::knn
