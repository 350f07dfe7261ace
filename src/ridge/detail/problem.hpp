#pragma once
// The least-squares problem of a ridge study on the host: A (from a generator, a Matrix
// Market file or an HDF5 CSR group) and b (generated or from an HDF5 dataset), whole or as
// one rank's block of rows. Where the parts come from: generator.hpp, hdf5_csr.hpp,
// matrix_market.hpp, and matrix_rows.hpp for the blocks.
#include <cstdint>
#include <vector>

#include "ridge/settings.hpp"
#include "ridge/detail/csr.hpp"
#include "ridge/detail/generator.hpp"
#include "ridge/detail/hdf5_csr.hpp"
#include "ridge/detail/matrix_rows.hpp"

namespace trident::ridge {

// A block of consecutive rows of A and the same rows of b, as one rank holds them when the
// rows are spread over ranks; or the whole problem (first_row 0, the totals unset).
struct Problem {
  HostCsr a;              // this rank's rows, every column; a.rows of them
  std::vector<double> b;  // the same rows of b
  std::int64_t first_row = 0;        // index in the whole A of a's first row
  std::int64_t total_rows = -1;      // rows of the whole A; -1: a is the whole A
  std::int64_t total_nonzeros = -1;  // nonzeros of the whole A; -1: a's
  // The prior x0 of ridge.prior (every column; empty: none). With it, b holds b - A x0 and
  // the sweep solves for x - x0; with ridge.weights, a's rows and b are already scaled by
  // sqrt(w).
  std::vector<double> x0;

  std::int64_t rows() const { return total_rows < 0 ? a.rows : total_rows; }
  std::int64_t columns() const { return a.columns; }
  std::int64_t nonzeros() const { return total_nonzeros < 0 ? a.nonzeros() : total_nonzeros; }
  bool whole() const { return rows() == a.rows; }
};

// Checks an HDF5 b against a matrix of `rows` rows as load_rows does (the file, the dataset,
// its length), reading none of its values; nothing for a generated b.
void check_rhs(const ridge::RidgeRhsSettings& rhs, std::int64_t rows);

// Checks ridge.prior (`columns` entries) and ridge.weights (`rows` entries, each > 0) as
// load_rows does, every entry finite; nothing for the ones not given. InputError naming the
// file, the dataset and the deck key.
void check_prior_and_weights(const ridge::RidgeSettings& settings, std::int64_t rows, std::int64_t columns);

// Reads or generates the whole A and b and checks them (on this rank alone; errors are
// InputError).
Problem load_problem(const ridge::RidgeSettings& settings);

// This rank's rows [first, first + count) of A (from `rows`) and of b, checked. Collective
// over the comm `rows` was made with; errors are CollectiveError on every rank.
Problem load_rows(const ridge::RidgeSettings& settings, const MatrixRows& rows, std::int64_t first,
                  std::int64_t count);

}  // namespace trident::ridge
