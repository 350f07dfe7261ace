// Start fields built on the device: the gaussian against its host formula, the jagged
// field against an independent float64 reference (a naive DFT) and bitwise the same on any
// rank count and block layout, and the exact distributed selection behind its percentile.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "diffusion/detail/decomposition.hpp"
#include "diffusion/detail/exact_select.hpp"
#include "diffusion/detail/start_field.hpp"

namespace trident::diffusion {
namespace {

std::vector<double> whole_field(const diffusion::StartField& start, std::int64_t nx, std::int64_t ny) {
  return start_block(MPI_COMM_SELF, start, nx, ny, {0, nx}, {0, ny});
}

// --- an independent reference of the jagged field, from the README's definition ---

std::uint64_t splitmix_output(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double reference_noise(std::uint64_t seed, std::uint64_t cell) {
  const std::uint64_t gamma = 0x9E3779B97F4A7C15ull, key = splitmix_output(seed + gamma);
  const auto uniform = [&](std::uint64_t word) {
    return (static_cast<double>(splitmix_output(key + (word + 1) * gamma) >> 11) + 0.5) / 9007199254740992.0;
  };
  return std::sqrt(-2 * std::log(uniform(2 * cell))) * std::cos(2 * M_PI * uniform(2 * cell + 1));
}

// A plain O((nx ny)^2) 2D DFT; sign -1 forward, +1 inverse (unnormalised).
std::vector<std::complex<double>> naive_dft(const std::vector<std::complex<double>>& a, long nx, long ny, int sign) {
  std::vector<std::complex<double>> out(a.size());
  for (long ky = 0; ky < ny; ++ky)
    for (long kx = 0; kx < nx; ++kx) {
      std::complex<double> sum = 0;
      for (long j = 0; j < ny; ++j)
        for (long i = 0; i < nx; ++i) {
          const double phase = 2 * M_PI * (double((kx * i) % nx) / nx + double((ky * j) % ny) / ny);
          sum += a[j * nx + i] * std::polar(1.0, sign * phase);
        }
      out[ky * nx + kx] = sum;
    }
  return out;
}

std::vector<double> reference_jagged(const diffusion::StartField& s, long nx, long ny) {
  std::vector<std::complex<double>> a(nx * ny);
  for (long c = 0; c < nx * ny; ++c) a[c] = reference_noise(s.seed, c);
  a = naive_dft(a, nx, ny, -1);
  for (long ky = 0; ky < ny; ++ky)
    for (long kx = 0; kx < nx; ++kx) {
      const double fx = std::min(kx, nx - kx), fy = std::min(ky, ny - ky), k = std::hypot(fx, fy);
      a[ky * nx + kx] *= k > 0 ? std::pow(k, -s.exponent) : 0.0;
    }
  a = naive_dft(a, nx, ny, +1);
  const double cx = 0.5 * (nx - 1), cy = 0.5 * (ny - 1), r = s.radius * std::min(nx, ny);
  std::vector<double> inside_values, u(nx * ny, 0.0);
  std::vector<bool> inside(nx * ny);
  for (long j = 0; j < ny; ++j)
    for (long i = 0; i < nx; ++i)
      if ((i - cx) * (i - cx) + (j - cy) * (j - cy) <= r * r) {
        inside[j * nx + i] = true;
        inside_values.push_back(a[j * nx + i].real());
      }
  std::sort(inside_values.begin(), inside_values.end());
  const double low = inside_values.front(), high = inside_values.back();
  const double threshold =
      inside_values[std::size_t(std::floor(s.percentile / 100 * double(inside_values.size() - 1)))];
  for (long c = 0; c < nx * ny; ++c) {
    const double v = a[c].real();
    if (inside[c] && v >= threshold) u[c] = (v - low) / (high - low);
  }
  return u;
}

TEST(JaggedField, MatchesANaiveDftReference) {
  struct Case {
    long nx, ny;
    std::uint64_t seed;
    double exponent, radius, percentile;
  };
  for (const Case& c : {Case{24, 20, 42, 1.7, 0.45, 70}, Case{15, 9, 7, 1.2, 0.6, 35}, Case{8, 13, 3, 2.5, 10, 0}}) {
    diffusion::StartField s;
    s.seed = c.seed;
    s.exponent = c.exponent;
    s.radius = c.radius;
    s.percentile = c.percentile;
    const std::vector<double> u = whole_field(s, c.nx, c.ny), reference = reference_jagged(s, c.nx, c.ny);
    ASSERT_EQ(u.size(), reference.size());
    for (std::size_t k = 0; k < u.size(); ++k)
      EXPECT_NEAR(u[k], reference[k], 1e-12) << c.nx << " x " << c.ny << " at cell " << k;
  }
}

TEST(JaggedField, ZeroesExactlyThePercentileOfTheDisc) {
  diffusion::StartField s;
  s.seed = 5;
  const long nx = 70, ny = 50;
  const double cx = 34.5, cy = 24.5, r = 0.45 * 50;
  for (const double p : {0.0, 30.0, 70.0, 99.5, 100.0}) {
    s.percentile = p;
    const std::vector<double> u = whole_field(s, nx, ny);
    std::int64_t inside = 0, zero = 0, ones = 0;
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) {
        const double v = u[j * nx + i];
        const bool in = (i - cx) * (i - cx) + (j - cy) * (j - cy) <= r * r;
        if (!in) EXPECT_EQ(v, 0.0);
        EXPECT_GE(v, 0.0);
        EXPECT_LE(v, 1.0);
        inside += in;
        zero += in && v == 0.0;
        ones += v == 1.0;
      }
    // The value at rank `at` stays and everything below it goes (noise has no ties); at
    // rank 0 the minimum stays but scales to 0.
    const auto at = static_cast<std::int64_t>(std::floor(p / 100 * double(inside - 1)));
    EXPECT_EQ(zero, std::max<std::int64_t>(at, 1)) << "percentile " << p;
    EXPECT_EQ(ones, 1);
  }
}

TEST(JaggedField, DependsOnlyOnTheSeed) {
  diffusion::StartField a, b;
  a.seed = b.seed = 9;
  EXPECT_EQ(whole_field(a, 33, 17), whole_field(b, 33, 17));
  b.seed = 10;
  EXPECT_NE(whole_field(a, 33, 17), whole_field(b, 33, 17));
}

TEST(JaggedField, SpectrumFollowsThePowerLaw) {
  // A steeper exponent moves power to low wavenumbers: the roughness (mean squared
  // neighbour difference over variance) falls.
  const auto roughness = [](double exponent) {
    diffusion::StartField s;
    s.seed = 4;
    s.exponent = exponent;
    s.percentile = 0;
    s.radius = 10;  // the whole grid
    const std::vector<double> u = whole_field(s, 64, 64);
    double mean = 0, variance = 0, step = 0;
    for (double v : u) mean += v / u.size();
    for (double v : u) variance += (v - mean) * (v - mean);
    for (std::size_t k = 1; k < u.size(); ++k) step += (u[k] - u[k - 1]) * (u[k] - u[k - 1]);
    return step / variance;
  };
  EXPECT_GT(roughness(0.5), 2 * roughness(1.7));
}

TEST(GaussianField, MatchesItsFormulaOnEveryBlock) {
  diffusion::StartField s;
  s.kind = diffusion::StartField::Kind::gaussian;
  s.centre = {0.25, 0.7};
  s.width = 0.1;
  s.amplitude = 2.0;
  const long nx = 41, ny = 21;
  const double cx = 0.25 * 40, cy = 0.7 * 20, w = 2.1;
  for (const auto& [x, y] : {std::pair<Extent, Extent>{{0, nx}, {0, ny}}, {{5, 17}, {3, 9}}, {{40, 1}, {20, 1}}}) {
    const std::vector<double> u = start_block(MPI_COMM_SELF, s, nx, ny, x, y);
    ASSERT_EQ(u.size(), std::size_t(x.size * y.size));
    for (long j = 0; j < y.size; ++j)
      for (long i = 0; i < x.size; ++i) {
        const double dx = x.offset + i - cx, dy = y.offset + j - cy;
        const double expected = 2.0 * std::exp(-(dx * dx + dy * dy) / (2 * w * w));
        EXPECT_NEAR(u[j * x.size + i], expected, 1e-15 * 2.0);
      }
  }
  // float32 blocks are the float64 values rounded once
  Kokkos::View<float**, Kokkos::LayoutRight> single("single", ny, nx);
  fill_start_block<float>(MPI_COMM_SELF, s, nx, ny, {0, nx}, {0, ny}, single);
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), single);
  const std::vector<double> u = start_block(MPI_COMM_SELF, s, nx, ny, {0, nx}, {0, ny});
  for (long k = 0; k < nx * ny; ++k) EXPECT_EQ(host.data()[k], static_cast<float>(u[k]));
}

