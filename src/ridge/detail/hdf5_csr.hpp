#pragma once
// A's CSR group and b's dataset in HDF5 files (ridge.matrix.hdf5, ridge.rhs.hdf5), read
// through io::InputFile: the group's shape and row offsets checked first, then any block of
// rows read as slabs of its datasets.
#include <cstdint>
#include <string>
#include <vector>

#include "ridge/detail/csr.hpp"

namespace trident::io {
class InputFile;
}

namespace trident::ridge {

// What the input files are, in io::InputFile's messages.
inline constexpr const char* kMatrixFileRole = "matrix file of ridge.matrix";
inline constexpr const char* kRhsFileRole = "right-hand side file of ridge.rhs";

// A CSR group's shape and row offsets, checked (the offsets as 64-bit numbers: the whole
// matrix may hold more than 2^31 entries).
struct Hdf5CsrIndex {
  std::int64_t rows = 0, columns = 0;
  std::vector<std::int64_t> offsets;
};

// A CSR group: datasets row_ptr (rows + 1), col_ind (0-based), values, and the shape
// [rows, columns] as an attribute `shape` of the group or a dataset `shape` in it. The
// index is checked as validate() checks a whole matrix, in its order and words.
Hdf5CsrIndex read_hdf5_index(const io::InputFile& in, const std::string& group);
// Rows [first, first + count) of a checked CSR group, their entries read as slabs and
// checked (validate_rows).
HostCsr read_hdf5_rows(const io::InputFile& in, const std::string& group, const Hdf5CsrIndex& index,
                       std::int64_t first, std::int64_t count);
// The whole group of `file`.
HostCsr read_hdf5_csr(const std::string& file, const std::string& group);

// Entries of a one-dimensional dataset (or of one N x 1, read as N).
std::uint64_t hdf5_vector_length(const io::InputFile& in, const std::string& dataset);
// Entries [first, first + count) of such a dataset, each checked finite.
std::vector<double> read_hdf5_vector_rows(const io::InputFile& in, const std::string& dataset, std::int64_t first,
                                          std::int64_t count);
// The whole dataset of `file`, checked finite.
std::vector<double> read_hdf5_vector(const std::string& file, const std::string& dataset);

}  // namespace trident::ridge
