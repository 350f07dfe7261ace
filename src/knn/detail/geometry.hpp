#pragma once
// Points on the sphere: unit vectors, the float64 great-circle distance, the tie rule and
// the screening error bound. Usable on the host and in device kernels.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/kokkos_math.hpp"
#include "knn/detail/row_list.hpp"

namespace trident::knn {

// A 3D vector padded to 4 components so a device load is one 16- or 32-byte access.
template <class T>
struct alignas(4 * sizeof(T)) Vec4 {
  T x, y, z, w;
};

constexpr double kPi = 3.14159265358979323846;

// Unit vector of (latitude, longitude) in degrees. Computed on the host only (glibc's
// sin/cos), so that every backend works from identical float64 vectors.
Vec4<double> unit_vector(double latitude_deg, double longitude_deg);

// A unit vector's place along a Morton (Z-order) curve through the cube around the sphere,
// 21 bits per axis (about 3 m): points near each other on the sphere are mostly near each
// other on the curve, so consecutive points in this order cover one place.
KOKKOS_INLINE_FUNCTION std::uint64_t morton_key(const Vec4<double>& v) {
  const auto spread = [](std::uint64_t x) {  // bit i of 21 to bit 3i
    x &= 0x1fffff;
    x = (x | x << 32) & 0x1f00000000ffffULL;
    x = (x | x << 16) & 0x1f0000ff0000ffULL;
    x = (x | x << 8) & 0x100f00f00f00f00fULL;
    x = (x | x << 4) & 0x10c30c30c30c30c3ULL;
    x = (x | x << 2) & 0x1249249249249249ULL;
    return x;
  };
  const auto cell = [](double c) {
    const double t = (c + 1.0) * 0.5;
    return static_cast<std::uint64_t>((t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t) * 2097151.0);
  };
  return spread(cell(v.x)) | spread(cell(v.y)) << 1 | spread(cell(v.z)) << 2;
}

// The top 32 bits of the Morton key: cells of about 12 km.
KOKKOS_INLINE_FUNCTION std::uint32_t place_key(const Vec4<double>& v) {
  return static_cast<std::uint32_t>(morton_key(v) >> 31);
}

// Orders rows[from..] by the place keys of their points (a slice of one cell is compact
// enough for the screen), keeping the rows' order within a cell, so the order is the
// same on every run; returns the keys in that order. A stable radix sort in two passes
// of 16 bits: at 2^24 rows a fraction of a comparison sort's time.
std::vector<std::uint32_t> order_by_place(const Vec4<double>* points, RowList& rows,
                                          std::size_t from);

// Below this many points per host thread, the threads' start costs more than they save
// (a unit vector takes 40-75 ns on one core). The loop over generated points uses it too.
constexpr std::int64_t kPointsPerHostThread = 1 << 16;

// out[i] = unit_vector of (lat_lon[2i], lat_lon[2i + 1]) for i < count, on the CPUs this
// process may use (core/host_threads.hpp): the same values as one loop.
void unit_vectors_into(const double* lat_lon, std::int64_t count, Vec4<double>* out);

#if KOKKOS_VERSION >= 40000
KOKKOS_INLINE_FUNCTION double fused_multiply_add(double a, double b, double c) { return Kokkos::fma(a, b, c); }
#else
KOKKOS_INLINE_FUNCTION double fused_multiply_add(double a, double b, double c) { return std::fma(a, b, c); }
#endif

// a*b - c*d to a few ulps of the result even when the products nearly cancel (Kahan's
// algorithm: the rounding error of c*d is recovered exactly with an FMA).
KOKKOS_INLINE_FUNCTION double difference_of_products(double a, double b, double c, double d) {
  const double w = c * d;
  const double e = fused_multiply_add(-c, d, w);
  const double f = fused_multiply_add(a, b, -w);
  return f + e;
}

// Great-circle angle between the float64 unit vectors p and q: atan2(|p x q|, p.q). The
// cross product's components are differences of nearly equal products for near points
// (and near antipodes); computing each with Kahan's algorithm keeps |p x q| accurate to a
// few ulps at every separation, so the angle carries ~1e-16 relative error everywhere and
// every backend (FMA contraction or not) agrees far within the 1e-12 tie tolerance. Being
// a ratio, it also ignores the ~1e-16 length errors of the vectors.
KOKKOS_INLINE_FUNCTION double great_circle_angle(const Vec4<double>& p, const Vec4<double>& q) {
  const double x = difference_of_products(p.y, q.z, p.z, q.y);
  const double y = difference_of_products(p.z, q.x, p.x, q.z);
  const double z = difference_of_products(p.x, q.y, p.y, q.x);
  const double dot = p.x * q.x + p.y * q.y + p.z * q.z;
  return kmath::atan2(kmath::sqrt(x * x + y * y + z * z), dot);
}

// Two float64 distances count as equal (a tie) when they differ by at most kTieRelative
// relative; see Order in settle_kernels.hpp for how chains of ties are grouped.
constexpr double kTieRelative = 1e-12;

// Screening window. The screen ranks references by the squared chord S = |a^ - b^|^2,
// evaluated in the screening precision (unit roundoff u) on the coordinates relative to a
// centre c chosen per batch (any point; see Centre): a = p - c and b = q - c computed in
// float64 and rounded to a^, b^ (|a^_i - a_i| <= u|a_i|, the float64 subtraction adds
// 2^-53|a_i|). With d = |p - q| the exact chord:
//   differences:  |fl(a^_i - b^_i) - (a_i - b_i)| <= u(|a_i| + |b_i|)(1 + u) + u|a_i - b_i|,
//                 so the computed difference vector e obeys | |e| - d | <= u(|a| + |b|) + u d
//                 + O(u^2) (Minkowski);
//   sum of squares (multiplies and adds in any order, contracted into FMAs or not):
//                 S = |e|^2 (1 + t), |t| <= 3u + O(u^2), so |sqrt(S) - |e|| <= 1.5u|e| + O(u^2).
// With |b| <= |a| + d: |sqrt(S) - d| <= 2u|a| + 3.5u d + O(u^2), and d <= sqrt(S) + that, so
//   B(S) = 8u(|a| + sqrt(S)) + kVectorSlack
// bounds the error of every pair of an observation at |a| from the centre, whatever the
// reference. kVectorSlack covers the float64 unit vectors' own length errors (|p| = 1 +-
// 2e-16: the distance is measured between directions, the chord between the vectors).
// The error thus scales with the observation's distance from the centre, not with the
// sphere: in a cluster 100 m across screened around its centre, B is about 1e-11 m.
//
// B grows with S, so the true k-th chord is at most sqrt(S_k) + B(S_k) (S_k the k-th
// smallest screened value), and a reference with sqrt(S_r) - B(S_r) above that is farther
// than the k-th true neighbour; sqrt(S) - B(S) grows with S too, so once one entry of the
// sorted list lies outside the window every later one (and every reference left out of
// the list) does. kTieSlack keeps references whose distance could tie with the k-th
// (1e-12 relative of a chord <= 2).
constexpr double kTieSlack = 1e-11;
constexpr double kVectorSlack = 1e-15;
template <class T>
struct UnitRoundoff;
template <>
struct UnitRoundoff<float> {
  static constexpr double value = 5.9604644775390625e-08;  // 2^-24
};
template <>
struct UnitRoundoff<double> {
  static constexpr double value = 1.1102230246251565e-16;  // 2^-53
};

// Which screened values lie within the settle window of the k-th, for an observation at
// `offset` = |p - c| from its batch's centre.
template <class T>
struct ScreeningWindow {
  double limit;  // sqrt(S_k) + B(S_k) + B's part independent of S_r + kTieSlack
  static constexpr double b = 8.0 * UnitRoundoff<T>::value;

  KOKKOS_INLINE_FUNCTION ScreeningWindow(T kth_squared_chord, double offset)
      : limit(kmath::sqrt(static_cast<double>(kth_squared_chord)) * (1.0 + b) + 2.0 * (b * offset + kVectorSlack) +
              kTieSlack) {}

  // sqrt(S) - B(S) <= limit
  KOKKOS_INLINE_FUNCTION bool inside(T squared_chord) const {
    return kmath::sqrt(static_cast<double>(squared_chord)) * (1.0 - b) <= limit;
  }
};

}  // namespace trident::knn
