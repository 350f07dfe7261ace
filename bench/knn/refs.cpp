// The kNN search alone, the brute force and through the spatial index side by side, on
// generated point sets (the whole sphere, squares of 1 km and 100 m, two cities, half the
// points in a square, a polar cap, a strip across the dateline; observations from the same
// set as the references, another seed). For bench/knn/refs.sh: one process a set, its
// observations made once and each reference count once (on every CPU, the same points
// whatever their number), every k and precision searched on them.
//
//   trident_knn_refs SET OBSERVATIONS LOG2S KS PRECISIONS BRUTE_MAX_PAIRS [PEER_PREFIX PEER_MAX_LOG2]
//   LOG2S, KS, PRECISIONS: comma-separated lists (14,16,18  1,16,64  float32,float64); a k
//   written wC is every reference within the distance whose mean count is C (k: all)
//   trident_knn_refs threads: prints the CPU threads a search runs on here (the host back
//   end's; on a GPU build, the CPUs the process may use), the peer's fair share
//
// A line a run: "set log2 k precision method search_s build_s cpu_s leaves_a_row widened auto":
// search_s as trident's knn.search counts it (the index's build included; the device arrays,
// the result rows' page-locking and a warm-up that loads the kernels made before, as a run
// makes them in knn.warm_up), the build alone, the process's CPU seconds over the same span
// (on a shared machine the wall time also holds the time it waited for a core), leaves
// screened a row (0 for brute), rows searched again, and the method knn.method: auto takes
// for these counts (wC: method "within", leaves_a_row the mean row, widened its rounds,
// through the index alone). The brute force runs where observations x references is at most
// BRUTE_MAX_PAIRS. With PEER_PREFIX, the points of every reference count up to
// 2^PEER_MAX_LOG2 are written as float64 (lat, lon) pairs to PREFIX.obs and PREFIX.LOG2.refs,
// and the index's rows as PREFIX.LOG2.K.rows (int32 indices, then float64 distances, each
// observations x k), for scikit-learn's BallTree on the same points and its answer checked.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include "bench_clock.hpp"
#include "core/device_buffers.hpp"
#include "core/host_threads.hpp"
#include "transport/page_lock.hpp"
#include "core/splitmix64.hpp"
#include "knn/bench.hpp"
#include "tangent_square.hpp"

namespace {

using trident::bench::cpu_seconds;
using trident::knn::Vec4;

constexpr double kDegree = 3.14159265358979323846 / 180.0;
constexpr double kEarth = 6371008.8;
constexpr std::int64_t kWarmRows = 256;
constexpr bool on_device = !std::is_same<Kokkos::DefaultExecutionSpace, Kokkos::DefaultHostExecutionSpace>::value;

// A point uniform over the sphere.
void uniform(trident::core::SplitMix64& rng, double& lat, double& lon) {
  lat = std::asin(2.0 * rng.uniform() - 1.0) / kDegree;
  lon = 360.0 * rng.uniform() - 180.0;
}

// A point uniform over a square of side_m metres on the plane tangent at (lat0, lon0),
// projected back onto the sphere, as the tests' clusters are.
void in_square(trident::core::SplitMix64& rng, double lat0, double lon0, double side_m, double& lat, double& lon) {
  const double a = rng.uniform() - 0.5, b = rng.uniform() - 0.5;
  trident::knn::test::TangentSquare(lat0, lon0, side_m, kEarth).point(a, b, lat, lon);
}

// Point i of set `set`; false for an unknown set.
bool place(const std::string& set, std::int64_t i, trident::core::SplitMix64& rng, double& lat, double& lon) {
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
    const double z0 = std::cos(5.0 * kDegree);
    lat = std::asin(z0 + (1.0 - z0) * rng.uniform()) / kDegree;
    lon = 360.0 * rng.uniform() - 180.0;
  } else if (set == "dateline") {  // a strip 1 degree wide across the dateline, 60 S to 60 N
    const double z = std::sin(60.0 * kDegree) * (2.0 * rng.uniform() - 1.0);
    lat = std::asin(z) / kDegree;
    lon = rng.uniform() - 0.5 + 180.0;
    if (lon > 180.0) lon -= 360.0;
  } else {
    return false;
  }
  return true;
}

