#include "diffusion/detail/trip_tuner.hpp"

#include <algorithm>
#include <chrono>

namespace trident::diffusion {

std::vector<int> tile_row_candidates(int tallest, int rule_rows) {
  std::vector<int> rows;
  for (const int r : {16, 24, 32, 48, 64, 96, 128, 192, 256})
    if (r <= tallest) rows.push_back(r);
  if (rows.empty() || rows.back() < std::min(tallest, 256)) rows.push_back(std::min(tallest, 256));
  if (std::find(rows.begin(), rows.end(), rule_rows) == rows.end()) rows.push_back(rule_rows);
  return rows;
}

std::vector<int> tile_row_refinements(int fastest, std::vector<int> tried) {
  std::sort(tried.begin(), tried.end());
  const auto at = std::find(tried.begin(), tried.end(), fastest);
  std::vector<int> rows;
  auto add = [&](int neighbour) {
    const int half = (fastest + neighbour) / 2 / 8 * 8;
    if (half != fastest && half != neighbour && !std::binary_search(tried.begin(), tried.end(), half))
      rows.push_back(half);
  };
  if (at == tried.end()) return rows;
  if (at != tried.begin()) add(*(at - 1));
  if (at + 1 != tried.end()) add(*(at + 1));
  return rows;
}

TripTuner::TripTuner(When when, int full_steps)
    : on_(when == When::always || trips_on_device()), full_steps_(full_steps) {}

template <class T>
TripShape TripTuner::shape_for(int kind, const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, T c,
                               int m, const Trip& trip, const TripShape& base, const TripRule<T>& rule) {
  if (!on_ || base.rows > 0 || base.tail_rows > 0 || trip.keeps == 0) return base;
  TripShape shape = base;
  shape.rows = rows_of(kind);
  if (shape.rows > 0) return shape;
  if (full_steps_ > 0 && m != full_steps_) return base;
  int tallest = 1;
  for (int p = 0; p < trip.keeps; ++p) tallest = std::max(tallest, trip.keep[p].y1 - trip.keep[p].y0);
  const int rule_rows = rule_tile_rows<T>(space, trip, m);
  // Trials count no non-finite value against the run (their own first_bad).
  const Kokkos::View<std::int64_t> scratch_bad("trident::diffusion::tuner_first_bad");
  auto trial = [&](int rows) {
    shape.rows = rows;
    step_trip<T>(space, u, next, c, 0, m, scratch_bad, trip, shape, rule);
    ++trials_;
  };
  // Seconds a trip of `rows`: at least one, and more while they take under kLeast seconds
  // (a short trip's time would be mostly the launch and the fence's).
  constexpr double kLeast = 100e-6;
  constexpr int kMostTrips = 4;
  auto seconds_of = [&](int rows) {
    const auto begin = std::chrono::steady_clock::now();
    int trips = 0;
    double seconds = 0;
    do {
      trial(rows);
      space.fence();
      ++trips;
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    } while (seconds < kLeast && trips < kMostTrips);
    return seconds / trips;
  };
  // Nothing else on the device while timing (a frame's copies to the host, say), then a trip
  // that warms it up.
  Kokkos::fence();
  trial(rule_rows);
  space.fence();
  std::vector<int> tried;
  int best_rows = rule_rows;
  double best = 0;
  auto time_each = [&](const std::vector<int>& heights) {
    for (const int rows : heights) {
      const double seconds = seconds_of(rows);
      tried.push_back(rows);
      if (best == 0 || seconds < best) {
        best = seconds;
        best_rows = rows;
      }
    }
  };
  time_each(tile_row_candidates(tallest, rule_rows));
  time_each(tile_row_refinements(best_rows, tried));
  chosen_.push_back({kind, best_rows});
  shape.rows = best_rows;
  return shape;
}

int TripTuner::rows_of(int kind) const {
  for (const Choice& choice : chosen_)
    if (choice.kind == kind) return choice.rows;
  return 0;
}

template TripShape TripTuner::shape_for<float>(int, const ExecutionSpace&, const Grid<float>&, const Grid<float>&,
                                               float, int, const Trip&, const TripShape&,
                                               const TripRule<float>&);
template TripShape TripTuner::shape_for<double>(int, const ExecutionSpace&, const Grid<double>&,
                                                const Grid<double>&, double, int, const Trip&, const TripShape&,
                                                const TripRule<double>&);

}  // namespace trident::diffusion
