#include "transport/side_stream.hpp"

#include <optional>
#include <string>

#include "core/error.hpp"
#include "core/timers.hpp"

namespace trident::transport {

#if defined(KOKKOS_ENABLE_CUDA)
namespace {
void check_cuda(cudaError_t result, const char* what) {
  if (result != cudaSuccess) throw RunError(std::string("CUDA ") + what + " failed: " + cudaGetErrorString(result));
}
}  // namespace

struct SideStream::Stream {
  cudaStream_t stream = nullptr;
};

SideStream::SideStream() : stream_(std::make_unique<Stream>()) {
  int least = 0, greatest = 0;  // numerically greatest = lowest priority
  check_cuda(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
  check_cuda(cudaStreamCreateWithPriority(&stream_->stream, cudaStreamNonBlocking, greatest),
             "cudaStreamCreateWithPriority");
  space_ = std::make_unique<ExecutionSpace>(stream_->stream);
}

SideStream::~SideStream() {
  space_->fence();
  space_.reset();  // the instance does not own the stream; it goes first
  cudaStreamDestroy(stream_->stream);
}

struct QueueMark::Event {
  cudaEvent_t event = nullptr;
};

QueueMark::QueueMark(bool timed) : event_(std::make_unique<Event>()) {
  check_cuda(cudaEventCreateWithFlags(&event_->event, timed ? cudaEventDefault : cudaEventDisableTiming),
             "cudaEventCreateWithFlags");
}

QueueMark::~QueueMark() {
  if (event_ && event_->event != nullptr) cudaEventDestroy(event_->event);
}

void QueueMark::record(const ExecutionSpace& space) {
  check_cuda(cudaEventRecord(event_->event, space.cuda_stream()), "cudaEventRecord");
}

void QueueMark::wait_on(const ExecutionSpace& waiter) const {
  check_cuda(cudaStreamWaitEvent(waiter.cuda_stream(), event_->event, 0), "cudaStreamWaitEvent");
}

double QueueMark::seconds_between(const QueueMark& from, const QueueMark& to) {
  check_cuda(cudaEventSynchronize(to.event_->event), "cudaEventSynchronize");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, from.event_->event, to.event_->event), "cudaEventElapsedTime");
  return 1e-3 * static_cast<double>(ms);
}

#else

// One queue: work runs in the order it was queued, so waiting means fencing what was
// recorded; the host's clock stands in for the device's (synchronous backends) or
// follows it closely (the fence before the clock is read).
struct SideStream::Stream {};

SideStream::SideStream() : space_(std::make_unique<ExecutionSpace>()) {}
SideStream::~SideStream() = default;

struct QueueMark::Event {
  std::optional<ExecutionSpace> space;
  double seconds = 0;
};

QueueMark::QueueMark(bool) : event_(std::make_unique<Event>()) {}
QueueMark::~QueueMark() = default;

void QueueMark::record(const ExecutionSpace& space) {
  event_->space = space;
  space.fence();
  event_->seconds = wall_seconds();
}

void QueueMark::wait_on(const ExecutionSpace&) const {
  if (event_->space) event_->space->fence();
}

double QueueMark::seconds_between(const QueueMark& from, const QueueMark& to) {
  return to.event_->seconds - from.event_->seconds;
}

#endif

QueueMark::QueueMark(QueueMark&&) noexcept = default;
QueueMark& QueueMark::operator=(QueueMark&&) noexcept = default;

QueueWaitClock::QueueWaitClock(std::size_t pairs) : pending_(pairs, false) {
  begins_.reserve(pairs);
  ends_.reserve(pairs);
  for (std::size_t k = 0; k < pairs; ++k) {
    begins_.emplace_back(true);
    ends_.emplace_back(true);
  }
}

void QueueWaitClock::harvest(std::size_t slot) {
  if (!pending_[slot]) return;
  seconds_ += QueueMark::seconds_between(begins_[slot], ends_[slot]);
  pending_[slot] = false;
}

void QueueWaitClock::begin(const ExecutionSpace& space) {
  harvest(next_);
  begins_[next_].record(space);
}

void QueueWaitClock::end(const ExecutionSpace& space) {
  ends_[next_].record(space);
  pending_[next_] = true;
  next_ = (next_ + 1) % pending_.size();
}

double QueueWaitClock::take_seconds() {
  for (std::size_t k = 0; k < pending_.size(); ++k) harvest(k);
  const double s = seconds_;
  seconds_ = 0;
  return s;
}

}  // namespace trident::transport