// `count` points of `set` as (lat, lon) pairs: point i from its own stretch of one
// SplitMix64 stream, so any number of threads makes the same points.
std::vector<double> generate(const std::string& set, std::int64_t count, std::uint64_t seed) {
  std::vector<double> lat_lon(2 * static_cast<std::size_t>(count));
  const std::uint64_t base = trident::core::splitmix_mix(seed);
  trident::core::host_parallel_ranges(count, std::int64_t(1) << 16, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      trident::core::SplitMix64 rng{base + static_cast<std::uint64_t>(i) * 4 * trident::core::kSplitMixGamma};
      place(set, i, rng, lat_lon[2 * i], lat_lon[2 * i + 1]);
    }
  });
  return lat_lon;
}

void write_file(const std::string& file, const std::vector<const void*>& parts, const std::vector<std::size_t>& bytes) {
  std::FILE* f = std::fopen(file.c_str(), "wb");
  bool ok = f != nullptr;
  for (std::size_t i = 0; ok && i < parts.size(); ++i) ok = std::fwrite(parts[i], 1, bytes[i], f) == bytes[i];
  if (!ok || std::fclose(f) != 0) {
    std::fprintf(stderr, "%s: cannot write\n", file.c_str());
    std::exit(1);
  }
}

void write_points(const std::string& file, const std::vector<double>& lat_lon) {
  write_file(file, {lat_lon.data()}, {lat_lon.size() * sizeof(double)});
}

// The distance (m) within which C of `n` references of `set` lie on average (the set's area
// times C / n taken as a disc), or 0 for a set whose density varies (half_1km).
double within_distance(const std::string& set, double c, double n) {
  const double cap = 2.0 * 3.14159265358979323846 * kEarth * kEarth;  // area of a hemisphere
  double area = 0.0;
  if (set == "uniform") return kEarth * std::acos(1.0 - 2.0 * c / n);
  if (set == "square_1km") area = 1e6;
  if (set == "square_100m") area = 1e4;
  if (set == "two_cities") area = 2e6;
  if (set == "polar_cap") area = cap * (1.0 - std::cos(5.0 * kDegree));
  if (set == "dateline") area = kEarth * kEarth * kDegree * 2.0 * std::sin(60.0 * kDegree);
  return std::sqrt(c * area / (n * 3.14159265358979323846));
}

template <class T>
std::vector<T> list_of(const std::string& text) {
  std::vector<T> values;
  std::stringstream s(text);
  std::string item;
  while (std::getline(s, item, ',')) {
    std::stringstream v(item);
    T value{};
    if (v >> value) values.push_back(value);
  }
  return values;
}

struct Figures {
  double search = 0.0, build = 0.0, cpu = 0.0, leaves = 0.0;
  std::int64_t widened = 0;
};

using Points = std::vector<Vec4<double>>;

// The brute force as a run makes it: its device arrays, list bound and reference upload
// made before (reserve_search), then the search into page-locked rows.
Figures brute(const Points& obs, const Points& refs, trident::knn::SearchOptions options,
              trident::knn::ResultRows rows) {
  options.device_buffers = std::make_shared<trident::core::DeviceBuffers>();
  const auto n_obs = static_cast<std::int64_t>(obs.size());
  trident::knn::nearest(obs.data(), std::min(n_obs, kWarmRows), refs, options);
  trident::knn::reserve_search(n_obs, refs, options);
  trident::knn::SearchProfile profile;
  const double cpu = cpu_seconds();
  trident::knn::nearest_into(obs.data(), n_obs, refs, options, rows, &profile);
  return {profile.search_seconds, 0.0, cpu_seconds() - cpu, 0.0, profile.widened};
}

