// Times trident's input readers alone on one file: what a rank does before a study starts
// (kNN: count the points, then read and check them all; ridge: read the Matrix Market file
// or HDF5 CSR group into CSR; diffusion: the start field from its file). The fastest of
// REPEATS runs, the file's size as the bytes, so a script can set the rate beside the
// disk's plain read rate.
//
//   trident_read_rates knn-hdf5 FILE DATASET [REPEATS]
//   trident_read_rates knn-csv FILE LATITUDE LONGITUDE [REPEATS]
//   trident_read_rates matrix-market FILE [REPEATS]
//   trident_read_rates ridge-hdf5 FILE GROUP [REPEATS]
//   trident_read_rates start-field FILE DATASET [REPEATS]
// Prints "BYTES WALL_SECONDS CPU_SECONDS" (the CPU time of the fastest run: on a shared
// machine the two differ by the time the process waited for a core).
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <Kokkos_Core.hpp>

#include "bench_clock.hpp"
#include "core/error.hpp"
#include "diffusion/bench.hpp"
#include "io/input_file.hpp"
#include "knn/bench.hpp"
#include "ridge/bench.hpp"

namespace {

using trident::bench::cpu_seconds;
using trident::bench::seconds_since;

int usage() {
  std::fprintf(stderr,
               "usage: trident_read_rates knn-hdf5 FILE DATASET [REPEATS]\n"
               "       trident_read_rates knn-csv FILE LATITUDE LONGITUDE [REPEATS]\n"
               "       trident_read_rates matrix-market FILE [REPEATS]\n"
               "       trident_read_rates ridge-hdf5 FILE GROUP [REPEATS]\n"
               "       trident_read_rates start-field FILE DATASET [REPEATS]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  Kokkos::ScopeGuard kokkos(argc, argv);  // the start field is read into device memory
  const std::string kind = argv[1], file = argv[2];
  trident::knn::PointSource points;
  points.key = "bench";
  points.file = file;
  int repeats_at = 3;
  if (kind == "knn-hdf5") {
    if (argc < 4) return usage();
    points.kind = trident::knn::PointSource::Kind::hdf5;
    points.dataset = argv[3];
    repeats_at = 4;
  } else if (kind == "knn-csv") {
    if (argc < 5) return usage();
    points.kind = trident::knn::PointSource::Kind::csv;
    points.latitude = argv[3];
    points.longitude = argv[4];
    repeats_at = 5;
  } else if (kind == "ridge-hdf5" || kind == "start-field") {
    if (argc < 4) return usage();
    points.dataset = argv[3];  // the CSR group or the field's dataset
    repeats_at = 4;
  } else if (kind != "matrix-market") {
    return usage();
  }
  const int repeats = argc > repeats_at ? std::atoi(argv[repeats_at]) : 3;
  struct stat info {};
  if (stat(file.c_str(), &info) != 0) {
    std::fprintf(stderr, "%s: cannot stat\n", file.c_str());
    return 2;
  }
  double best = 1e300, best_cpu = 0;
  try {
    for (int r = 0; r < repeats; ++r) {
      const auto start = std::chrono::steady_clock::now();
      const double cpu_start = cpu_seconds();
      std::size_t items = 0;
      if (kind == "matrix-market") {
        items = static_cast<std::size_t>(trident::ridge::read_matrix_market(file).nonzeros());
      } else if (kind == "ridge-hdf5") {
        items = static_cast<std::size_t>(trident::ridge::read_hdf5_csr(file, points.dataset).nonzeros());
      } else if (kind == "start-field") {
        // The whole field as one rank's block (a one-rank run).
        const auto dims = trident::io::InputFile(file, "start field file").dims(points.dataset);
        trident::diffusion::StartField field;
        field.kind = trident::diffusion::StartField::Kind::file;
        field.file = file;
        field.dataset = points.dataset;
        const auto ny = static_cast<std::int64_t>(dims.at(0)), nx = static_cast<std::int64_t>(dims.at(1));
        // Read, copied to the device and converted to float32 there, as a one-rank run does
        // (a file start needs no MPI).
        Kokkos::View<float**, Kokkos::LayoutRight> block("bench::start_block", ny, nx);
        trident::diffusion::fill_start_block<float>(MPI_COMM_SELF, field, nx, ny, {0, nx}, {0, ny}, block);
        items = block.size();
      } else {
        const std::int64_t n = trident::knn::count_points(points);
        items = trident::knn::read_points(points, 0, n).size() / 2;
      }
      const double t = seconds_since(start), cpu = cpu_seconds() - cpu_start;
      std::fprintf(stderr, "run %d: %zu items in %.4f s (%.4f s of CPU)\n", r + 1, items, t, cpu);
      if (t < best) {
        best = t;
        best_cpu = cpu;
      }
    }
  } catch (const trident::InputError& e) {
    std::fprintf(stderr, "trident: error: %s\n", e.what());
    return 2;
  }
  std::printf("%lld %.6f %.6f\n", static_cast<long long>(info.st_size), best, best_cpu);
  return 0;
}
