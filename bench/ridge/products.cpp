// The ridge products alone, on generated matrices of the shapes of bench/ridge/shapes.sh:
// one A v plus one A^T u per "iteration", float32, with the fused engine's row schedule
// (chosen from the rows, as trident does), with whole rows (the schedule before rows were
// cut: at most 16 lanes a row, always whole) and with KokkosSparse::spmv (cuSPARSE
// underneath on GPUs). Prints microseconds per pair of products beside the floor: the
// fused engine's bytes of A and A^T over the device copy bandwidth measured here.
// usage: trident_ridge_products [LOG2_NONZEROS ...]   (default 24)
// It builds without trident's library (only ridge's row_schedule, device_csr_build,
// device_tuning and csr, and core's host_threads and page_lock), so it can be compiled on a
// GPU machine that has Kokkos and Kokkos Kernels but not trident's other dependencies.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ridge/bench.hpp"

#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40200
#define TRIDENT_BENCH_SPMV_HANDLE 1
#else
#define TRIDENT_BENCH_SPMV_HANDLE 0
#endif

namespace {

using namespace trident::ridge;

struct Rng {  // splitmix64
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
};

// Row i gets length(i) distinct ascending columns in [first(i), first(i) + span(i)), one
// per equal stratum, rotated by a random offset (as bench/ridge/shapes.py).
template <class Length, class First, class Span>
HostCsr spread(int rows, int columns, Length length, First first, Span span, Rng& rng) {
  HostCsr a;
  a.rows = rows;
  a.columns = columns;
  a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (int i = 0; i < rows; ++i) a.row_ptr[i + 1] = a.row_ptr[i] + length(i);
  a.col_ind.resize(a.row_ptr.back());
  a.values.resize(a.row_ptr.back());
  for (int i = 0; i < rows; ++i) {
    const std::int64_t l = length(i), w = span(i), f = first(i);
    const std::int64_t shift = static_cast<std::int64_t>(rng.uniform() * w);
    int* c = a.col_ind.data() + a.row_ptr[i];
    for (std::int64_t k = 0; k < l; ++k) {
      const std::int64_t lo = k * w / l, hi = (k + 1) * w / l;
      c[k] = static_cast<int>(f + (lo + static_cast<std::int64_t>(rng.uniform() * (hi - lo)) + shift) % w);
    }
    std::sort(c, c + l);
    for (std::int64_t k = 0; k < l; ++k) a.values[a.row_ptr[i] + k] = 1.0 - rng.uniform();
  }
  return a;
}

HostCsr shape_matrix(const std::string& shape, int log2_nonzeros) {
  const std::int64_t n = std::int64_t(1) << log2_nonzeros;
  Rng rng{static_cast<std::uint64_t>(log2_nonzeros) * 7919 + shape.size()};
  const auto constant = [](std::int64_t v) { return [v](int) { return v; }; };
  if (shape == "uniform")
    return spread(int(n / 16), int(n / 128), constant(16), constant(0), constant(n / 128), rng);
  if (shape == "powerlaw") {
    const int rows = int(n / 16), columns = int(n / 128);
    std::vector<std::int64_t> lengths(rows);
    double scale = 16.0 / 3.0;
    for (int pass = 0; pass < 3; ++pass) {
      Rng r = rng;
      std::int64_t total = 0;
      for (int i = 0; i < rows; ++i) {
        const double u = 1.0 - r.uniform();
        lengths[i] = std::max<std::int64_t>(1, std::min<std::int64_t>(columns, std::int64_t(scale / std::pow(u, 1 / 1.5))));
        total += lengths[i];
      }
      scale *= double(n - 4 * columns) / double(total);
    }
    for (int d = 0; d < 4; ++d) lengths[(d * 7919 + 13) % rows] = columns;
    return spread(rows, columns, [&](int i) { return lengths[i]; }, constant(0), constant(columns), rng);
  }
  if (shape == "densecols") {
    const int rows = int(n / 16), columns = int(n / 128);
    HostCsr rest = spread(rows, columns, constant(8), constant(8), constant(columns - 8), rng);
    HostCsr a;
    a.rows = rows;
    a.columns = columns;
    a.row_ptr.resize(rows + 1);
    a.col_ind.resize(std::size_t(rows) * 16);
    a.values.resize(std::size_t(rows) * 16);
    for (int i = 0; i <= rows; ++i) a.row_ptr[i] = i * 16;
    for (int i = 0; i < rows; ++i)
      for (int k = 0; k < 16; ++k) {
        a.col_ind[i * 16 + k] = k < 8 ? k : rest.col_ind[i * 8 + k - 8];
        a.values[i * 16 + k] = k < 8 ? 1.0 - rng.uniform() : rest.values[i * 8 + k - 8];
      }
    return a;
  }
  if (shape == "banded") {
    const int rows = int(n / 16), columns = int(n / 128);
    auto first = [rows, columns](int i) {
      return std::clamp<std::int64_t>(std::int64_t(i) * columns / rows - 8, 0, columns - 16);
    };
    return spread(rows, columns, constant(16), first, constant(16), rng);
  }
  if (shape == "blockdiag") {
    const int rows = int(n / 16), columns = int(n / 128);
    const std::int64_t span = std::min(256, columns);
    return spread(rows, columns, constant(16), [span](int i) { return i / (8 * span) * span; }, constant(span), rng);
  }
  if (shape == "tall") return spread(int(n / 8), 1024, constant(8), constant(0), constant(1024), rng);
  if (shape == "wide")
    return spread(int(n / 1024), int(n / 128), constant(std::min<std::int64_t>(1024, n / 128)), constant(0),
                  constant(n / 128), rng);
  std::fprintf(stderr, "unknown shape %s\n", shape.c_str());
  std::exit(2);
}

HostCsr transposed(const HostCsr& a) {
  HostCsr t;
  t.rows = a.columns;
  t.columns = a.rows;
  t.row_ptr.assign(static_cast<std::size_t>(a.columns) + 1, 0);
  for (const int c : a.col_ind) ++t.row_ptr[c + 1];
  for (int j = 0; j < a.columns; ++j) t.row_ptr[j + 1] += t.row_ptr[j];
  t.col_ind.resize(a.col_ind.size());
  t.values.resize(a.values.size());
  std::vector<int> next(t.row_ptr.begin(), t.row_ptr.end() - 1);
  for (int i = 0; i < a.rows; ++i)
    for (int k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const int slot = next[a.col_ind[k]]++;
      t.col_ind[slot] = i;
      t.values[slot] = a.values[k];
    }
  return t;
}

using Vector = Kokkos::View<float*, RidgeDevice>;

struct Store {  // y(row) = product, and its square to the norm
  Vector y;
  KOKKOS_INLINE_FUNCTION double operator()(const int row, const double product) const {
    y(row) = static_cast<float>(product);
    return product * product;
  }
};

template <class F>
double microseconds(int repeats, F&& pair) {
  for (int r = 0; r < 3; ++r) pair();
  Kokkos::fence();
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < repeats; ++r) pair();
  Kokkos::fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / repeats * 1e6;
}