// The index as a run makes it: kernels loaded by a small warm-up, the build timed, the
// batches' device arrays reserved, the search into page-locked rows.
Figures index(const Points& obs, const Points& refs, trident::knn::SearchOptions options,
              trident::knn::ResultRows rows) {
  options.device_buffers = std::make_shared<trident::core::DeviceBuffers>();
  const auto n_obs = static_cast<std::int64_t>(obs.size());
  {
    const Points some(refs.begin(), refs.begin() + std::min<std::size_t>(refs.size(), 4096));
    trident::knn::SearchOptions warm = options;
    warm.k = std::min<int>(options.k, static_cast<int>(some.size()));
    trident::knn::index_nearest_into(trident::knn::build_sphere_index(some), obs.data(), std::min(n_obs, kWarmRows),
                                     warm, rows);
  }
  const double cpu = cpu_seconds();
  const trident::knn::SphereIndex built = trident::knn::build_sphere_index(refs);
  const double build_cpu = cpu_seconds() - cpu;
  trident::knn::reserve_index_search(n_obs, built, options);
  trident::knn::SearchProfile profile;
  const double search_cpu = cpu_seconds();
  trident::knn::index_nearest_into(built, obs.data(), n_obs, options, rows, &profile);
  return {built.build_seconds + profile.search_seconds, built.build_seconds, build_cpu + cpu_seconds() - search_cpu,
          profile.index_rows > 0 ? double(profile.index_leaves) / double(profile.index_rows) : 0.0, profile.widened};
}

// Every reference within `distance` through the index, as a run makes it (k: all): kernels
// loaded by a small search, the build timed, the rows in rounds of 2^22 observations.
Figures within(const Points& obs, const Points& refs, double distance) {
  const auto n_obs = static_cast<std::int64_t>(obs.size());
  constexpr std::int64_t kRound = std::int64_t(1) << 22;
  {
    const Points some(refs.begin(), refs.begin() + std::min<std::size_t>(refs.size(), 4096));
    trident::knn::WithinSearch(some, std::make_shared<const trident::knn::SphereIndex>(trident::knn::build_sphere_index(some)),
                               distance, kEarth)
        .warm_up(obs.data(), std::min(n_obs, kWarmRows));
  }
  const double cpu = cpu_seconds();
  const auto built = std::make_shared<const trident::knn::SphereIndex>(trident::knn::build_sphere_index(refs));
  const trident::knn::WithinSearch search(refs, built, distance, kEarth);  // (made before the search, as in a run)
  const auto start = std::chrono::steady_clock::now();
  std::vector<trident::knn::RaggedRows> rounds;
  std::int64_t entries = 0;
  for (std::int64_t first = 0; first < n_obs; first += kRound) {
    rounds.emplace_back();
    search.append(obs.data() + first, std::min(kRound, n_obs - first), rounds.back());
    entries += rounds.back().offsets.back();
  }
  search.finish();
  const double seconds = trident::bench::seconds_since(start);
  return {built->build_seconds + seconds, built->build_seconds, cpu_seconds() - cpu,
          double(entries) / double(n_obs), static_cast<std::int64_t>(rounds.size())};
}

