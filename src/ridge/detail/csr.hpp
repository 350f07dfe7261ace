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

// Ranges of A's rows for the threads of a pass that keeps `buckets` counters a thread
// (count_by_rows, scatter_by_rows): rows bounds[p] to bounds[p + 1] for part p, each
// holding about an equal share of the entries, at least 2^15 of them (one part for the
// tests' small matrices), at most core::host_threads() parts, and no more than keep the
// parts' counters (8 bytes each) within 256 MiB.
std::vector<int> row_bounds(const HostCsr& a, std::int64_t buckets);

// Calls work(p) for every part p of `bounds` (row_bounds), a thread a part.
template <class Work>
void for_row_parts(const std::vector<int>& bounds, Work work) {
  core::host_parallel_ranges(static_cast<std::int64_t>(bounds.size()) - 1, 1,
                             [&](const std::int64_t first, const std::int64_t last) {
                               for (std::int64_t p = first; p < last; ++p) work(static_cast<std::size_t>(p));
                             });
}

// Each part's entries per bucket: counts[p][b].
template <class Bucket>
std::vector<std::vector<std::int64_t>> part_counts(const HostCsr& a, const std::vector<int>& bounds,
                                                   std::int64_t buckets, Bucket bucket) {
  std::vector<std::vector<std::int64_t>> counts(bounds.size() - 1);
  for_row_parts(bounds, [&](const std::size_t p) {
    std::vector<std::int64_t>& mine = counts[p];
    mine.assign(static_cast<std::size_t>(buckets), 0);
    for (int i = bounds[p]; i < bounds[p + 1]; ++i)
      for (int k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) ++mine[static_cast<std::size_t>(bucket(i, a.col_ind[k]))];
  });
  return counts;
}

// The entries of `a` in each of `buckets` buckets, bucket(i, c) in [0, buckets) naming the
// bucket of the entry in row i and column c. Each thread counts a range of rows
// (row_bounds) into counters of its own; the sums do not depend on the thread count.
template <class Bucket>
std::vector<std::int64_t> count_by_rows(const HostCsr& a, std::int64_t buckets, Bucket bucket) {
  std::vector<std::vector<std::int64_t>> counts = part_counts(a, row_bounds(a, buckets), buckets, bucket);
  for (std::size_t p = 1; p < counts.size(); ++p)
    for (std::size_t b = 0; b < counts[p].size(); ++b) counts[0][b] += counts[p][b];
  return std::move(counts[0]);
}

// Puts every entry of `a` into its bucket (bucket(i, c) as for count_by_rows) through
// store(slot, i, k) for entry k of row i, the entries of bucket b in slots from first[b] on,
// in ascending rows: the slots one loop over the rows would give, whatever the thread
// count. Each thread takes a range of rows (row_bounds), counts its entries per bucket, and
// then stores them after the lower ranges' entries of each bucket. Every thread reads its
// rows of A twice, instead of every thread reading all of A as when each took a range of
// columns.
template <class Bucket, class Store>
void scatter_by_rows(const HostCsr& a, std::int64_t buckets, const std::vector<std::int64_t>& first, Bucket bucket,
                     Store store) {
  const std::vector<int> bounds = row_bounds(a, buckets);
  const std::size_t parts = bounds.size() - 1;
  // a part's counts, then its next slot in each bucket
  std::vector<std::vector<std::int64_t>> next = part_counts(a, bounds, buckets, bucket);
  core::host_parallel_ranges(buckets, std::int64_t(1) << 16, [&](const std::int64_t b0, const std::int64_t b1) {
    for (std::int64_t b = b0; b < b1; ++b) {
      std::int64_t slot = first[static_cast<std::size_t>(b)];
      for (std::size_t p = 0; p < parts; ++p) {
        const std::int64_t count = next[p][static_cast<std::size_t>(b)];
        next[p][static_cast<std::size_t>(b)] = slot;
        slot += count;
      }
    }
  });
  for_row_parts(bounds, [&](const std::size_t p) {
    std::vector<std::int64_t>& mine = next[p];
    for (int i = bounds[p]; i < bounds[p + 1]; ++i)
      for (int k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) store(mine[static_cast<std::size_t>(bucket(i, a.col_ind[k]))]++, i, k);
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
