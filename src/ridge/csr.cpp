#include "ridge/csr.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/error.hpp"
#include "io/huge_pages.hpp"

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

std::vector<int> column_bounds(const int columns, const std::int64_t nonzeros,
                               const std::vector<std::int64_t>& entries_per_column, const int parts) {
  constexpr std::int64_t kLeastEntriesPerPart = std::int64_t(1) << 15;
  const int n = static_cast<int>(std::clamp<std::int64_t>(nonzeros / kLeastEntriesPerPart, 1,
                                                          std::min<std::int64_t>(parts, std::max(1, columns))));
  std::vector<int> bounds(static_cast<std::size_t>(n) + 1, columns);
  bounds[0] = 0;
  if (entries_per_column.empty()) {
    for (int p = 1; p < n; ++p) bounds[p] = static_cast<int>(std::int64_t(columns) * p / n);
    return bounds;
  }
  // the first column at which the running count reaches each share
  std::int64_t seen = 0;
  int p = 1;
  for (int c = 0; c < columns && p < n; ++c) {
    seen += entries_per_column[static_cast<std::size_t>(c)];
    while (p < n && seen * n >= nonzeros * p) bounds[p++] = c + 1;
  }
  return bounds;
}

std::vector<std::int64_t> column_entries(const HostCsr& a) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(a.columns), 0);
  for_entries_by_columns(a, {}, [&counts](int, int, int c) { ++counts[static_cast<std::size_t>(c)]; });
  return counts;
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
  std::vector<int> next(t.row_ptr.begin(), t.row_ptr.end() - 1);
  // Rows of A in ascending order make the columns of each row of A^T ascending.
  for_entries_by_columns(a, lengths, [&](const int i, const int k, const int c) {
    const int slot = next[static_cast<std::size_t>(c)]++;
    t.col_ind[slot] = i;
    t.values[slot] = a.values[k];
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
