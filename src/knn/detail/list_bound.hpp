#pragma once
// Where the screens' lists start. A list that starts empty is beaten about
// Kc (1 + ln(n / Kc)) times over n references in random order (about 7 Kc at Kc = 40 over
// 2^14), and every time costs an insertion (register lists, about 5 Kc instructions) or a
// buffer entry (the threshold screens). A list that starts at an upper bound t of its
// Kc-th smallest screened value takes only the references with S <= t: about
// Kc (1 + ln c) insertions when c Kc of them lie under t.
//
// The bound comes from places: references (all of them, or every m-th) sorted along a
// Morton curve (by their place keys: cells of about 12 km), each with a reach R, a chord
// within which at least Kc references lie (from a screen of the places with the search's
// own lists: the screening window's limit of the Kc-th smallest screened value, which
// bounds the Kc-th true chord). By the
// triangle inequality at least Kc references lie within |p - q| + R of an observation p
// for any place q; the smallest such sum over the kWindow places around p's position on
// the curve is the bound's chord d (a place near p: about the spacing of the places
// beyond the Kc-th neighbour's chord). Every pair at chord d screens to at most
//   S <= ((d + 16u + 2e-15) / (1 - 16u))^2
// (geometry.hpp's bound B(S) = 8u(|a| + sqrt(S)) + 1e-15 with |a| <= 2: the centre and the
// points lie in the unit ball), so at least Kc references have S <= t, t that value
// rounded up in the screening precision. The list starts as Kc entries (t+, kNoIndex), t+
// the next value above t: a reference enters when S < t+, i.e. S <= t, and the Kc
// references under t push out every starting entry, so the final list is the same as from
// an empty start (the Kc smallest by (S, index)).
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "knn/detail/candidate_order.hpp"
#include "knn/detail/geometry.hpp"
#include "knn/detail/screen_kernels.hpp"
#include "knn/detail/search_options.hpp"

namespace trident::knn {

struct ListBound {
  static constexpr int kWindow = 8;  // places looked at around an observation's position
  Kokkos::View<std::uint32_t*, DeviceMemory> keys;  // the places' place keys (geometry.hpp), ascending
  Kokkos::View<Vec4<double>*, DeviceMemory> places;  // unit vectors; w: the reach R

  // The places of `references`: every m-th, at most `most_places` (none when < 1), in the
  // order of their place keys; their reaches are left 0 for the search to find (host
  // work: a radix sort of the keys).
  static ListBound places_of(const std::vector<Vec4<double>>& references, std::int64_t most_places);

  // The value a list starts from for observation p: t+ as above, or +inf without places
  // (the bound is off).
  template <class T>
  KOKKOS_INLINE_FUNCTION T start_value(const Vec4<double>& p) const {
    const T infinity = Kokkos::Experimental::infinity<T>::value;
    const auto n = static_cast<std::int64_t>(places.extent(0));
    if (n == 0) return infinity;
    const std::uint32_t key = place_key(p);
    std::int64_t lo = 0, hi = n;  // the first place whose key is not below p's
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (keys(mid) < key) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    std::int64_t first = lo - kWindow / 2;
    first = first + kWindow > n ? n - kWindow : first;
    first = first < 0 ? 0 : first;
    const std::int64_t last = first + kWindow < n ? first + kWindow : n;
    double d = Kokkos::Experimental::infinity<double>::value;
    for (std::int64_t j = first; j < last; ++j) {
      const Vec4<double> q = places(j);
      const double reach = distance_to(p, q) + q.w;
      d = reach < d ? reach : d;
    }
    const double u = UnitRoundoff<T>::value;
    const double root = (d + 16.0 * u + 2e-15) / (1.0 - 16.0 * u);
    const double bound = root * root * (1.0 + 1e-15);
    if (!(bound < 8.0)) return infinity;  // farther than any chord: no use
    T t = static_cast<T>(bound);
    if (static_cast<double>(t) < bound) t = from_bits<T>(to_bits(t) + 1);
    return from_bits<T>(to_bits(t) + 1);
  }
};

// A bound kept between searches over the same references (SearchOptions::bound_cache):
// valid for lists of `kc` in `precision`, from `places` places.
struct ListBoundCache {
  int kc = 0;
  core::Precision precision = core::Precision::float32;
  std::int64_t places = 0;
  ListBound bound;
};

}  // namespace trident::knn
