#pragma once
// The memory check every study makes before it allocates anything large.
#include <cstdint>
#include <string>

namespace trident {

// Throws InputError "WHERE: WHAT needs X GiB of device memory but DEVICE has Y GiB free"
// when `need` exceeds `have` (have < 0: unknown, no check). `memory` names the kind.
void check_device_memory(std::int64_t need, std::int64_t have, const std::string& where,
                         const std::string& what, const std::string& device,
                         const std::string& memory = "device memory");

// Free memory of this rank's device (host memory available on host backends), or -1
// when it cannot be told.
std::int64_t device_free_bytes();

// Memory the host can still give (MemAvailable), or -1 when it cannot be told.
std::int64_t host_free_bytes();

// "1.50 GiB": bytes in GiB with two decimals, for messages.
std::string gib_text(std::int64_t bytes);

}  // namespace trident
