#pragma once
// Work that the host queues on the device over and over, recorded once and replayed: on
// CUDA a graph captured from the default instance's stream, whose replay launches all of
// its kernels with one call and lets the GPU start each one without the host's launch
// path in between; on other back ends nothing is recorded and the caller queues the work
// as before. Only device work may be recorded: a host wait inside it (a fence, a host
// copy, MPI) makes record() fail, and the caller keeps queueing the work itself.
#include <Kokkos_Core.hpp>

#include <functional>
#include <memory>
#include <string>

namespace trident::transport {

class QueueRecording {
 public:
  QueueRecording();
  ~QueueRecording();
  QueueRecording(const QueueRecording&) = delete;
  QueueRecording& operator=(const QueueRecording&) = delete;

  // Records what `queue` puts on Kokkos' default instance, without running it. Returns
  // false, with the reason in `why_not`, when nothing could be recorded (not a CUDA build,
  // or the work did something a recording cannot hold); then nothing of it ran either.
  bool record(const std::function<void()>& queue, std::string& why_not);
  bool recorded() const;
  // Queues the recorded work on the default instance again.
  void replay() const;

 private:
  struct Graph;
  std::unique_ptr<Graph> graph_;
};

}  // namespace trident::transport
