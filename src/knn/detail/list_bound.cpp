#include "knn/detail/list_bound.hpp"

namespace trident::knn {

ListBound ListBound::places_of(const std::vector<Vec4<double>>& references, std::int64_t most_places) {
  const auto n = static_cast<std::int64_t>(references.size());
  if (n == 0 || most_places < 1) return {};
  const std::int64_t stride = (n + most_places - 1) / most_places;
  RowList rows;
  rows.reserve(static_cast<std::size_t>((n + stride - 1) / stride));
  for (std::int64_t j = 0; j < n; j += stride) rows.push_back(j);
  const std::vector<std::uint32_t> keys = order_by_place(references.data(), rows, 0);
  ListBound bound;
  const auto m = static_cast<std::int64_t>(rows.size());
  bound.keys = decltype(bound.keys)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::knn::place_keys"), m);
  bound.places = decltype(bound.places)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::knn::places"), m);
  auto h_keys = Kokkos::create_mirror_view(bound.keys);
  auto h_places = Kokkos::create_mirror_view(bound.places);
  for (std::int64_t i = 0; i < m; ++i) {
    h_keys(i) = keys[static_cast<std::size_t>(i)];
    h_places(i) = references[static_cast<std::size_t>(rows[static_cast<std::size_t>(i)])];
    h_places(i).w = 0.0;
  }
  Kokkos::deep_copy(bound.keys, h_keys);
  Kokkos::deep_copy(bound.places, h_places);
  return bound;
}

}  // namespace trident::knn
