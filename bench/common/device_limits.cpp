// Measures the hardware ceilings the benchmarks compare against, on the device Kokkos
// runs on: device-to-device copy bandwidth (bytes read + written per second), the fp32
// fused multiply-add rate, and the rate of copies from the device into page-locked host
// memory (what results cross to reach the host). Prints "copy_bandwidth_Bps VALUE",
// "fp32_fma_per_s VALUE" and "download_Bps VALUE" (medians of repeated runs). With the
// argument "download" it measures only the download, over about 20 copies of 1 GiB, so
// that several processes started together (one per GPU: `mpirun -n 4
// trident_device_limits download`) measure it while all of them copy at once.
#include <Kokkos_Core.hpp>

#include "transport/pinned_host_space.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

template <class F>
double median_seconds(int repeats, F&& work) {
  work();  // warm-up
  Kokkos::fence();
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    work();
    Kokkos::fence();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

double copy_bandwidth(std::size_t n) {
  Kokkos::View<float*> a("trident::bench::copy_a", n), b("trident::bench::copy_b", n);
  Kokkos::deep_copy(a, 1.0f);
  const double s = median_seconds(10, [&] { Kokkos::deep_copy(b, a); });
  return 2.0 * static_cast<double>(n) * sizeof(float) / s;
}

// Device to page-locked host memory (on host back ends a plain host copy).
double download_rate(std::size_t n, int repeats) {
  Kokkos::View<float*> device("trident::bench::download_from", n);
  Kokkos::View<float*, trident::PinnedHostSpace> host("trident::bench::download_to", n);
  Kokkos::deep_copy(device, 1.0f);
  const double s = median_seconds(repeats, [&] { Kokkos::deep_copy(host, device); });
  return static_cast<double>(n) * sizeof(float) / s;
}

double fma_rate(std::int64_t threads, int iterations) {
  Kokkos::View<float*> out("trident::bench::fma_out", threads);
  const double s = median_seconds(5, [&] {
    Kokkos::parallel_for(
        "trident::bench::fma", Kokkos::RangePolicy<>(0, threads), KOKKOS_LAMBDA(const std::int64_t i) {
          // Eight independent chains keep the FMA pipes busy; a*x+b contracts to FFMA.
          float x0 = i * 1e-9f, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6,
                x7 = x0 + 7;
          const float a = 0.999999f, b = 1e-7f;
          for (int k = 0; k < iterations; ++k) {
            x0 = x0 * a + b; x1 = x1 * a + b; x2 = x2 * a + b; x3 = x3 * a + b;
            x4 = x4 * a + b; x5 = x5 * a + b; x6 = x6 * a + b; x7 = x7 * a + b;
          }
          out(i) = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
        });
  });
  return 8.0 * static_cast<double>(threads) * iterations / s;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const bool device = !Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                                    Kokkos::DefaultExecutionSpace::memory_space>::accessible;
    // A device copy of 2 x 1 GiB; a host build measures a smaller one.
    const std::size_t n = device ? (std::size_t(1) << 28) : (std::size_t(1) << 24);
    if (argc > 1 && std::strcmp(argv[1], "download") == 0) {
      std::printf("download_Bps %.4e\n", download_rate(n, 20));
      std::fflush(stdout);
    } else {
      std::printf("execution_space %s\n", Kokkos::DefaultExecutionSpace::name());
      std::printf("copy_bandwidth_Bps %.4e\n", copy_bandwidth(n));
      std::printf("fp32_fma_per_s %.4e\n", fma_rate(device ? (1 << 22) : (1 << 12), device ? 4096 : 256));
      std::printf("download_Bps %.4e\n", download_rate(n, 5));
    }
  }
  Kokkos::finalize();
  return 0;
}
