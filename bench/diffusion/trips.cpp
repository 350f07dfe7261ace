// The diffusion step on one device with several steps per trip through memory
// (src/diffusion/detail/trip.hpp) beside one step a trip, in one run: for each grid size and
// precision, today's one-step kernel keeping L(u) every step, then trips of 1, 2, 3, 4, 6
// and 8 steps (the rule's choice marked), each timed over the same steps from the same
// start field. Prints the bytes a step moves (one read and one write of u a trip, plus L(u)
// for the first line), the floor those bytes set at the given copy bandwidth, the measured
// microseconds a step, its ratio to the first line's floor (12 bytes a cell in float32: the
// one-pass floor) and to its own floor, and whether the final field has the one-step bits.
// The tiles' heights are timed as a run times them (diffusion/detail/trip_tuner.hpp), on the first
// of the two runs a line keeps the better of.
//
//   trident_diffusion_trips BANDWIDTH_BPS [N:STEPS ...]      (default 2000:4000 8192:800)
// TRIPS_ROWS="16 32 64 ..." adds lines "T rROWS": the rule's trips with tiles of ROWS rows;
// "ROWS:TAIL_ROWS:TAIL_BANDS" adds "T rROWStTAIL_ROWSxTAIL_BANDS", with a tail of short bands.
// TRIPS_CHAIN="8 1000 ..." adds lines "T cCOUNTrROWS": the rule's trips in chains of up to
// COUNT trips a launch (trip.hpp's step_trips), tiles of TRIPS_CHAIN_ROWS="ROWS ..." rows
// (0: the chain's rule, which runs trips one a launch where its tiles would be short;
// default: the timed height).
// BANDWIDTH_BPS: device copy bandwidth, bytes read + written per second (what
// trident_device_limits prints as copy_bandwidth_Bps).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "diffusion/bench.hpp"

