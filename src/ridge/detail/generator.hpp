#pragma once
// The generated problem of a ridge deck (ridge.matrix.generate, ridge.rhs.generate): A with
// its nonzeros spread evenly over the rows, b normal; any block of rows made alone.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ridge/detail/csr.hpp"

namespace trident::ridge {

// A rows x columns matrix with round(density * rows * columns) nonzeros spread as evenly
// as possible over the rows, their columns uniform without replacement within a row and
// their values uniform in [0, 1). Deterministic for a seed, whatever the backend.
HostCsr generate_matrix(int rows, int columns, double density, std::uint64_t seed);
// Rows [first, first + count) of that matrix: each row comes from its own seed, so a block
// holds the same numbers as the whole matrix's rows.
HostCsr generate_matrix_rows(int rows, int columns, double density, std::uint64_t seed, std::int64_t first,
                             std::int64_t count);

// The nonzeros of the generated matrix, and those before its row i (total * i / rows,
// computed in 128 bits: total * i passes 2^63 for large matrices).
std::int64_t generated_nonzeros(std::int64_t rows, std::int64_t columns, double density);
std::int64_t generated_offset(std::int64_t total, std::int64_t rows, std::int64_t i);

// `count` values normal(mean, std), deterministic for a seed.
std::vector<double> generate_rhs(std::size_t count, double mean, double std, std::uint64_t seed);
// Entries [first, first + count) of that vector (the same numbers, the stream skipped ahead).
std::vector<double> generate_rhs_rows(std::int64_t first, std::int64_t count, double mean, double std,
                                      std::uint64_t seed);

}  // namespace trident::ridge
