#pragma once
// A sparse matrix in compressed sparse row form on the host, as read or generated,
// before it is copied to the device in the working precision.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/host_threads.hpp"
#include "core/uninitialized_vector.hpp"

namespace trident::ridge {

struct HostCsr {
  int rows = 0;
  int columns = 0;
  // Made without std::vector's serial value-initialization (the arrays of 4e8 nonzeros
  // take 4.8 GB, whose first touch on one thread took seconds): whoever sizes them fills
  // them, on every CPU where it can.
  core::UninitializedVector<int> row_ptr;  // rows + 1 offsets into col_ind/values
  core::UninitializedVector<int> col_ind;  // column of each stored value, ascending within a row
  core::UninitializedVector<double> values;
  std::int64_t nonzeros() const { return static_cast<std::int64_t>(col_ind.size()); }
};

// One stored entry (0-based) of a matrix being assembled.
struct Triplet {
  int row;
  int column;
  double value;
};

// Sorts the entries by row then column and sums duplicates (as Matrix Market readers do).
HostCsr csr_from_triplets(int rows, int columns, std::vector<Triplet> entries);

// The transpose, columns ascending within each row (so products with it need no atomics).
HostCsr transpose(const HostCsr& a);

// Column ranges for `parts` threads that pass over a matrix by columns: bounds[p] to
// bounds[p + 1], each holding about an equal share of the entries counted in
// `entries_per_column`, or of the columns when it is empty. Fewer parts
// when the matrix is small (at least 2^15 entries a part): one for the tests' small ones.
std::vector<int> column_bounds(int columns, std::int64_t nonzeros, const std::vector<std::int64_t>& entries_per_column,
                               int parts);

// Calls visit(row, k, column) for every entry k of `a`, on up to core::usable_cpus()
// threads: each takes a range of columns (column_bounds, balanced by entries_per_column
// when given) and passes over all of A in row
// order, so one thread visits a column's entries, in ascending rows, whatever the thread
// count: visit may update what belongs to the column (its count, its next slot in the
// transpose) without locks, and the transpose it builds is the same as one loop's.
// A thread picks its entries out of each row without a branch (a branch taken at random
// for 1 entry in `parts` costs more than the visits), a block at a time.
template <class Visit>
void for_entries_by_columns(const HostCsr& a, const std::vector<std::int64_t>& entries_per_column, Visit visit) {
  const std::vector<int> bounds = column_bounds(a.columns, a.nonzeros(), entries_per_column, core::usable_cpus());
  if (bounds.size() == 2) {  // one thread (one CPU, or a small matrix): every entry is its own
    for (int i = 0; i < a.rows; ++i)
      for (int k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) visit(i, k, a.col_ind[k]);
    return;
  }
  core::host_parallel_ranges(
      static_cast<std::int64_t>(bounds.size()) - 1, 1, [&](const std::int64_t first, const std::int64_t last) {
        constexpr int kBlock = 64;
        int mine[kBlock];
        for (std::int64_t part = first; part < last; ++part) {
          const int c0 = bounds[part];
          const auto span = static_cast<unsigned>(bounds[part + 1] - c0);
          for (int i = 0; i < a.rows; ++i)
            for (int k0 = a.row_ptr[i]; k0 < a.row_ptr[i + 1]; k0 += kBlock) {
              const int k1 = std::min(a.row_ptr[i + 1], k0 + kBlock);
              int n = 0;
              for (int k = k0; k < k1; ++k) {
                mine[n] = k;
                n += static_cast<unsigned>(a.col_ind[k] - c0) < span;
              }
              for (int j = 0; j < n; ++j) visit(i, mine[j], a.col_ind[mine[j]]);
            }
        }
      });
}

// The entries of each column of `a` (the row lengths of its transpose).
std::vector<std::int64_t> column_entries(const HostCsr& a);

// Checks the structure and values: offsets non-decreasing and matching the arrays,
// columns in range, values finite. Throws InputError naming `source` and the first bad
// row/entry (1-based, as a user would count).
void validate(const HostCsr& a, const std::string& source);
// The same checks but the shape's, for a block of rows whose first is row `first_row` of
// the whole matrix (rows named as in the whole matrix); a block may hold no row.
void validate_rows(const HostCsr& a, const std::string& source, std::int64_t first_row);

// Bytes read by one product with the matrix: values, column indices and row offsets.
std::int64_t product_bytes(const HostCsr& a, std::size_t scalar_bytes);

}  // namespace trident::ridge