int usage() {
  std::fprintf(stderr,
               "usage: trident_knn_refs SET OBSERVATIONS LOG2S KS PRECISIONS BRUTE_MAX_PAIRS [PEER_PREFIX "
               "PEER_MAX_LOG2]\n       trident_knn_refs threads\n"
               "SET: uniform square_1km square_100m two_cities half_1km polar_cap dateline\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "threads") {
    Kokkos::ScopeGuard kokkos(argc, argv);
    std::printf("%d\n", on_device ? trident::core::usable_cpus() : Kokkos::DefaultExecutionSpace().concurrency());
    return 0;
  }
  if (argc != 7 && argc != 9) return usage();
  const std::string set = argv[1], peer = argc == 9 ? argv[7] : "";
  const std::int64_t n_obs = std::atoll(argv[2]);
  const auto log2s = list_of<int>(argv[3]);
  const auto k_texts = list_of<std::string>(argv[4]);
  std::vector<int> ks, within_counts;  // k, and the mean counts C of wC
  for (const std::string& k : k_texts) (k[0] == 'w' ? within_counts : ks).push_back(std::atoi(k.c_str() + (k[0] == 'w')));
  const auto precisions = list_of<std::string>(argv[5]);
  const double brute_max_pairs = std::atof(argv[6]);
  const int peer_max_log2 = argc == 9 ? std::atoi(argv[8]) : 0;
  double lat = 0, lon = 0;
  trident::core::SplitMix64 probe{1};
  if (n_obs < 1 || log2s.empty() || (ks.empty() && within_counts.empty()) || precisions.empty() ||
      !place(set, 0, probe, lat, lon))
    return usage();
  for (const std::string& p : precisions)
    if (p != "float32" && p != "float64") return usage();
  Kokkos::ScopeGuard kokkos(argc, argv);
  const std::vector<double> obs_ll = generate(set, n_obs, 1);
  if (!peer.empty()) write_points(peer + ".obs", obs_ll);
  Points obs = trident::knn::unit_vectors(obs_ll);
  // page-locked, as a run's observations are (knn.stage)
  const trident::transport::PageLock lock_obs(obs.data(), obs.size() * sizeof(Vec4<double>));
  int k_max = 1;
  for (const int k : ks) k_max = std::max(k_max, k);
  trident::knn::Neighbours rows;  // the largest k's rows, page-locked once
  trident::knn::allocate_rows(rows, static_cast<std::size_t>(n_obs) * static_cast<std::size_t>(k_max));
  const trident::transport::PageLock lock_indices(rows.indices.data(), rows.indices.size() * sizeof(int));
  const trident::transport::PageLock lock_distances(rows.distances.data(), rows.distances.size() * sizeof(double));
  const trident::knn::ResultRows into{rows.indices.data(), rows.distances.data()};
  for (const int log2 : log2s) {
    const std::int64_t n_refs = std::int64_t(1) << log2;
    const std::vector<double> refs_ll = generate(set, n_refs, 2);
    if (!peer.empty() && log2 <= peer_max_log2) write_points(peer + "." + std::to_string(log2) + ".refs", refs_ll);
    const Points refs = trident::knn::unit_vectors(refs_ll);
    for (const int c : within_counts) {
      const double distance = within_distance(set, c, double(n_refs));
      if (!(distance > 0.0)) continue;
      const Figures f = within(obs, refs, distance);
      std::printf("%s %d w%d float64 within %.4f %.4f %.3f %.2f %lld index\n", set.c_str(), log2, c, f.search, f.build,
                  f.cpu, f.leaves, static_cast<long long>(f.widened));
      std::fflush(stdout);
    }
    for (const int k : ks) {
      if (k > n_refs) continue;
      for (const std::string& precision : precisions) {
        trident::knn::SearchOptions options;
        options.k = k;
        options.radius = kEarth;
        options.precision = precision == "float64" ? trident::core::Precision::float64
                                                   : trident::core::Precision::float32;
        const bool auto_index = trident::knn::choose_method(trident::knn::KnnMethod::automatic, n_obs, n_refs, k, on_device).use_index;
        for (const bool through_index : {false, true}) {
          if (!through_index && double(n_obs) * double(n_refs) > brute_max_pairs) continue;
          const Figures f = through_index ? index(obs, refs, options, into) : brute(obs, refs, options, into);
          std::printf("%s %d %d %s %s %.4f %.4f %.3f %.2f %lld %s\n", set.c_str(), log2, k, precision.c_str(),
                      through_index ? "index" : "brute", f.search, f.build, f.cpu, f.leaves,
                      static_cast<long long>(f.widened), auto_index ? "index" : "brute");
          if (through_index && !peer.empty() && log2 <= peer_max_log2) {
            const std::size_t entries = static_cast<std::size_t>(n_obs) * static_cast<std::size_t>(k);
            write_file(peer + "." + std::to_string(log2) + "." + std::to_string(k) + ".rows",
                       {rows.indices.data(), rows.distances.data()},
                       {entries * sizeof(rows.indices[0]), entries * sizeof(double)});
          }
          std::fflush(stdout);
        }
      }
    }
  }
  return 0;
}
