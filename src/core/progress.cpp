// Progress lines on rank 0 (core/progress.hpp).
#include "core/progress.hpp"

#include <cstdio>

#include "core/comm.hpp"
#include "core/log.hpp"
#include "core/timers.hpp"

namespace trident {

Progress::Progress(MPI_Comm comm, std::string label, std::int64_t first, std::int64_t last,
                   double interval_seconds, std::string unit)
    : comm_(comm),
      label_(std::move(label)),
      unit_(std::move(unit)),
      first_(first),
      last_(last),
      interval_(interval_seconds),
      start_(wall_seconds()),
      last_report_(start_),
      last_call_(start_),
      speaker_(mpi::rank(comm) == 0 && !log::quiet()) {}

bool Progress::update(std::int64_t step) {
  if (!speaker_ || interval_ <= 0.0) return false;
  const double now = wall_seconds();
  const double gap = now - last_call_;  // the time between calls, for the next one too
  last_call_ = now;
  if (now + gap - last_report_ < interval_) return false;
  last_report_ = now;
  log::progress_line(line(step));
  return true;
}

std::string Progress::line(std::int64_t step) const {
  const double elapsed = wall_seconds() - start_;
  const double done = static_cast<double>(step - first_);
  const double total = static_cast<double>(last_ - first_);
  const double rate = elapsed > 0 ? done / elapsed : 0.0;
  const double left = rate > 0 ? (total - done) / rate : 0.0;
  char text[200];
  std::snprintf(text, sizeof text, "%s %s %lld of %lld (%.1f%%), %.1f %ss/s, %.0f s left",
                label_.c_str(), unit_.c_str(), static_cast<long long>(step), static_cast<long long>(last_),
                total > 0 ? 100.0 * (static_cast<double>(step) / static_cast<double>(last_)) : 100.0,
                rate, unit_.c_str(), left);
  return text;
}

}  // namespace trident
