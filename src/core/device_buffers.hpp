#pragma once
// Device arrays (and execution space instances) kept between the uses of a computation
// that runs many times over (the kNN search in rounds), arrays grown only when a use wants
// more: allocating and freeing a round's arrays every round costs a noticeable part of a
// short search (docs/history/core.md).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace trident::core {

class DeviceBuffers {
 public:
  using Memory = Kokkos::DefaultExecutionSpace::memory_space;

  // A view of `extents` (its rank's worth) over the buffer `name`: uninitialized, unmanaged,
  // valid until the next call with the same name (which may move the buffer) or the end of
  // this object. Different names never share memory.
  template <class View, class... Extents>
  View view(const std::string& name, Extents... extents) {
    const std::size_t count = (std::size_t(1) * ... * static_cast<std::size_t>(extents));
    return View(reinterpret_cast<typename View::pointer_type>(bytes(name, count * sizeof(typename View::value_type))),
                static_cast<std::size_t>(extents)...);
  }

  DeviceBuffers() = default;
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;
  ~DeviceBuffers() {
    spaces_.clear();  // the instances before their streams
#if defined(KOKKOS_ENABLE_CUDA)
    for (cudaStream_t stream : streams_) cudaStreamDestroy(stream);
#endif
  }

  // Up to `n` execution space instances of falling priority, made once and kept: on CUDA
  // each with its own stream, the first of the device's highest priority, each next one
  // level lower, as many as the device has levels, so that work given to a
  // later one runs on what an earlier one leaves idle without delaying it; elsewhere one
  // copy of the default instance.
  std::vector<Kokkos::DefaultExecutionSpace> prioritized_spaces(std::size_t n) {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>::value) {
      int least = 0, greatest = 0;
      if (cudaDeviceGetStreamPriorityRange(&least, &greatest) != cudaSuccess) least = greatest = 0;
      const auto levels = static_cast<std::size_t>(least - greatest + 1);
      while (spaces_.size() < std::min(n, levels)) {  // (none made when enough are)
        cudaStream_t stream = nullptr;
        const int priority = greatest + static_cast<int>(spaces_.size());
        if (cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, priority) != cudaSuccess) {
          (void)cudaGetLastError();
          break;
        }
        streams_.push_back(stream);
        spaces_.emplace_back(stream);
      }
    }
#endif
    if (spaces_.empty()) return {Kokkos::DefaultExecutionSpace()};
    return {spaces_.begin(), spaces_.begin() + static_cast<std::ptrdiff_t>(std::min(n, spaces_.size()))};
  }

  // What buffer `name` was last filled with, as its user labelled it (mark_filled), or ""
  // when it never was or has moved since: a use that finds its own label there need not
  // copy the data again.
  std::string filled_with(const std::string& name) const {
    const auto found = labels_.find(name);
    return found == labels_.end() ? std::string() : found->second;
  }
  void mark_filled(const std::string& name, const std::string& label) { labels_[name] = label; }

  // Bytes held over all buffers.
  std::size_t held() const {
    std::size_t total = 0;
    for (const auto& [name, buffer] : buffers_) total += buffer.extent(0);
    return total;
  }

 private:
  char* bytes(const std::string& name, std::size_t size) {
    Kokkos::View<char*, Memory>& buffer = buffers_[name];
    if (buffer.extent(0) < size) {
      labels_.erase(name);
      buffer = {};  // freed before the larger one is made: both need not fit at once
      buffer = Kokkos::View<char*, Memory>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::" + name), size);
    }
    return buffer.data();
  }

  std::map<std::string, Kokkos::View<char*, Memory>> buffers_;
  std::map<std::string, std::string> labels_;
  std::vector<Kokkos::DefaultExecutionSpace> spaces_;
#if defined(KOKKOS_ENABLE_CUDA)
  std::vector<cudaStream_t> streams_;
#endif
};

}  // namespace trident::core
