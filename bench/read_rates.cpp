// Times trident's input readers alone on one file: what a rank does before a study starts
// (kNN: count the points, then read and check them all; ridge: read the Matrix Market file
// into CSR). Prints "BYTES SECONDS" for the fastest of REPEATS runs, the file's size as
// the bytes, so a script can set the rate beside the disk's plain read rate.
//
//   trident_read_rates knn-hdf5 FILE DATASET [REPEATS]
//   trident_read_rates knn-csv FILE LATITUDE LONGITUDE [REPEATS]
//   trident_read_rates matrix-market FILE [REPEATS]
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "knn/points.hpp"
#include "ridge/matrix_market.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int usage() {
  std::fprintf(stderr,
               "usage: trident_read_rates knn-hdf5 FILE DATASET [REPEATS]\n"
               "       trident_read_rates knn-csv FILE LATITUDE LONGITUDE [REPEATS]\n"
               "       trident_read_rates matrix-market FILE [REPEATS]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  const std::string kind = argv[1], file = argv[2];
  trident::deck::PointSource points;
  points.key = "bench";
  points.file = file;
  int repeats_at = 3;
  if (kind == "knn-hdf5") {
    if (argc < 4) return usage();
    points.kind = "hdf5";
    points.dataset = argv[3];
    repeats_at = 4;
  } else if (kind == "knn-csv") {
    if (argc < 5) return usage();
    points.kind = "csv";
    points.latitude = argv[3];
    points.longitude = argv[4];
    repeats_at = 5;
  } else if (kind != "matrix-market") {
    return usage();
  }
  const int repeats = argc > repeats_at ? std::atoi(argv[repeats_at]) : 3;
  struct stat info {};
  if (stat(file.c_str(), &info) != 0) {
    std::fprintf(stderr, "%s: cannot stat\n", file.c_str());
    return 2;
  }
  double best = 1e300;
  try {
    for (int r = 0; r < repeats; ++r) {
      const auto start = std::chrono::steady_clock::now();
      std::size_t items = 0;
      if (kind == "matrix-market") {
        items = static_cast<std::size_t>(trident::ridge::read_matrix_market(file).nonzeros());
      } else {
        const std::int64_t n = trident::knn::count_points(points);
        items = trident::knn::read_points(points, 0, n).size() / 2;
      }
      const double t = seconds_since(start);
      std::fprintf(stderr, "run %d: %zu %s in %.4f s\n", r + 1, items,
                   kind == "matrix-market" ? "nonzeros" : "points", t);
      if (t < best) best = t;
    }
  } catch (const trident::InputError& e) {
    std::fprintf(stderr, "trident: error: %s\n", e.what());
    return 2;
  }
  std::printf("%lld %.6f\n", static_cast<long long>(info.st_size), best);
  return 0;
}
