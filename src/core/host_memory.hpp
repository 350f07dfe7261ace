#pragma once
// Host memory this process can still take without swapping, for sizing output buffers.
#include <cstdint>

namespace trident {

// MemAvailable of /proc/meminfo in bytes (free pages where it is missing); 0 if unknown.
std::int64_t host_memory_available();

}  // namespace trident
