#pragma once
// The observations' unit vectors, page-locked: the biggest copy to the device. Made in
// pageable memory (huge pages, first touched on every usable CPU) and then locked, which
// costs far less than Kokkos' pinned allocation (cudaHostAlloc) of the same bytes. A set
// searched against itself has them already, as its references: they are locked whole
// instead, so that the index's build uploads them from locked memory too.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/uninitialized_vector.hpp"
#include "knn/detail/geometry.hpp"
#include "transport/page_lock.hpp"

namespace trident::knn {

class ObservationVectors {
 public:
  // From `count` (latitude, longitude) pairs in degrees.
  ObservationVectors(const double* lat_lon, std::int64_t count);
  // Observations first to first + count - 1 of a set searched against itself: its
  // references' own vectors (the same bits: unit_vectors), which must outlive this.
  ObservationVectors(const std::vector<Vec4<double>>& references, std::int64_t first);
  const Vec4<double>* data() const { return data_; }

 private:
  core::UninitializedVector<Vec4<double>> vectors_;  // empty for a set searched against itself
  const Vec4<double>* data_ = nullptr;
  std::optional<transport::PageLock> lock_;  // declared after the vectors: unlocked before they are freed
};

}  // namespace trident::knn
