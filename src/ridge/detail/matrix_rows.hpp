#pragma once
// A's rows spread over ranks: its shape and row offsets known before any rank reads its
// rows, blocks of rows balanced by nonzeros, and any rank's block taken from the deck's
// source (generated, an HDF5 group, or a Matrix Market file parsed on rank 0).
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "ridge/settings.hpp"
#include "ridge/detail/csr.hpp"

namespace trident::ridge {

// Row blocks balanced by nonzeros: `parts` + 1 bounds, block r being rows [bounds[r],
// bounds[r + 1]); block r starts at the first row whose offset (entries before it) reaches
// r * nonzeros / parts, so blocks differ by at most one row's entries from an even share.
// A block may hold no row, or rows without entries. `offset(row)` for row in [0, rows].
std::vector<std::int64_t> nonzero_balanced_rows(std::int64_t rows, int parts,
                                                const std::function<std::int64_t(std::int64_t)>& offset);

// mpi::collective over `comm`, but on MPI_COMM_SELF (one rank loading the whole problem)
// `work` runs as it is, so that its InputError passes unchanged.
void collective_unless_alone(MPI_Comm comm, const std::function<void()>& work);

// A's shape, nonzeros and row offsets, known before any rank reads its rows; then any
// rank's block of rows. The offsets and the totals are 64-bit: the whole matrix may hold
// more than 2^31 entries as long as one block holds fewer.
class MatrixRows {
 public:
  // generate: nothing is read (row i holds round(density rows columns) (i+1) / rows -
  // ... i / rows entries). hdf5: every rank reads the shape and the row offsets and checks
  // them. matrix_market: rank 0 parses and checks the whole file; the others get its
  // offsets. Collective over `comm`; a bad file is a CollectiveError on every rank.
  MatrixRows(const ridge::RidgeMatrixSettings& settings, MPI_Comm comm);
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
  // Rank 0 sends every rank the block of the parsed Matrix Market file it asks for.
  HostCsr send_parsed_blocks(std::int64_t first, std::int64_t count) const;

  ridge::RidgeMatrixSettings settings_;
  MPI_Comm comm_;
  std::int64_t rows_ = 0, columns_ = 0, generated_nonzeros_ = 0;
  std::vector<std::int64_t> offsets_;  // hdf5, matrix_market: rows + 1 offsets
  HostCsr parsed_;                     // matrix_market, on rank 0: the whole matrix
};

}  // namespace trident::ridge
