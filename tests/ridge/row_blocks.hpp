#pragma once
// What the row-split ridge tests share: a rank's block of a whole problem's rows, and the
// relative difference they compare with.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "ridge/detail/problem.hpp"

namespace trident::ridge::test {

// Rows [first, first + count) of a whole problem, as a rank holds them.
inline Problem block_of(const Problem& whole, std::int64_t first, std::int64_t count) {
  Problem p;
  p.a.rows = static_cast<int>(count);
  p.a.columns = whole.a.columns;
  const int begin = whole.a.row_ptr[first], end = whole.a.row_ptr[first + count];
  for (std::int64_t i = 0; i <= count; ++i) p.a.row_ptr.push_back(whole.a.row_ptr[first + i] - begin);
  p.a.col_ind.assign(whole.a.col_ind.begin() + begin, whole.a.col_ind.begin() + end);
  p.a.values.assign(whole.a.values.begin() + begin, whole.a.values.begin() + end);
  p.b.assign(whole.b.begin() + first, whole.b.begin() + first + count);
  p.first_row = first;
  p.total_rows = whole.a.rows;
  p.total_nonzeros = whole.a.nonzeros();
  return p;
}

// |a - b| / |b|.
inline double relative(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

}  // namespace trident::ridge::test
