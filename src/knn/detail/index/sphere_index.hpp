#pragma once
// The spatial index of the references on the sphere, built on the device: the references
// sorted by their cube key (cube_key.hpp), cut into leaves of kLeafSize consecutive ones,
// and a tree of kFanout consecutive nodes a parent above them. Every node holds a ball
// (centre, radius) that contains its references, so that |p - centre| - radius is a lower
// bound of the chord from p to any of them: a cell's lower bound, whose search stops once
// every cell not yet searched lies beyond the k-th neighbour (query_kernel.hpp).
//
// Leaves of a fixed count, not of a fixed area: the cells follow the references' density
// by construction, so points in a 100 m square get leaves as small as their spacing, and
// the nodes of a dense place are as few as anywhere else.
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "knn/detail/screen_kernels.hpp"
#include "transport/staged_upload.hpp"

namespace trident::knn {

constexpr int kLeafSize = 16;      // references a leaf (the last may hold fewer)
constexpr int kFanout = 8;         // children a node (the last of a level may have fewer)
constexpr int kMaxLevels = 12;     // leaves (level 0) to the root: 16 * 8^11 > 2^31 references

// The index as the query kernel reads it (views and a few numbers; copied into kernels).
struct SphereIndexView {
  PointsView<double> sorted;                   // references in key order
  Kokkos::View<int*, DeviceMemory> reference;  // sorted(i) is reference(i) of the input
  // every level's balls, leaves first: level l's node i at nodes(level_start[l] + i),
  // centre in x, y, z and radius in w; node i of level l > 0 has children kFanout * i ...
  // of level l - 1, and leaf i holds sorted(kLeafSize * i ...)
  Kokkos::View<Vec4<double>*, DeviceMemory> nodes;
  // the cube key (cube_key.hpp) of each leaf's first reference: where a point lies on the
  // curve among the leaves
  Kokkos::View<std::uint64_t*, DeviceMemory> leaf_keys;
  Kokkos::Array<int, kMaxLevels> level_start{}, level_count{};
  int levels = 0;      // the top level (levels - 1) holds one node, the root
  int references = 0;  // how many

  // The last leaf whose first key is at most `key` (0 when none is): the leaf whose span
  // of the curve holds that key.
  KOKKOS_INLINE_FUNCTION int leaf_of(std::uint64_t key) const {
    int lo = 0, hi = level_count[0] - 1;
    while (lo < hi) {
      const int mid = lo + (hi - lo + 1) / 2;
      if (leaf_keys(mid) <= key) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }
};

struct SphereIndex {
  SphereIndexView view;
  PointsView<double> references;  // the input order, for the float64 settling
  double build_seconds = 0.0;     // upload, keys, sort and balls, fenced

  // Device bytes of the index itself (sorted references, their input indices, the balls,
  // the leaves' keys), beside the references' own copy.
  std::size_t bytes() const;
};

// Builds the index of `references` (unit vectors; fewer than 2^31) on the device. They go
// up through `upload` where given (its buffers made before the timed build), else through
// one of its own.
SphereIndex build_sphere_index(const std::vector<Vec4<double>>& references,
                               transport::StagedUpload* upload = nullptr);

// Device bytes that building the index of `references` references takes at its peak: the
// references' copy, the index, and the keys and orders of the sort (twice each, as the
// sort ping-pongs). For the memory check before work.
std::size_t sphere_index_build_bytes(std::int64_t references);

}  // namespace trident::knn
