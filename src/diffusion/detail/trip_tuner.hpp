#pragma once
// The tiles' height of a trip, timed instead of predicted. Any height gives the same bits;
// which is fastest depends on how the device schedules its teams (a single wave of teams
// waits for its slowest one) in ways no rule caught across grid sizes (docs/history/
// diffusion.md). So the first trip of each kind runs a trial trip of each candidate height
// (a ladder, then halfway to the fastest one's neighbours) from u into next (u is left as it
// was, and the real trip then writes every cell the trials wrote) and keeps the fastest.
// About a dozen trips once a run: kept few, as short runs pay for them.
#include <vector>

#include "diffusion/detail/stencil.hpp"
#include "diffusion/detail/trip.hpp"

namespace trident::diffusion {

class TripTuner {
 public:
  // automatic: times on a device only (a host's one-thread teams take the rule's tiles);
  // always: on a host too (tests of the trials). Only trips of `full_steps` steps are timed
  // (0: any), so that a short trip (before an early frame, say) does not pick the heights
  // of the long ones; until then the rule's apply.
  enum class When { automatic, always };
  explicit TripTuner(When when = When::automatic, int full_steps = 0);

  // The shape for trips of kind `kind` (the caller's numbering: trips of one kind have
  // about the same kept boxes, whatever their steps): `base` when that forces the rows or
  // timing is off; else, on the first call of this kind, trial trips of m steps from u into
  // next queued on `space` (fenced; the trials compute `rule`'s steps), then the fastest rows,
  // kept for the kind.
  template <class T>
  TripShape shape_for(int kind, const ExecutionSpace& space, const Grid<T>& u, const Grid<T>& next, T c, int m,
                      const Trip& trip, const TripShape& base, const TripRule<T>& rule = TripRule<T>());

  // The height chosen for `kind`, 0 if none (not timed, or no trip of it yet).
  int rows_of(int kind) const;
  int trials() const { return trials_; }  // trial trips run so far

 private:
  struct Choice {
    int kind, rows;
  };
  bool on_;
  int full_steps_;
  std::vector<Choice> chosen_;
  int trials_ = 0;
};

// The heights tried first: a ladder from 16 to 256 rows, the tallest kept box's height when
// lower, and the rule's.
std::vector<int> tile_row_candidates(int tallest, int rule_rows);
// Then the heights halfway (to 8 rows) between the fastest of `tried` and its neighbours there.
std::vector<int> tile_row_refinements(int fastest, std::vector<int> tried);

}  // namespace trident::diffusion
