#pragma once
// The least-squares problem of a ridge study, on the host: A (from a generator, a Matrix
// Market file or an HDF5 CSR group) and b (generated or from an HDF5 dataset).
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "deck/ridge_settings.hpp"
#include "ridge/csr.hpp"

namespace trident::ridge {

// A block of consecutive rows of A and the same rows of b, as one rank holds them when the
// rows are spread over ranks; or the whole problem (first_row 0, the totals unset).
struct Problem {
  HostCsr a;              // this rank's rows, every column; a.rows of them
  std::vector<double> b;  // the same rows of b
  std::int64_t first_row = 0;        // index in the whole A of a's first row
  std::int64_t total_rows = -1;      // rows of the whole A; -1: a is the whole A
  std::int64_t total_nonzeros = -1;  // nonzeros of the whole A; -1: a's

  std::int64_t rows() const { return total_rows < 0 ? a.rows : total_rows; }
  std::int64_t columns() const { return a.columns; }
  std::int64_t nonzeros() const { return total_nonzeros < 0 ? a.nonzeros() : total_nonzeros; }
  bool whole() const { return rows() == a.rows; }
};

// Row blocks balanced by nonzeros: `parts` + 1 bounds, block r being rows [bounds[r],
// bounds[r + 1]); block r starts at the first row whose offset (entries before it) reaches
// r * nonzeros / parts, so blocks differ by at most one row's entries from an even share.
// A block may hold no row, or rows without entries. `offset(row)` for row in [0, rows].
std::vector<std::int64_t> nonzero_balanced_rows(std::int64_t rows, int parts,
                                                const std::function<std::int64_t(std::int64_t)>& offset);

// A's shape, nonzeros and row offsets, known before any rank reads its rows; then any
// rank's block of rows. The offsets and the totals are 64-bit: the whole matrix may hold
// more than 2^31 entries as long as one block holds fewer.
class MatrixRows {
 public:
  // generate: nothing is read (row i holds round(density rows columns) (i+1) / rows -
  // ... i / rows entries). hdf5: every rank reads the shape and the row offsets and checks
  // them. matrix_market: rank 0 parses and checks the whole file; the others get its
  // offsets. Collective over `comm`; a bad file is a CollectiveError on every rank.
  MatrixRows(const deck::RidgeMatrixSettings& settings, MPI_Comm comm);
  ~MatrixRows();
  MatrixRows(const MatrixRows&) = delete;
  MatrixRows& operator=(const MatrixRows&) = delete;

  std::int64_t rows() const { return rows_; }
  std::int64_t columns() const { return columns_; }
  std::int64_t nonzeros() const { return offset(rows_); }
  std::int64_t offset(std::int64_t row) const;  // entries before `row`, row in [0, rows]

  // Rows [first, first + count), checked: generated row by row from per-row seeds (the same
  // rows whatever the block), read as slabs of the HDF5 datasets, or sent by rank 0 for a
  // Matrix Market file. Collective over the constructor's comm (each rank its own block).
  HostCsr take(std::int64_t first, std::int64_t count) const;
  MPI_Comm comm() const { return comm_; }

 private:
  deck::RidgeMatrixSettings settings_;
  MPI_Comm comm_;
  std::int64_t rows_ = 0, columns_ = 0, generated_nonzeros_ = 0;
  std::vector<std::int64_t> offsets_;  // hdf5, matrix_market: rows + 1 offsets
  HostCsr parsed_;                     // matrix_market, on rank 0: the whole matrix
};

// A rows x columns matrix with round(density * rows * columns) nonzeros spread as evenly
// as possible over the rows, their columns uniform without replacement within a row and
// their values uniform in [0, 1). Deterministic for a seed, whatever the backend.
HostCsr generate_matrix(int rows, int columns, double density, std::uint64_t seed);
// Rows [first, first + count) of that matrix: each row comes from its own seed, so a block
// holds the same numbers as the whole matrix's rows.
HostCsr generate_matrix_rows(int rows, int columns, double density, std::uint64_t seed, std::int64_t first,
                             std::int64_t count);

// `count` values normal(mean, std), deterministic for a seed.
std::vector<double> generate_rhs(std::size_t count, double mean, double std, std::uint64_t seed);
// Entries [first, first + count) of that vector (the same numbers, the stream skipped ahead).
std::vector<double> generate_rhs_rows(std::int64_t first, std::int64_t count, double mean, double std,
                                      std::uint64_t seed);

// A CSR group: datasets row_ptr (rows + 1), col_ind (0-based), values, and the shape
// [rows, columns] as an attribute `shape` of the group or a dataset `shape` in it.
HostCsr read_hdf5_csr(const std::string& file, const std::string& group);
std::vector<double> read_hdf5_vector(const std::string& file, const std::string& dataset);

// Checks an HDF5 b against a matrix of `rows` rows as load_rows does (the file, the dataset,
// its length), reading none of its values; nothing for a generated b.
void check_rhs(const deck::RidgeRhsSettings& rhs, std::int64_t rows);

// Reads or generates the whole A and b and checks them (on this rank alone; errors are
// InputError).
Problem load_problem(const deck::RidgeSettings& settings);

// This rank's rows [first, first + count) of A (from `rows`) and of b, checked. Collective
// over the comm `rows` was made with; errors are CollectiveError on every rank.
Problem load_rows(const deck::RidgeSettings& settings, const MatrixRows& rows, std::int64_t first,
                  std::int64_t count);

}  // namespace trident::ridge
