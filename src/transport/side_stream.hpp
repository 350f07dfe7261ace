#pragma once
// A second queue of device work beside Kokkos's default instance, and points in one queue
// that the other can wait for, so that small urgent work (halo packing, transfers,
// unpacking) runs while a long kernel occupies the device, with no host thread blocked.
// On CUDA: a non-blocking stream of the highest priority (the GPU schedules its blocks
// ahead of the queued blocks of a running kernel) and CUDA events. On other backends the
// default instance and fences: the same order of work, only without concurrency.
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <memory>
#include <vector>

namespace trident::transport {

using ExecutionSpace = Kokkos::DefaultExecutionSpace;

class SideStream {
 public:
  SideStream();
  ~SideStream();
  SideStream(const SideStream&) = delete;
  SideStream& operator=(const SideStream&) = delete;
  const ExecutionSpace& space() const { return *space_; }

 private:
  struct Stream;
  std::unique_ptr<Stream> stream_;
  std::unique_ptr<ExecutionSpace> space_;
};

// A point in an instance's queue: work queued on another instance after wait_on() starts
// only once the work queued before record() is done.
class QueueMark {
 public:
  explicit QueueMark(bool timed = false);
  ~QueueMark();
  QueueMark(const QueueMark&) = delete;
  QueueMark& operator=(const QueueMark&) = delete;
  QueueMark(QueueMark&&) noexcept;
  QueueMark& operator=(QueueMark&&) noexcept;

  void record(const ExecutionSpace& space);
  void wait_on(const ExecutionSpace& waiter) const;
  // Seconds from `from` to `to` (both timed and recorded), once both are reached; blocks
  // the host until then. On backends without events, the host's clock at each record().
  static double seconds_between(const QueueMark& from, const QueueMark& to);

 private:
  struct Event;
  std::unique_ptr<Event> event_;
};

// Time an instance's queue spent waiting: pairs of timed marks around a wait, read back
// lazily (no fence per pair). A ring of pairs: a pair is read before it is reused, which
// blocks the host only when it is a whole ring of waits ahead of the device.
class QueueWaitClock {
 public:
  explicit QueueWaitClock(std::size_t pairs = 256);
  void begin(const ExecutionSpace& space);  // before the wait is queued
  void end(const ExecutionSpace& space);    // after it
  // The waits so far, in seconds, and starts over. Blocks until the device reaches them.
  double take_seconds();

 private:
  void harvest(std::size_t slot);
  std::vector<QueueMark> begins_, ends_;
  std::vector<bool> pending_;
  std::size_t next_ = 0;
  double seconds_ = 0;
};

}  // namespace trident::transport
