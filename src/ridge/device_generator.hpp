#pragma once
// The generated matrix's rows made on the device (ridge.matrix.generate), the same numbers
// as generate_matrix_rows (generator.hpp): each row's columns by Floyd's sampling from its
// own stream, ascending, then its values. A team a row: one thread draws the columns (each
// draw depends on those before it) into a bitmap of the columns or a list, as the host
// does; the team then orders them and draws the values, each from its place in the stream.
// Where the host's CPUs are shared by the ranks of a host, this takes the generation of the
// large deck's rows off them.
#include <cstdint>
#include <memory>

#include "ridge/csr.hpp"
#include "ridge/device_entries.hpp"

namespace trident::ridge {

// Rows [first, first + count) of the generated rows x columns matrix of `density` and
// `seed`, made on the device: returned there (with A^T's order, DeviceEntries) and copied
// into `host` (what generate_matrix_rows returns, bit for bit).
std::shared_ptr<DeviceEntries> generate_rows_on_device(int rows, int columns, double density, std::uint64_t seed,
                                                       std::int64_t first, std::int64_t count, HostCsr& host);

}  // namespace trident::ridge
