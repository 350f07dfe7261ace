#pragma once
// Lists of observation rows (0-based within a rank's chunk): the rows a search or a round
// has left to do, and the rows a pass could not prove. A whole chunk's list is as long as
// its observations (2^24 rows: 134 MB), so it is made without std::vector's serial
// value-initialization, and the list of every row is filled on every usable CPU.
#include <cstdint>

#include "core/host_threads.hpp"
#include "core/uninitialized_vector.hpp"

namespace trident::knn {

using RowList = core::UninitializedVector<std::int64_t>;

// 0, 1, ..., n - 1.
inline RowList all_rows(std::int64_t n) {
  RowList rows(static_cast<std::size_t>(n > 0 ? n : 0));
  std::int64_t* const row = rows.data();
  core::host_parallel_ranges(n, std::int64_t(1) << 18, [row](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) row[i] = i;
  });
  return rows;
}

// The rows a pass searches: all of 0, 1, ..., count - 1 without a list (a search's first
// pass over a contiguous chunk), or the rows of a list (the rows a pass could not prove);
// or a slice of either (a round's rows).
class RowSelection {
 public:
  static RowSelection all(std::int64_t count) { return RowSelection(nullptr, count); }
  explicit RowSelection(const RowList& rows) : RowSelection(rows.data(), static_cast<std::int64_t>(rows.size())) {}

  std::int64_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  std::int64_t operator[](std::int64_t i) const { return list_ != nullptr ? list_[i] : first_ + i; }
  // Whether the rows are r, r + 1, ..., r + size() - 1 (not empty): for an ascending
  // selection, whether its ends are size() - 1 apart.
  bool consecutive() const { return count_ > 0 && (*this)[count_ - 1] - (*this)[0] == count_ - 1; }
  // The `count` rows list[0 .. count - 1].
  static RowSelection of(const std::int64_t* list, std::int64_t count) { return RowSelection(list, count); }
  // Rows [from, from + count) of this selection (as long as it holds them).
  RowSelection slice(std::int64_t from, std::int64_t count) const {
    RowSelection s(list_ != nullptr ? list_ + from : nullptr, count);
    s.first_ = list_ != nullptr ? 0 : first_ + from;
    return s;
  }

 private:
  RowSelection(const std::int64_t* list, std::int64_t count) : list_(list), count_(count > 0 ? count : 0) {}
  const std::int64_t* list_;
  std::int64_t count_;
  std::int64_t first_ = 0;  // the first row without a list
};

}  // namespace trident::knn
