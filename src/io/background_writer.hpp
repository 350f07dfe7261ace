#pragma once
// One piece of file work at a time on a thread of its own, so that the caller goes on
// (stepping on the device) while it runs. The caller waits for the piece in flight before
// it starts the next one or touches the file itself: HDF5 is called from one thread at a
// time. The work must not call MPI (trident asks MPI for MPI_THREAD_FUNNELED only).
#include <chrono>
#include <exception>
#include <functional>
#include <thread>
#include <utility>

namespace trident::io {

class BackgroundWriter {
 public:
  BackgroundWriter() = default;
  ~BackgroundWriter() {
    if (thread_.joinable()) thread_.join();  // its failure, if any, is lost with the run
  }
  BackgroundWriter(const BackgroundWriter&) = delete;
  BackgroundWriter& operator=(const BackgroundWriter&) = delete;

  // Starts `work`; the previous piece must have been waited for.
  void start(std::function<void()> work) {
    thread_ = std::thread([this, work = std::move(work)] {
      const auto begin = std::chrono::steady_clock::now();
      try {
        work();
      } catch (...) {
        failure_ = std::current_exception();
      }
      const std::chrono::duration<double> d = std::chrono::steady_clock::now() - begin;
      seconds_ += d.count();
    });
  }

  // Waits for the piece in flight (if any); returns its failure, or nullptr.
  std::exception_ptr wait() {
    if (thread_.joinable()) thread_.join();
    return std::exchange(failure_, nullptr);
  }

  // Seconds the pieces took on the writer's thread, those waited for so far.
  double seconds() const { return seconds_; }

 private:
  std::thread thread_;
  std::exception_ptr failure_;  // written by the thread, read after the join
  double seconds_ = 0;
};

}  // namespace trident::io
