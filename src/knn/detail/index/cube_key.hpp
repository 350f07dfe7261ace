#pragma once
// A unit vector's place on the sphere as a 64-bit key: the face of the cube around the
// sphere that its direction crosses (3 bits) and its position along a Hilbert curve over
// that face (30 bits an axis: cells of about 1 cm on Earth). Points near each other on the
// sphere are mostly near each other in the order of their keys, with no special case at
// the poles or the dateline (the key is made from the 3D vector, not from angles).
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "knn/detail/geometry.hpp"

namespace trident::knn::index {

constexpr int kFaceBits = 30;  // bits of each face coordinate

// The position of (x, y) along a Hilbert curve over a square of 2^bits cells a side.
// Unlike a Morton curve, consecutive positions are neighbouring cells, so a run of
// consecutive points (a leaf of the index) covers one compact patch. One level a step,
// from the top: the quadrant's digit and the next orientation come from a table of 4
// orientations x 4 quadrants packed into one constant (4 bits an entry: digit, then
// orientation), with no branch (the textbook loop's branches cost 5 times as much).
KOKKOS_INLINE_FUNCTION std::uint64_t hilbert_position(std::uint32_t x, std::uint32_t y, int bits) {
  constexpr std::uint64_t kTable = 0x43dea970c5b62f18ULL;
  std::uint64_t d = 0;
  unsigned state = 0;
  for (int i = bits - 1; i >= 0; --i) {
    const unsigned quadrant = ((x >> i) & 1) << 1 | ((y >> i) & 1);
    const unsigned entry = static_cast<unsigned>(kTable >> (4 * (state * 4 + quadrant))) & 15;
    d = d << 2 | (entry & 3);
    state = entry >> 2;
  }
  return d;
}

// The cube face that v points through (0 to 5) in the top bits, the Hilbert position of
// v's gnomonic projection on that face below.
KOKKOS_INLINE_FUNCTION std::uint64_t cube_key(const Vec4<double>& v) {
  const double ax = v.x < 0 ? -v.x : v.x, ay = v.y < 0 ? -v.y : v.y, az = v.z < 0 ? -v.z : v.z;
  std::uint64_t face;
  double a, b, m;
  if (ax >= ay && ax >= az) {
    face = v.x >= 0 ? 0 : 1;
    a = v.y, b = v.z, m = ax;
  } else if (ay >= az) {
    face = v.y >= 0 ? 2 : 3;
    a = v.z, b = v.x, m = ay;
  } else {
    face = v.z >= 0 ? 4 : 5;
    a = v.x, b = v.y, m = az;
  }
  constexpr double side = static_cast<double>(std::uint64_t(1) << kFaceBits);
  const auto cell = [side](double t) {  // t in [-1, 1] to [0, 2^30 - 1]
    const double c = (t + 1.0) * 0.5 * side;
    return static_cast<std::uint32_t>(c < 0.0 ? 0.0 : c > side - 1.0 ? side - 1.0 : c);
  };
  return face << (2 * kFaceBits) | hilbert_position(cell(a / m), cell(b / m), kFaceBits);
}

}  // namespace trident::knn::index
