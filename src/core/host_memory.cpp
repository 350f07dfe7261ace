#include "core/host_memory.hpp"

#include <unistd.h>

#include "core/device_memory.hpp"

namespace trident {

std::int64_t host_memory_available() {
  const std::int64_t available = host_free_bytes();  // MemAvailable of /proc/meminfo
  if (available >= 0) return available;
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::int64_t>(pages) * page : 0;
}

}  // namespace trident
