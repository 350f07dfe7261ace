#pragma once
// Progress lines on rank 0 for long loops: where it is, percent, rate, time left.
#include <mpi.h>

#include <cstdint>
#include <string>

namespace trident {

class Progress {
 public:
  // Reports at most every `interval_seconds` (0 disables). `first` is the step the loop
  // starts from (non-zero on restart), `last` the step it ends at. `unit` names what is
  // counted ("step": "diffusion step 40 of 400 (10.0%), 41.2 steps/s, 9 s left").
  Progress(MPI_Comm comm, std::string label, std::int64_t first, std::int64_t last,
           double interval_seconds, std::string unit = "step");

  // Cheap when no report is due: one clock read on rank 0. Returns true when it printed.
  // A line is due once `interval_seconds` have passed since the last, or when the next
  // call, as far as the time between the last two calls tells, would come after that: a
  // loop whose calls are a second apart (knn's rounds) still reports within the interval.
  bool update(std::int64_t step);
  // A line naming the figures at `step` (also used for the final line).
  std::string line(std::int64_t step) const;

 private:
  MPI_Comm comm_;
  std::string label_, unit_;
  std::int64_t first_, last_;
  double interval_, start_, last_report_, last_call_;
  bool speaker_;
};

}  // namespace trident
