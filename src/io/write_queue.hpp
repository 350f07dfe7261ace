#pragma once
// File work queued by one thread and done in order on a thread of its own, so that the
// caller goes on (a search on the device) while the earlier pieces are written. The work
// must call neither MPI (trident asks for MPI_THREAD_FUNNELED only) nor HDF5 (the caller's
// thread may be in it): write_bytes_at (direct_rows.hpp) is what it is for. After a piece
// fails, the pieces queued after it are dropped.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace trident::io {

class WriteQueue {
 public:
  WriteQueue() = default;
  ~WriteQueue() { (void)finish(); }  // a failure found only here is lost with the run
  WriteQueue(const WriteQueue&) = delete;
  WriteQueue& operator=(const WriteQueue&) = delete;

  // Queues `work` (the thread starts with the first piece).
  void push(std::function<void()> work) {
    {
      const std::lock_guard<std::mutex> hold(mutex_);
      pieces_.push_back(std::move(work));
    }
    if (!thread_.joinable()) thread_ = std::thread([this] { drain(); });
    more_.notify_one();
  }

  // Waits until every piece queued is done; returns the first failure, or nullptr. Pieces
  // may be queued again afterwards.
  std::exception_ptr finish() {
    if (thread_.joinable()) {
      {
        const std::lock_guard<std::mutex> hold(mutex_);
        closing_ = true;
      }
      more_.notify_one();
      thread_.join();
      closing_ = false;
    }
    return std::exchange(failure_, nullptr);
  }

  // Seconds the pieces took on the queue's thread, those finished so far (read after finish).
  double seconds() const { return seconds_; }

 private:
  void drain() {
    for (;;) {
      std::function<void()> work;
      {
        std::unique_lock<std::mutex> hold(mutex_);
        more_.wait(hold, [this] { return closing_ || !pieces_.empty(); });
        if (pieces_.empty()) return;  // closing, and nothing left
        work = std::move(pieces_.front());
        pieces_.pop_front();
      }
      if (failure_) continue;  // dropped after a failure
      const auto begin = std::chrono::steady_clock::now();
      try {
        work();
      } catch (...) {
        failure_ = std::current_exception();
      }
      seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    }
  }

  std::mutex mutex_;
  std::condition_variable more_;
  std::deque<std::function<void()>> pieces_;
  bool closing_ = false;
  std::thread thread_;
  std::exception_ptr failure_;  // written by the thread, read after the join
  double seconds_ = 0;
};

}  // namespace trident::io
