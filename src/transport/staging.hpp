#pragma once
// What the staged copies (StagedDownload, StagedUpload) share: whether the device has memory
// of its own, and the host's side of a chunk's copy.
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/host_threads.hpp"

namespace trident::transport::staging {

using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
using DeviceMemory = Kokkos::DefaultExecutionSpace::memory_space;
// false where the device's memory is the host's: a copy is then a plain memcpy
inline constexpr bool kStaged = !std::is_same<DeviceMemory, Kokkos::HostSpace>::value;

// [from, from + bytes) to `to` on the host's threads, in ranges of at least 4 MiB (whole huge
// pages, first touched by the thread that fills them; 2 MiB ranges measured slower).
inline void host_copy(char* to, const char* from, std::size_t bytes) {
  core::host_parallel_ranges(static_cast<std::int64_t>(bytes), std::int64_t(4) << 20,
                             [to, from](std::int64_t begin, std::int64_t end) {
                               std::memcpy(to + begin, from + begin, static_cast<std::size_t>(end - begin));
                             });
}

}  // namespace trident::transport::staging
