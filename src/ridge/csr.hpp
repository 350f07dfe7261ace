#pragma once
// A sparse matrix in compressed sparse row form on the host, as read or generated,
// before it is copied to the device in the working precision.
#include <cstdint>
#include <string>
#include <vector>

namespace trident::ridge {

struct HostCsr {
  int rows = 0;
  int columns = 0;
  std::vector<int> row_ptr;     // rows + 1 offsets into col_ind/values
  std::vector<int> col_ind;     // column of each stored value, ascending within a row
  std::vector<double> values;
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
