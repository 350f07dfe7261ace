#include "knn/detail/observation_vectors.hpp"

#include "io/reserve_huge.hpp"

namespace trident::knn {

ObservationVectors::ObservationVectors(const double* lat_lon, std::int64_t count) {
  io::reserve_huge(vectors_, static_cast<std::size_t>(count));
  vectors_.resize(static_cast<std::size_t>(count));
  unit_vectors_into(lat_lon, count, vectors_.data());
  data_ = vectors_.data();
  lock_.emplace(vectors_.data(), vectors_.size() * sizeof(Vec4<double>));
}

ObservationVectors::ObservationVectors(const std::vector<Vec4<double>>& references, std::int64_t first)
    : data_(references.data() + first) {
  // the lock only pins the pages: the vectors are not written through it
  lock_.emplace(const_cast<Vec4<double>*>(references.data()), references.size() * sizeof(Vec4<double>));
}

}  // namespace trident::knn