namespace {

using namespace trident::diffusion;

struct Case {
  int n;
  long steps;
};

template <class T>
void gaussian(const Grid<T>& u, int n) {
  Kokkos::parallel_for(
      "trident::bench::gaussian", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({1, 1}, {n + 1, n + 1}),
      KOKKOS_LAMBDA(const int j, const int i) {
        const double x = (i - 0.5) / n - 0.5, y = (j - 0.5) / n - 0.5;
        u(j, i) = static_cast<T>(::exp(-(x * x + y * y) / (2 * 0.05 * 0.05)));
      });
}

// `steps` steps of the one-rank run from `start`: trips of `trip` steps (1: the one-step
// kernel, keeping L(u) every step when `keep_laplacian`). Returns seconds (the best of two
// runs) and leaves the final field in `out`.
template <class T>
double run(const Grid<T>& start, int n, long steps, int trip, bool keep_laplacian, std::vector<T>& out,
           const TripShape& shape = {}, TripTuner* tuner = nullptr, int chain = 0) {
  Grid<T> u("trident::bench::u", n + 2, n + 2), next("trident::bench::next", n + 2, n + 2);
  Grid<T> laplacian("trident::bench::laplacian", keep_laplacian ? n : 0, keep_laplacian ? n : 0);
  Kokkos::View<std::int64_t> bad("trident::bench::bad");
  Kokkos::View<int*> board("trident::bench::board", chain > 0 ? 1 << 20 : 0);
  const Box interior{1, n + 1, 1, n + 1};
  Trip whole;
  whole.first = interior;
  whole.add_keep(interior);
  const ExecutionSpace space;
  double best = 1e30;
  for (int repeat = 0; repeat < 2; ++repeat) {
    Kokkos::deep_copy(u, start);
    Kokkos::deep_copy(next, start);
    Kokkos::fence();
    const auto begin = std::chrono::steady_clock::now();
    for (long s = 0; s < steps;) {
      const int m = static_cast<int>(std::min<long>(trip, steps - s));
      const long count = chain > 0 ? std::min<long>(chain, (steps - s) / m) : 0;
      if (count >= 1 && m > 1) {
        step_trips<T>(space, u, next, T(0.25), s, m, static_cast<int>(count), bad, whole, shape, board);
        if (count % 2 == 1) std::swap(u, next);
        s += count * m;
        continue;
      }
      if (m == 1)
        step<T>(space, u, next, laplacian, T(0.25), s, bad, interior);
      else
        step_trip<T>(space, u, next, T(0.25), s, m, bad, whole,
                     tuner ? tuner->shape_for(0, space, u, next, T(0.25), m, whole, shape) : shape);
      std::swap(u, next);
      s += m;
    }
    Kokkos::fence();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
  }
  out.resize(static_cast<std::size_t>(n + 2) * (n + 2));
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> host(out.data(), n + 2, n + 2);
  Kokkos::deep_copy(host, u);
  return best;
}

// The whole numbers of `text` ("8 1000"), up to the first that is not one; none for null.
std::vector<int> whole_numbers(const char* text) {
  std::vector<int> out;
  for (const char* p = text; p != nullptr && *p != '\0';) {
    char* end = nullptr;
    const long v = std::strtol(p, &end, 10);
    if (end == p) break;
    out.push_back(static_cast<int>(v));
    p = end;
  }
  return out;
}

// One line of the table: microseconds a step, the bytes a step moves and their floor, the
// ratios to the one-pass floor and to that floor, and the bits.
void print_line(const char* name, const char* label, long steps, double per_step, double bytes, double bandwidth,
                double today_floor, const char* bits) {
  const double floor = bytes / bandwidth;
  std::printf("%-16s %5s %8ld %11.2f %12.1f %10.2f %12.3f %11.3f %s\n", name, label, steps, per_step * 1e6,
              bytes / 1e6, floor * 1e6, per_step / today_floor, per_step / floor, bits);
}

template <class T>
void bench(const Case& c, double bandwidth, const char* precision) {
  const int n = c.n;
  Grid<T> start("trident::bench::start", n + 2, n + 2);
  gaussian<T>(start, n);
  const double cells = double(n) * n, value = sizeof(T);
  const double today_floor = 3 * value * cells / bandwidth;  // read u, write u and L(u)
  const int chosen = steps_per_trip(true, 1);
  std::vector<T> reference, field;
  const auto same_bits = [&] { return std::memcmp(field.data(), reference.data(), field.size() * sizeof(T)) == 0; };
  const double trip_bytes = 2.0 / chosen * value * cells;  // the rule's trips
  std::string timed;
  char name[64];
  std::snprintf(name, sizeof name, "%d^2 %s", n, precision);
  for (int trip : {0, 1, 2, 3, 4, 6, 8}) {
    const bool keep = trip == 0;  // today's kernel: one step, L(u) kept
    const int m = keep ? 1 : trip;
    TripTuner tuner;  // the tiles' heights timed as a run times them (on the first of the two runs)
    const double seconds = run<T>(start, n, c.steps, m, keep, field, TripShape{}, &tuner);
    if (m == chosen && tuner.rows_of(0) > 0) timed = std::to_string(tuner.rows_of(0)) + " rows";
    if (trip == 1) reference = field;
    char label[32];
    std::snprintf(label, sizeof label, "%s%s", keep ? "1+L" : std::to_string(m).c_str(), m == chosen && !keep ? "*" : "");
    print_line(name, label, c.steps, seconds / c.steps, (keep ? 3 : 2.0 / m) * value * cells, bandwidth, today_floor,
               keep ? "today" : trip == 1 ? "reference" : same_bits() ? "same" : "DIFFERENT");
  }
  if (!timed.empty()) std::printf("%-16s %5d tiles of the timed height: %s\n", name, chosen, timed.c_str());
  // TRIPS_CHAIN (see the top of the file)
  std::vector<int> heights = whole_numbers(std::getenv("TRIPS_CHAIN_ROWS"));
  if (heights.empty()) heights.push_back(timed.empty() ? 0 : std::atoi(timed.c_str()));
  for (int chain : whole_numbers(std::getenv("TRIPS_CHAIN")))
    for (int h : heights) {
      TripShape shape;
      shape.rows = h;
      const double seconds = run<T>(start, n, c.steps, chosen, false, field, shape, nullptr, chain);
      char label[32];
      std::snprintf(label, sizeof label, "%d c%dr%d", chosen, chain, h);
      print_line(name, label, c.steps, seconds / c.steps, trip_bytes, bandwidth, today_floor,
                 same_bits() ? "same" : "DIFFERENT");
    }
  // TRIPS_ROWS="16 32 ...": the rule's steps a trip with tiles of that many rows instead of
  // the rule's (to check the rule: the fastest should be near it); "ROWS:TAIL_ROWS:TAIL_BANDS"
  // ends each kept box in TAIL_BANDS bands of TAIL_ROWS rows (ROWS 0: the rule's head).
  const char* sweep = std::getenv("TRIPS_ROWS");
  for (const char* p = sweep; p != nullptr && *p != '\0';) {
    char* end = nullptr;
    TripShape shape;
    shape.rows = static_cast<int>(std::strtol(p, &end, 10));
    if (end == p) break;
    if (*end == ':') shape.tail_rows = static_cast<int>(std::strtol(end + 1, &end, 10));
    if (*end == ':') shape.tail_bands = static_cast<int>(std::strtol(end + 1, &end, 10));
    p = end;
    if (shape.rows < 0 || shape.tail_rows < 0 || (shape.rows == 0 && shape.tail_rows == 0)) continue;
    const double seconds = run<T>(start, n, c.steps, chosen, false, field, shape);
    char label[32];
    if (shape.tail_rows > 0)
      std::snprintf(label, sizeof label, "%d r%dt%dx%d", chosen, shape.rows, shape.tail_rows, shape.tail_bands);
    else
      std::snprintf(label, sizeof label, "%d r%d", chosen, shape.rows);
    print_line(name, label, c.steps, seconds / c.steps, trip_bytes, bandwidth, today_floor,
               same_bits() ? "same" : "DIFFERENT");
  }
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  if (argc < 2 || std::atof(argv[1]) <= 0) {
    std::fprintf(stderr, "usage: %s BANDWIDTH_BPS [N:STEPS ...]\n", argv[0]);
    return 2;
  }
  const double bandwidth = std::atof(argv[1]);
  std::vector<Case> cases;
  for (int a = 2; a < argc; ++a) {
    Case c{};
    if (std::sscanf(argv[a], "%d:%ld", &c.n, &c.steps) != 2 || c.n < 1 || c.steps < 1) {
      std::fprintf(stderr, "%s: expected N:STEPS, got %s\n", argv[0], argv[a]);
      return 2;
    }
    cases.push_back(c);
  }
  if (cases.empty()) cases = {{2000, 4000}, {8192, 800}};
  std::printf("copy bandwidth %.4g B/s; rule: %s on this back end (marked *)\n", bandwidth,
              describe_trips(steps_per_trip(true, 1)).c_str());
  std::printf("%-16s %5s %8s %11s %12s %10s %12s %11s %s\n", "case", "T", "steps", "us/step", "MB/step",
              "floor us", "x 1-pass fl", "x own floor", "bits (T = 1 the reference)");
  for (const Case& c : cases) bench<float>(c, bandwidth, "float32");
  for (const Case& c : cases) bench<double>(c, bandwidth, "float64");
  return 0;
}
