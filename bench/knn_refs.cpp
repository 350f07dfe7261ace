// The kNN search alone, brute force or through the spatial index, on generated point sets
// (the whole sphere, squares of 1 km and 100 m, two cities, half the points in a square,
// a polar cap, a strip across the dateline; observations from the same set as the
// references, another seed). For bench/knn_refs.sh: one line of figures a run.
//
//   trident_knn_refs METHOD SET OBSERVATIONS REFERENCES K PRECISION [WRITE_POINTS]
//   METHOD: brute or index; PRECISION: float32 or float64
// Prints "build_s search_s build_cpu_s cpu_s leaves_per_row widened depth_first": the index's build
// (0 for brute), the whole search with the build, the same two in the process's CPU time
// (on a shared machine the wall time also holds the time it waited for a core), leaves
// screened per observation (0 for brute), rows searched again and rows whose heap of
// cells overflowed (searched depth first; 0 for brute). WRITE_POINTS (a file prefix) writes the points as float64 (lat, lon)
// pairs to PREFIX.obs and PREFIX.refs, for a peer run on the same points.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <time.h>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "knn/index/index_search.hpp"
#include "knn/search.hpp"

namespace {

using trident::knn::Vec4;

constexpr double kDegree = 3.14159265358979323846 / 180.0;
constexpr double kEarth = 6371008.8;

// A point uniform over the sphere.
void uniform(std::mt19937_64& rng, double& lat, double& lon) {
  std::uniform_real_distribution<double> u(-1.0, 1.0), l(-180.0, 180.0);
  lat = std::asin(u(rng)) / kDegree;
  lon = l(rng);
}

// A point uniform over a square of side_m metres on the plane tangent at (lat0, lon0),
// projected back onto the sphere (the tests' clusters.hpp, which works at the poles too).
void in_square(std::mt19937_64& rng, double lat0, double lon0, double side_m, double& lat, double& lon) {
  const double c[3] = {std::cos(lat0 * kDegree) * std::cos(lon0 * kDegree),
                       std::cos(lat0 * kDegree) * std::sin(lon0 * kDegree), std::sin(lat0 * kDegree)};
  const double e[3] = {-std::sin(lon0 * kDegree), std::cos(lon0 * kDegree), 0.0};
  const double n[3] = {c[1] * e[2] - c[2] * e[1], c[2] * e[0] - c[0] * e[2], c[0] * e[1] - c[1] * e[0]};
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  const double a = u(rng) * side_m / kEarth, b = u(rng) * side_m / kEarth;
  double v[3];
  for (int i = 0; i < 3; ++i) v[i] = c[i] + a * e[i] + b * n[i];
  const double r = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  lat = std::asin(v[2] / r) / kDegree;
  lon = std::atan2(v[1], v[0]) / kDegree;
}

// `count` (lat, lon) pairs of set `set`; false for an unknown set.
bool generate(const std::string& set, std::int64_t count, std::uint64_t seed, std::vector<double>& lat_lon) {
  std::mt19937_64 rng(seed);
  lat_lon.resize(2 * static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    double& lat = lat_lon[2 * i];
    double& lon = lat_lon[2 * i + 1];
    if (set == "uniform") {
      uniform(rng, lat, lon);
    } else if (set == "square_1km") {
      in_square(rng, 48.8566, 2.3522, 1000.0, lat, lon);
    } else if (set == "square_100m") {
      in_square(rng, 48.8566, 2.3522, 100.0, lat, lon);
    } else if (set == "two_cities") {  // alternating between 1 km squares in Paris and Sydney
      in_square(rng, i % 2 ? -33.8688 : 48.8566, i % 2 ? 151.2093 : 2.3522, 1000.0, lat, lon);
    } else if (set == "half_1km") {  // every other point in a 1 km square, the rest anywhere
      if (i % 2) {
        in_square(rng, 48.8566, 2.3522, 1000.0, lat, lon);
      } else {
        uniform(rng, lat, lon);
      }
    } else if (set == "polar_cap") {  // uniform over the cap within 5 degrees of the north pole
      std::uniform_real_distribution<double> z(std::cos(5.0 * kDegree), 1.0), l(-180.0, 180.0);
      lat = std::asin(z(rng)) / kDegree;
      lon = l(rng);
    } else if (set == "dateline") {  // a strip 1 degree wide across the dateline, 60 S to 60 N
      std::uniform_real_distribution<double> z(-std::sin(60.0 * kDegree), std::sin(60.0 * kDegree)), l(-0.5, 0.5);
      lat = std::asin(z(rng)) / kDegree;
      lon = l(rng) + 180.0;
      if (lon > 180.0) lon -= 360.0;
    } else {
      return false;
    }
  }
  return true;
}

void write_points(const std::string& file, const std::vector<double>& lat_lon) {
  std::FILE* f = std::fopen(file.c_str(), "wb");
  if (f == nullptr || std::fwrite(lat_lon.data(), sizeof(double), lat_lon.size(), f) != lat_lon.size()) {
    std::fprintf(stderr, "%s: cannot write\n", file.c_str());
    std::exit(1);
  }
  std::fclose(f);
}

double cpu_seconds() {  // this process's, all threads
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

int usage() {
  std::fprintf(stderr,
               "usage: trident_knn_refs brute|index SET OBSERVATIONS REFERENCES K float32|float64 [WRITE_POINTS]\n"
               "SET: uniform square_1km square_100m two_cities half_1km polar_cap dateline\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7) return usage();
  const std::string method = argv[1], set = argv[2], precision = argv[6];
  const std::int64_t n_obs = std::atoll(argv[3]), n_refs = std::atoll(argv[4]);
  const int k = std::atoi(argv[5]);
  if ((method != "brute" && method != "index") || (precision != "float32" && precision != "float64") ||
      n_obs < 1 || n_refs < 1 || k < 1 || k > n_refs) {
    return usage();
  }
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::vector<double> obs_ll, refs_ll;
  if (!generate(set, n_obs, 1, obs_ll) || !generate(set, n_refs, 2, refs_ll)) return usage();
  if (argc > 7) {
    write_points(std::string(argv[7]) + ".obs", obs_ll);
    write_points(std::string(argv[7]) + ".refs", refs_ll);
  }
  const std::vector<Vec4<double>> obs = trident::knn::unit_vectors(obs_ll), refs = trident::knn::unit_vectors(refs_ll);
  trident::knn::SearchOptions options;
  options.k = k;
  options.radius = kEarth;
  options.precision = precision;
  trident::knn::SearchProfile stats;
  trident::knn::IndexStats index_stats;
  // CPU time of the build and of the whole search (the index's built first, as
  // index_nearest does, so the two can be shown apart)
  double build_cpu = 0.0, build_wall = 0.0, wall = 0.0;
  const double cpu_start = cpu_seconds();
  if (method == "brute") {
    trident::knn::nearest(obs, refs, options, &stats);
    wall = stats.search_seconds;
  } else {
    trident::knn::Neighbours rows;
    trident::knn::allocate_rows(rows, obs.size() * static_cast<std::size_t>(k));
    const double build_start = cpu_seconds();
    const trident::knn::SphereIndex index = trident::knn::build_sphere_index(refs);
    build_cpu = cpu_seconds() - build_start;
    build_wall = index.build_seconds;
    trident::knn::index_nearest_into(index, obs.data(), n_obs, options, {rows.indices.data(), rows.distances.data()},
                                     &stats, &index_stats);
    wall = build_wall + stats.search_seconds;
  }
  const double cpu = cpu_seconds() - cpu_start;
  const double per_row =
      index_stats.rows_screened > 0 ? double(index_stats.leaves_visited) / double(index_stats.rows_screened) : 0.0;
  std::printf("%.4f %.4f %.4f %.4f %.1f %lld %lld\n", build_wall, wall, build_cpu, cpu, per_row,
              static_cast<long long>(stats.widened), 0LL);
  return 0;
}
