#pragma once
// The observations' unit vectors, page-locked: the biggest copy to the device. Made in
// pageable memory (huge pages, first touched on every usable CPU) and then locked, which
// costs far less than Kokkos' pinned allocation (cudaHostAlloc) of the same bytes.
#include <cstdint>
#include <optional>

#include "core/uninitialized_vector.hpp"
#include "knn/detail/geometry.hpp"
#include "transport/page_lock.hpp"

namespace trident::knn {

class ObservationVectors {
 public:
  // From `count` (latitude, longitude) pairs in degrees.
  ObservationVectors(const double* lat_lon, std::int64_t count);
  const Vec4<double>* data() const { return vectors_.data(); }

 private:
  core::UninitializedVector<Vec4<double>> vectors_;
  std::optional<transport::PageLock> lock_;  // declared after the vectors: unlocked before they are freed
};

}  // namespace trident::knn
