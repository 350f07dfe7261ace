#pragma once
// Where the screens' lists start. A list that starts empty is beaten about
// Kc (1 + ln(n / Kc)) times over n references in random order, and every time costs an
// insertion (register lists) or a buffer entry (the threshold screens): at k = 64 over 2^14
// references about 6 Kc, most of the screen's time. A list that starts at an upper bound
// t of the Kc-th smallest screened value takes only the references with S <= t, about
// Kc (1 + ln c) insertions when c Kc of them lie under t.
//
// The bound: the references sorted along a Morton curve (places, at most kMostPlaces of
// them, every m-th reference when there are more), the observation's position among
// them, and the largest float64 chord d from the observation to Kc consecutive places
// there (the smallest such largest chord of three windows: ending at, centred on and
// starting at the position). Every pair at chord d screens to at most
//   S <= ((d + 16u + 2e-15) / (1 - 16u))^2
// (geometry.hpp's bound B(S) = 8u(|a| + sqrt(S)) + 1e-15 with |a| <= 2: the centre and the
// points lie in the unit ball), so at least Kc references have S <= t, t that value
// rounded up in the screening precision. The list starts as Kc entries (t+, kNoIndex), t+
// the next value above t: a reference enters when S < t+, i.e. S <= t, and the Kc
// references under t push out every starting entry, so the final list is the same as from
// an empty start (the Kc smallest by (S, index)).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "knn/candidate_order.hpp"
#include "knn/geometry.hpp"
#include "knn/screen_kernels.hpp"

namespace trident::knn {

struct ListBound {
  static constexpr std::int64_t kMostPlaces = std::int64_t(1) << 18;
  Kokkos::View<std::uint64_t*, DeviceMemory> keys;  // ascending
  Kokkos::View<Vec4<double>*, DeviceMemory> places;

  // The places of `references` (host work: a sort of at most kMostPlaces keys).
  static ListBound of(const std::vector<Vec4<double>>& references) {
    const auto n = static_cast<std::int64_t>(references.size());
    const std::int64_t stride = (n + kMostPlaces - 1) / kMostPlaces;
    std::vector<std::pair<std::uint64_t, std::int64_t>> order;
    order.reserve(static_cast<std::size_t>((n + stride - 1) / std::max<std::int64_t>(stride, 1)));
    for (std::int64_t j = 0; j < n; j += stride) order.emplace_back(morton_key(references[j]), j);
    std::sort(order.begin(), order.end());
    ListBound b;
    const auto m = static_cast<std::int64_t>(order.size());
    b.keys = decltype(keys)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::knn::place_keys"), m);
    b.places = decltype(places)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::knn::places"), m);
    auto h_keys = Kokkos::create_mirror_view(b.keys);
    auto h_places = Kokkos::create_mirror_view(b.places);
    for (std::int64_t i = 0; i < m; ++i) {
      h_keys(i) = order[i].first;
      h_places(i) = references[order[i].second];
    }
    Kokkos::deep_copy(b.keys, h_keys);
    Kokkos::deep_copy(b.places, h_places);
    return b;
  }

  // The value a list of kc entries of observation p starts from: t+ as above, or +inf when
  // there are fewer than kc places (or no places: the bound is off).
  template <class T>
  KOKKOS_INLINE_FUNCTION T start_value(const Vec4<double>& p, int kc) const {
    const T infinity = Kokkos::Experimental::infinity<T>::value;
    const auto n = static_cast<std::int64_t>(places.extent(0));
    if (kc < 1 || n < kc) return infinity;
    const std::uint64_t key = morton_key(p);
    std::int64_t lo = 0, hi = n;  // the first place whose key is not below p's
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (keys(mid) < key) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    // windows of kc places within [first, last); long lists take the centred one alone
    const std::int64_t span = 2 * kc <= 512 ? 2 * kc : kc;
    std::int64_t first = lo - span / 2;
    first = first < 0 ? 0 : first + span > n ? n - span : first;
    first = first < 0 ? 0 : first;
    const std::int64_t last = first + span < n ? first + span : n;
    const std::int64_t middle = first + (last - first - kc) / 2;
    double ending = 0, centred = 0, starting = 0;  // largest squared chords of the windows
    for (std::int64_t j = first; j < last; ++j) {
      const Vec4<double> q = places(j);
      const double dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
      const double d2 = dx * dx + dy * dy + dz * dz;
      if (j < first + kc) ending = d2 > ending ? d2 : ending;
      if (j >= middle && j < middle + kc) centred = d2 > centred ? d2 : centred;
      if (j >= last - kc) starting = d2 > starting ? d2 : starting;
    }
    double d2 = ending < centred ? ending : centred;
    d2 = starting < d2 ? starting : d2;
    const double u = UnitRoundoff<T>::value;
    const double root = (kmath::sqrt(d2) + 16.0 * u + 2e-15) / (1.0 - 16.0 * u);
    const double bound = root * root * (1.0 + 1e-15);
    T t = static_cast<T>(bound);
    if (static_cast<double>(t) < bound) t = from_bits<T>(to_bits(t) + 1);
    return from_bits<T>(to_bits(t) + 1);
  }
};

}  // namespace trident::knn
