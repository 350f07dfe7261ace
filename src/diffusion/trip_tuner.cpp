#include "diffusion/trip_tuner.hpp"

#include <algorithm>
#include <chrono>

namespace trident::diffusion {

std::vector<int> tile_row_candidates(int tallest, int rule_rows) {
  std::vector<int> rows;
  for (int r = 16; r <= 256; r += r < 128 ? 8 : 16)
    if (r <= tallest) rows.push_back(r);
  if (rows.empty() || rows.back() < std::min(tallest, 256)) rows.push_back(std::min(tallest, 256));
  if (std::find(rows.begin(), rows.end(), rule_rows) == rows.end()) rows.push_back(rule_rows);
  return rows;
}

TripTuner::TripTuner(When when) : on_(when == When::always || trips_on_device()) {}

template <class T>
TripShape TripTuner::shape_for(int kind, const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, T c,
                               int m, const Trip& trip, const TripShape& base) {
  if (!on_ || base.rows > 0 || base.tail_rows > 0 || trip.keeps == 0) return base;
  TripShape shape = base;
  for (const Choice& choice : chosen_)
    if (choice.kind == kind) {
      shape.rows = choice.rows;
      return shape;
    }
  int tallest = 1;
  for (int p = 0; p < trip.keeps; ++p) tallest = std::max(tallest, trip.keep[p].y1 - trip.keep[p].y0);
  const int rule_rows = rule_tile_rows<T>(space, trip, m);
  // Trials count no non-finite value against the run (their own first_bad).
  const Kokkos::View<std::int64_t> scratch_bad("trident::diffusion::tuner_first_bad");
  constexpr int kTimedTrips = 2;  // a trip a candidate, after one that warms the device
  auto trial = [&](int rows) {
    shape.rows = rows;
    step_trip<T>(space, u, next, c, 0, m, scratch_bad, trip, shape);
    ++trials_;
  };
  trial(rule_rows);
  space.fence();
  int best_rows = rule_rows;
  double best = 0;
  for (const int rows : tile_row_candidates(tallest, rule_rows)) {
    const auto begin = std::chrono::steady_clock::now();
    for (int t = 0; t < kTimedTrips; ++t) trial(rows);
    space.fence();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    if (best == 0 || seconds < best) {
      best = seconds;
      best_rows = rows;
    }
  }
  chosen_.push_back({kind, best_rows});
  shape.rows = best_rows;
  return shape;
}

std::string TripTuner::describe() const {
  if (chosen_.size() == 1) return std::to_string(chosen_[0].rows) + " rows";
  std::string text;
  for (const Choice& choice : chosen_)
    text += (text.empty() ? "" : "; ") + std::string("kind ") + std::to_string(choice.kind) + ": " +
            std::to_string(choice.rows) + " rows";
  return text;
}

template TripShape TripTuner::shape_for<float>(int, const ExecutionSpace&, const Grid<float>&, const Grid<float>&,
                                               float, int, const Trip&, const TripShape&);
template TripShape TripTuner::shape_for<double>(int, const ExecutionSpace&, const Grid<double>&,
                                                const Grid<double>&, double, int, const Trip&, const TripShape&);

}  // namespace trident::diffusion
