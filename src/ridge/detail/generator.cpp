// The generated problem: A's rows drawn row by row from their own SplitMix64 streams, and b
// as normal numbers from one stream entered at any pair; the same numbers on any machine,
// thread count or block of rows.
#include "ridge/detail/generator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "core/host_threads.hpp"
#include "core/splitmix64.hpp"
#include "io/reserve_huge.hpp"

namespace trident::ridge {

namespace {

// The first state of stream `index` of a seed (a row of A, or b's).
std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t index) {
  core::SplitMix64 g{seed * 0xD1B54A32D192ED03ull + index};
  return g.next();
}

}  // namespace

std::int64_t generated_nonzeros(std::int64_t rows, std::int64_t columns, double density) {
  return static_cast<std::int64_t>(std::llround(density * double(rows) * double(columns)));
}

std::int64_t generated_offset(std::int64_t total, std::int64_t rows, std::int64_t i) {
  return static_cast<std::int64_t>(static_cast<unsigned __int128>(total) * static_cast<unsigned __int128>(i) /
                                   static_cast<unsigned __int128>(rows));
}

HostCsr generate_matrix(int rows, int columns, double density, std::uint64_t seed) {
  return generate_matrix_rows(rows, columns, density, seed, 0, rows);
}

HostCsr generate_matrix_rows(int rows, int columns, double density, std::uint64_t seed, std::int64_t first,
                             std::int64_t count) {
  const std::int64_t total = generated_nonzeros(rows, columns, density);
  const std::int64_t base = generated_offset(total, rows, first);
  const std::int64_t stored = generated_offset(total, rows, first + count) - base;
  if (stored > std::numeric_limits<int>::max())
    throw InputError("rows " + std::to_string(first + 1) + " to " + std::to_string(first + count) +
                     " of the generated matrix hold " + std::to_string(stored) +
                     " nonzeros, more than one rank can hold (2^31-1, 32-bit offsets); run on more ranks");
  HostCsr a;
  a.rows = static_cast<int>(count);
  a.columns = columns;
  a.row_ptr.resize(static_cast<std::size_t>(count) + 1);
  io::reserve_huge(a.col_ind, static_cast<std::size_t>(stored));
  io::reserve_huge(a.values, static_cast<std::size_t>(stored));
  a.col_ind.resize(static_cast<std::size_t>(stored));
  a.values.resize(static_cast<std::size_t>(stored));
  a.row_ptr[0] = 0;
  // Each row comes from its own stream, so the rows are made on every usable CPU, a range
  // of rows a thread, and the matrix is the same whatever the thread count.
  const std::size_t words = (static_cast<std::size_t>(columns) + 63) / 64;
  core::host_parallel_ranges(count, 256, [&](const std::int64_t row_begin, const std::int64_t row_end) {
    for (std::int64_t i = row_begin; i < row_end; ++i)
      a.row_ptr[static_cast<std::size_t>(i) + 1] = static_cast<int>(generated_offset(total, rows, first + i + 1) - base);
    // Floyd's sampling of k distinct columns per row, marked in a bitmap; the columns are
    // then read out in ascending order: from the bitmap when the row fills a fair part of
    // it, else by sorting the k columns drawn (a row of 100 among 200000 columns would
    // scan 3125 words). Both give the same columns in the same order, and each value is
    // drawn after the row's columns, in that order.
    std::vector<std::uint64_t> taken(words, 0);
    std::vector<int> drawn;
    auto test_and_set = [&](std::uint64_t c) {
      std::uint64_t& word = taken[c >> 6];
      const std::uint64_t bit = std::uint64_t(1) << (c & 63);
      const bool was = word & bit;
      word |= bit;
      return was;
    };
    for (std::int64_t i = row_begin; i < row_end; ++i) {
      core::SplitMix64 g{stream_seed(seed, static_cast<std::uint64_t>(first + i))};
      const int begin = static_cast<int>(generated_offset(total, rows, first + i) - base);
      const int k = a.row_ptr[static_cast<std::size_t>(i) + 1] - begin;
      const bool from_bitmap = static_cast<std::size_t>(k) * 16 >= words;
      drawn.clear();
      for (std::uint64_t j = static_cast<std::uint64_t>(columns - k); j < std::uint64_t(columns); ++j) {
        const std::uint64_t t = g.below(j + 1);
        const std::uint64_t c = test_and_set(t) ? j : t;
        if (c == j) test_and_set(j);
        if (!from_bitmap) drawn.push_back(static_cast<int>(c));
      }
      int slot = begin;
      if (from_bitmap) {
        for (std::size_t w = 0; w < words; ++w) {
          for (std::uint64_t word = taken[w]; word != 0; word &= word - 1) {
            a.col_ind[static_cast<std::size_t>(slot)] = static_cast<int>(w * 64 + __builtin_ctzll(word));
            a.values[static_cast<std::size_t>(slot)] = g.uniform();
            ++slot;
          }
          taken[w] = 0;
        }
      } else {
        std::sort(drawn.begin(), drawn.end());
        for (const int c : drawn) {
          a.col_ind[static_cast<std::size_t>(slot)] = c;
          a.values[static_cast<std::size_t>(slot)] = g.uniform();
          ++slot;
          taken[static_cast<std::size_t>(c) >> 6] = 0;
        }
      }
    }
  });
  return a;
}

std::vector<double> generate_rhs(std::size_t count, double mean, double std, std::uint64_t seed) {
  return generate_rhs_rows(0, static_cast<std::int64_t>(count), mean, std, seed);
}

std::vector<double> generate_rhs_rows(std::int64_t first, std::int64_t count, double mean, double std,
                                      std::uint64_t seed) {
  std::vector<double> b(static_cast<std::size_t>(count));
  const std::uint64_t stream = stream_seed(seed, 0xB0B);
  // Entries 2p and 2p + 1 come from draws 2p and 2p + 1; SplitMix64's state moves by a
  // constant per draw, so a stream skips to any pair in one step: the pairs holding
  // [first, first + count) are made on every usable CPU, a range of pairs a thread.
  const std::int64_t pair_begin = first / 2, pair_end = (first + count + 1) / 2;
  core::host_parallel_ranges(pair_end - pair_begin, std::int64_t(1) << 14, [&](const std::int64_t q0, const std::int64_t q1) {
    core::SplitMix64 g{stream + static_cast<std::uint64_t>(2 * (pair_begin + q0)) * core::kSplitMixGamma};
    for (std::int64_t i = 2 * (pair_begin + q0); i < 2 * (pair_begin + q1); i += 2) {
      // Box-Muller: two normals from two uniforms in (0, 1].
      const double u1 = 1.0 - g.uniform(), u2 = g.uniform();
      const double r = std::sqrt(-2.0 * std::log(u1)), angle = 6.283185307179586 * u2;
      if (i >= first) b[static_cast<std::size_t>(i - first)] = mean + std * r * std::cos(angle);
      if (i + 1 >= first && i + 1 < first + count)
        b[static_cast<std::size_t>(i + 1 - first)] = mean + std * r * std::sin(angle);
    }
  });
  return b;
}

}  // namespace trident::ridge