TEST(GaussianField, OverflowingFloat32IsNotFinite) {
  diffusion::StartField s;
  s.kind = diffusion::StartField::Kind::gaussian;
  s.amplitude = 1e300;
  Kokkos::View<float**, Kokkos::LayoutRight> single("single", 5, 6);
  fill_start_block<float>(MPI_COMM_SELF, s, 6, 5, {0, 6}, {0, 5}, single);
  EXPECT_TRUE(any_not_finite<float>(single));
  Kokkos::View<double**, Kokkos::LayoutRight> dual("double", 5, 6);
  fill_start_block<double>(MPI_COMM_SELF, s, 6, 5, {0, 6}, {0, 5}, dual);
  EXPECT_FALSE(any_not_finite<double>(dual));
}

// --- distributed: every rank count from 1 to the job's, several layouts, uneven splits ---

// Runs `check(sub, count)` on sub-communicators of 1, 2, ... ranks of the job.
template <class Check>
void on_each_rank_count(const Check& check) {
  int size, rank;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int count = 1; count <= size; ++count) {
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, rank < count ? 0 : MPI_UNDEFINED, rank, &sub);
    if (sub != MPI_COMM_NULL) {
      check(sub, count);
      MPI_Comm_free(&sub);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

TEST(MpiJaggedField, BitwiseTheSameOnAnyRankCountAndLayout) {
  diffusion::StartField s;
  s.seed = 23;
  for (const auto& [nx, ny] : {std::pair<long, long>{37, 29}, {16, 41}, {7, 5}}) {
    const std::vector<double> whole = whole_field(s, nx, ny);
    on_each_rank_count([&, nx = nx, ny = ny](MPI_Comm sub, int count) {
      std::vector<std::array<std::int64_t, 2>> layouts{{0, 0}, {count, 1}, {1, count}};
      for (const auto& layout : layouts) {
        if (layout[0] > nx || layout[1] > ny) continue;
        const Decomposition d(sub, nx, ny, layout);
        const std::vector<double> block = start_block(d.cart(), s, nx, ny, d.x(), d.y());
        bool same = true;
        for (long j = 0; j < d.y().size; ++j)
          for (long i = 0; i < d.x().size; ++i)
            same = same && std::memcmp(&block[j * d.x().size + i],
                                       &whole[(d.y().offset + j) * nx + d.x().offset + i], sizeof(double)) == 0;
        EXPECT_TRUE(same) << nx << " x " << ny << " on " << count << " ranks as " << layout[0] << " x " << layout[1];
      }
      // Blocks that do not tile the grid, of uneven sizes: a rank may want any cells.
      int me;
      MPI_Comm_rank(sub, &me);
      const std::int64_t y0 = (2 * me) % ny;
      const Extent x{me % nx, nx - me % nx}, y{y0, std::min<std::int64_t>(1 + me % 3, ny - y0)};
      const std::vector<double> block = start_block(sub, s, nx, ny, x, y);
      for (long j = 0; j < y.size; ++j)
        for (long i = 0; i < x.size; ++i)
          ASSERT_EQ(block[j * x.size + i], whole[(y.offset + j) * nx + x.offset + i]);
    });
  }
}

TEST(MpiExactSelect, FindsEveryRankAmongTiesAndSignedZeros) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::vector<double> pool{-1.5, -0.0, 0.0, 2.0, 2.0, 2.0, 7.25, 1e300, -1e-300, 5e-324, -1e308, 2.0};
  std::mt19937 rng(17 + rank);
  std::vector<std::uint64_t> mine;
  const int count = 5 + 37 * rank;  // uneven shares, the first rank's small
  for (int k = 0; k < count; ++k) mine.push_back(order_key(pool[rng() % pool.size()]));
  for (int k = 0; k < 3; ++k) mine.push_back(kExcludedKey);  // cells outside the disc come last
  Kokkos::View<std::uint64_t*> keys("keys", mine.size());
  auto host = Kokkos::create_mirror_view(keys);
  std::copy(mine.begin(), mine.end(), host.data());
  Kokkos::deep_copy(keys, host);
  std::vector<int> counts(size);
  const int n = static_cast<int>(mine.size());
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<int> offsets(size, 0);
  for (int r = 1; r < size; ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  std::vector<std::uint64_t> all(offsets.back() + counts.back());
  MPI_Allgatherv(mine.data(), n, MPI_UINT64_T, all.data(), counts.data(), offsets.data(), MPI_UINT64_T,
                 MPI_COMM_WORLD);
  std::sort(all.begin(), all.end());
  for (std::size_t k = 0; k < all.size(); ++k) ASSERT_EQ(select_key(MPI_COMM_WORLD, keys, std::int64_t(k)), all[k]) << k;
  // keys order as the values and turn back into them
  for (const double v : pool) {
    EXPECT_EQ(std::signbit(from_order_key(order_key(v))), std::signbit(v));
    EXPECT_EQ(from_order_key(order_key(v)), v);
    for (const double w : pool)
      if (v < w) EXPECT_LT(order_key(v), order_key(w));
  }
  EXPECT_LT(order_key(-0.0), order_key(0.0));
  EXPECT_LT(order_key(1.7976931348623157e308), kExcludedKey);
}

}  // namespace
}  // namespace trident::diffusion
