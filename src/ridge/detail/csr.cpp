// Host CSR matrices: assembly from triplets, the transpose, the row ranges of the parallel
// passes over A, and the structure and value checks of whole matrices and blocks of rows.
#include "ridge/detail/csr.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/error.hpp"
#include "io/reserve_huge.hpp"

namespace trident::ridge {

// A counting sort by row (stable: each row keeps the input order), then each row that is
// not already in ascending column order is sorted stably by column, so duplicates meet
// in input order and add in that order. Linear in the entries for the usual files (rows
// sorted, or nearly), where a sort of all the entries took most of a reader's time.
HostCsr csr_from_triplets(int rows, int columns, std::vector<Triplet> entries) {
  HostCsr out;
  out.rows = rows;
  out.columns = columns;
  out.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (const Triplet& t : entries) ++out.row_ptr[static_cast<std::size_t>(t.row) + 1];
  for (int i = 0; i < rows; ++i) out.row_ptr[i + 1] += out.row_ptr[i];
  io::reserve_huge(out.col_ind, entries.size());
  io::reserve_huge(out.values, entries.size());
  out.col_ind.resize(entries.size());
  out.values.resize(entries.size());
  {
    std::vector<int> next(out.row_ptr.begin(), out.row_ptr.end() - 1);
    for (const Triplet& t : entries) {
      const int slot = next[static_cast<std::size_t>(t.row)]++;
      out.col_ind[slot] = t.column;
      out.values[slot] = t.value;
    }
  }
  std::vector<Triplet>().swap(entries);  // free the input before the rows are compacted

  std::vector<std::pair<int, double>> row;  // scratch for a row that needs sorting
  int kept = 0;                              // entries kept so far (duplicates merged)
  for (int i = 0; i < rows; ++i) {
    const int begin = out.row_ptr[i], end = out.row_ptr[i + 1];
    bool ascending = true;
    for (int k = begin + 1; k < end && ascending; ++k) ascending = out.col_ind[k - 1] < out.col_ind[k];
    out.row_ptr[i] = kept;
    if (ascending) {
      for (int k = begin; k < end; ++k, ++kept) {
        out.col_ind[kept] = out.col_ind[k];
        out.values[kept] = out.values[k];
      }
      continue;
    }
    row.clear();
    for (int k = begin; k < end; ++k) row.emplace_back(out.col_ind[k], out.values[k]);
    std::stable_sort(row.begin(), row.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t k = 0; k < row.size(); ++k) {
      if (k > 0 && row[k].first == row[k - 1].first) {
        out.values[kept - 1] += row[k].second;  // a duplicate entry adds to the stored one
        continue;
      }
      out.col_ind[kept] = row[k].first;
      out.values[kept] = row[k].second;
      ++kept;
    }
  }
  out.row_ptr[rows] = kept;
  out.col_ind.resize(static_cast<std::size_t>(kept));
  out.values.resize(static_cast<std::size_t>(kept));
  return out;
}

std::vector<int> row_bounds(const HostCsr& a, const std::int64_t buckets) {
  constexpr std::int64_t kLeastEntriesPerPart = std::int64_t(1) << 15;
  constexpr std::int64_t kCounterBytes = std::int64_t(256) << 20;
  const std::int64_t nonzeros = a.nonzeros();
  const std::int64_t most = std::min<std::int64_t>(
      {core::host_threads(), nonzeros / kLeastEntriesPerPart,
       kCounterBytes / static_cast<std::int64_t>(sizeof(std::int64_t)) / std::max<std::int64_t>(1, buckets),
       std::max(1, a.rows)});
  const int parts = static_cast<int>(std::max<std::int64_t>(1, most));
  std::vector<int> bounds(static_cast<std::size_t>(parts) + 1, a.rows);
  bounds[0] = 0;
  // the first row whose offset reaches each share of the entries
  for (int p = 1; p < parts; ++p) {
    const std::int64_t share = (nonzeros * p + parts - 1) / parts;
    bounds[p] = static_cast<int>(std::lower_bound(a.row_ptr.begin(), a.row_ptr.end() - 1, share) - a.row_ptr.begin());
    bounds[p] = std::max(bounds[p], bounds[p - 1]);
  }
  return bounds;
}

std::vector<std::int64_t> column_entries(const HostCsr& a) {
  return count_by_rows(a, a.columns, [](int, const int c) { return c; });
}

HostCsr transpose(const HostCsr& a) {
  HostCsr t;
  t.rows = a.columns;
  t.columns = a.rows;
  const std::vector<std::int64_t> lengths = column_entries(a);
  t.row_ptr.assign(static_cast<std::size_t>(a.columns) + 1, 0);
  for (int j = 0; j < a.columns; ++j) t.row_ptr[j + 1] = t.row_ptr[j] + static_cast<int>(lengths[j]);
  t.col_ind.resize(a.col_ind.size());
  t.values.resize(a.values.size());
  // Rows of A in ascending order make the columns of each row of A^T ascending.
  const std::vector<std::int64_t> first(t.row_ptr.begin(), t.row_ptr.end() - 1);
  scatter_by_rows(a, a.columns, first, [](int, const int c) { return c; },
                  [&](const std::int64_t slot, const int i, const int k) {
                    t.col_ind[static_cast<std::size_t>(slot)] = i;
                    t.values[static_cast<std::size_t>(slot)] = a.values[static_cast<std::size_t>(k)];
                  });
  return t;
}

namespace {

// Rows [begin, end) of a.
void check_rows(const HostCsr& a, const std::string& source, const std::int64_t first_row, const int begin,
                const int end) {
  for (int i = begin; i < end; ++i) {
    if (a.row_ptr[i + 1] < a.row_ptr[i])
      throw InputError(source + ": row offsets decrease at row " + std::to_string(first_row + i + 1));
    for (int k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (a.col_ind[k] < 0 || a.col_ind[k] >= a.columns)
        throw InputError(source + ": row " + std::to_string(first_row + i + 1) + " has column index " +
                         std::to_string(a.col_ind[k]) + " outside 0.." +
                         std::to_string(a.columns - 1) + " (0-based)");
      if (!std::isfinite(a.values[k]))
        throw InputError(source + ": row " + std::to_string(first_row + i + 1) + ", column " +
                         std::to_string(a.col_ind[k]) + " holds a non-finite value (" +
                         std::to_string(a.values[k]) + ")");
    }
  }
}

}  // namespace

void validate(const HostCsr& a, const std::string& source) {
  if (a.rows < 1 || a.columns < 1)
    throw InputError(source + ": expected a matrix of at least 1 row and 1 column, got " +
                     std::to_string(a.rows) + " x " + std::to_string(a.columns));
  validate_rows(a, source, 0);
}

void validate_rows(const HostCsr& a, const std::string& source, std::int64_t first_row) {
  if (a.row_ptr.size() != static_cast<std::size_t>(a.rows) + 1)
    throw InputError(source + ": expected " + std::to_string(a.rows + 1) +
                     " row offsets (rows + 1), got " + std::to_string(a.row_ptr.size()));
  if (a.col_ind.size() != a.values.size())
    throw InputError(source + ": expected as many column indices as values, got " +
                     std::to_string(a.col_ind.size()) + " and " + std::to_string(a.values.size()));
  if (a.row_ptr.front() != 0 || a.row_ptr.back() != static_cast<int>(a.col_ind.size()))
    throw InputError(source + ": expected row offsets from 0 to " + std::to_string(a.col_ind.size()) +
                     " (the number of values), got " + std::to_string(a.row_ptr.front()) + " to " +
                     std::to_string(a.row_ptr.back()));
  // Rows checked in turn, each row's offsets before its entries; with offsets that never
  // decrease (so all lie in the arrays) by ranges of rows on the host's CPUs: the range
  // with the lowest rows reports first, so the error is the one loop's (at 2^27 entries
  // the loop took a few tenths of a second).
  bool ascending = true;
  for (int i = 0; i < a.rows && ascending; ++i) ascending = a.row_ptr[i + 1] >= a.row_ptr[i];
  core::host_parallel_ranges(a.rows, ascending ? std::int64_t(1) << 12 : a.rows + std::int64_t(1),
                             [&](const std::int64_t begin, const std::int64_t end) {
                               check_rows(a, source, first_row, static_cast<int>(begin), static_cast<int>(end));
                             });
}

std::int64_t product_bytes(const HostCsr& a, std::size_t scalar_bytes) {
  return a.nonzeros() * static_cast<std::int64_t>(scalar_bytes + sizeof(int)) +
         static_cast<std::int64_t>(a.row_ptr.size() * sizeof(int));
}

}  // namespace trident::ridge