Vector random_vector(int n, std::uint64_t seed) {
  Vector v(Kokkos::view_alloc(Kokkos::WithoutInitializing, "v"), n);
  auto h = Kokkos::create_mirror_view(v);
  Rng rng{seed};
  for (int i = 0; i < n; ++i) h(i) = static_cast<float>(rng.uniform() - 0.5);
  Kokkos::deep_copy(v, h);
  return v;
}

double copy_bandwidth() {
  const std::size_t n = std::size_t(1) << 28;
  Kokkos::View<float*, RidgeDevice> a("a", n), b("b", n);
  Kokkos::deep_copy(a, 1.0f);
  const double us = microseconds(10, [&] { Kokkos::deep_copy(b, a); });
  return 2.0 * n * sizeof(float) / (us * 1e-6);
}

void run(const std::string& shape, int log2_nonzeros, double bandwidth, double& uniform_us) {
  const HostCsr a = shape_matrix(shape, log2_nonzeros);
  const HostCsr at = transposed(a);
  const Vector v = random_vector(a.columns, 1), u = random_vector(a.rows, 2);
  Vector y("y", a.rows), w("w", a.columns);
  const int repeats = log2_nonzeros >= 26 ? 20 : 100;

  auto fused = [&](const DeviceCsr<float>& da, const DeviceCsr<float>& dat) {
    const RowProductScratch scratch({&da, &dat});
    return microseconds(repeats, [&] {
      launch_row_products("trident::bench::Av", da, v, Store{y}, scratch, scratch.result);
      launch_row_products("trident::bench::Atu", dat, u, Store{w}, scratch, scratch.result);
    });
  };
  const int lanes = row_lanes(sizeof(float));
  double chosen_us = 0, whole_us = 0;
  std::int64_t bytes = 0;
  std::string layout;
  {
    const auto da = DeviceCsr<float>::scheduled(a, "A", lanes), dat = DeviceCsr<float>::scheduled(at, "At", lanes);
    chosen_us = fused(da, dat);
    bytes = da.product_bytes() + dat.product_bytes();
    layout = "A: " + da.schedule.describe() + "; A^T: " + dat.schedule.describe();
  }
  {
    const DeviceCsr<float> da(a, "A", lanes), dat(at, "At", lanes);  // every row whole, all lanes
    whole_us = fused(da, dat);
  }
  double kk_us = 0;
  {
    using Matrix = KokkosSparse::CrsMatrix<float, int, RidgeDevice, void, int>;
    auto device_matrix = [](const HostCsr& h) {
      Kokkos::View<int*, RidgeDevice> rp("rp", h.rows + 1), ci("ci", h.col_ind.size());
      Kokkos::View<float*, RidgeDevice> val("val", h.values.size());
      auto rph = Kokkos::create_mirror_view(rp);
      auto cih = Kokkos::create_mirror_view(ci);
      auto vh = Kokkos::create_mirror_view(val);
      for (int i = 0; i <= h.rows; ++i) rph(i) = h.row_ptr[i];
      for (std::size_t k = 0; k < h.col_ind.size(); ++k) {
        cih(k) = h.col_ind[k];
        vh(k) = static_cast<float>(h.values[k]);
      }
      Kokkos::deep_copy(rp, rph);
      Kokkos::deep_copy(ci, cih);
      Kokkos::deep_copy(val, vh);
      return Matrix("m", h.rows, h.columns, static_cast<int>(h.values.size()), val, rp, ci);
    };
    const Matrix ma = device_matrix(a), mat = device_matrix(at);
#if TRIDENT_BENCH_SPMV_HANDLE
    using Handle = KokkosSparse::SPMVHandle<RidgeDevice, Matrix, Vector, Vector>;
    Handle ha, hat;
    kk_us = microseconds(repeats, [&] {
      KokkosSparse::spmv(&ha, KokkosSparse::NoTranspose, 1.0f, ma, v, 0.0f, y);
      KokkosSparse::spmv(&hat, KokkosSparse::NoTranspose, 1.0f, mat, u, 0.0f, w);
    });
#else
    kk_us = microseconds(repeats, [&] {
      KokkosSparse::spmv(KokkosSparse::NoTranspose, 1.0f, ma, v, 0.0f, y);
      KokkosSparse::spmv(KokkosSparse::NoTranspose, 1.0f, mat, u, 0.0f, w);
    });
#endif
  }
  // The fused products against spmv's, so that a wrong kernel shows here: the largest
  // difference over the largest entry, float32 rounding (about 1e-6) when right.
  const auto yk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  const auto wk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), w);
  {
    const auto da = DeviceCsr<float>::scheduled(a, "A", lanes), dat = DeviceCsr<float>::scheduled(at, "At", lanes);
    const RowProductScratch scratch({&da, &dat});
    row_products("trident::bench::Av", da, v, Store{y}, scratch);
    row_products("trident::bench::Atu", dat, u, Store{w}, scratch);
  }
  const auto yf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  const auto wf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), w);
  double difference = 0, largest = 0;
  for (std::size_t i = 0; i < yf.extent(0); ++i) {
    difference = std::max(difference, double(std::abs(yf(i) - yk(i))));
    largest = std::max(largest, double(std::abs(yk(i))));
  }
  for (std::size_t i = 0; i < wf.extent(0); ++i) {
    difference = std::max(difference, double(std::abs(wf(i) - wk(i))));
    largest = std::max(largest, double(std::abs(wk(i))));
  }
  if (shape == "uniform") uniform_us = chosen_us;
  const double floor = bytes / bandwidth * 1e6;
  std::printf("%-10s %11dx%-9d %10lld %9.1f %9.1f %9.1f %8.1f %6.2f %8.2f %8.2f %8.1e  %s\n", shape.c_str(), a.rows,
              a.columns, static_cast<long long>(a.nonzeros()), chosen_us, whole_us, kk_us, floor, chosen_us / floor,
              chosen_us / kk_us, uniform_us > 0 ? chosen_us / uniform_us : 0.0, difference / largest, layout.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes.push_back(24);
  const double bandwidth = copy_bandwidth();
  std::printf("copy bandwidth %.3g B/s; microseconds per A v + A^T u, float32\n", bandwidth);
  for (const int size : sizes) {
    std::printf("\n2^%d nonzeros\n%-10s %21s %10s %9s %9s %9s %8s %6s %8s %8s %8s  %s\n", size, "shape",
                "rows x columns", "nonzeros", "fused", "whole", "kk", "floor", "ratio", "fused/kk", "/uniform",
                "vs kk", "fused schedule");
    double uniform_us = 0;
    for (const char* shape : {"uniform", "powerlaw", "densecols", "banded", "blockdiag", "tall", "wide"})
      run(shape, size, bandwidth, uniform_us);
  }
  return 0;
}
