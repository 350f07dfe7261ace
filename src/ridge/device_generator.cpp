#include "ridge/device_generator.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "core/host_threads.hpp"
#include "core/page_lock.hpp"
#include "io/huge_pages.hpp"
#include "ridge/generator.hpp"

namespace trident::ridge {

namespace {

KOKKOS_INLINE_FUNCTION int set_bits(const std::uint64_t word) {
#if defined(__CUDA_ARCH__)
  return __popcll(word);
#else
  return __builtin_popcountll(word);
#endif
}

KOKKOS_INLINE_FUNCTION int lowest_bit(const std::uint64_t word) {
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(word)) - 1;
#else
  return __builtin_ctzll(word);
#endif
}

// Draw d (from 1) of the stream whose state is `state`, as a uniform value in [0, 1).
KOKKOS_INLINE_FUNCTION double uniform_draw(const std::uint64_t state, const std::uint64_t d) {
  return static_cast<double>(core::splitmix_mix(state + d * core::kSplitMixGamma) >> 11) * 0x1.0p-53;
}

struct GenerateRows {
  using Policy = Kokkos::TeamPolicy<RidgeExec>;
  using Member = Policy::member_type;
  Kokkos::View<const int*, RidgeDevice> row_ptr;
  Kokkos::View<int*, RidgeDevice> col_ind;
  Kokkos::View<double*, RidgeDevice> values;
  std::uint64_t seed;
  std::int64_t first;
  int columns, words, level;

  KOKKOS_INLINE_FUNCTION void store(const int slot, const int column, const std::uint64_t state, const int k,
                                    const int t) const {
    col_ind(slot) = column;
    values(slot) = uniform_draw(state, static_cast<std::uint64_t>(k + t + 1));
  }

  // Floyd's sampling of k distinct columns, as generate_matrix_rows draws them: draw j of
  // the row's stream picks t below j + 1 (j from columns - k), and the column is t unless
  // t was picked already, then j. `picked(c)` tests and notes column c.
  template <class Picked>
  KOKKOS_INLINE_FUNCTION void draw_columns(const std::uint64_t state, const int k, Picked picked) const {
    std::uint64_t s = state;
    for (std::uint64_t j = static_cast<std::uint64_t>(columns - k); j < static_cast<std::uint64_t>(columns); ++j) {
      s += core::kSplitMixGamma;
      const std::uint64_t t = core::splitmix_mix(s) % (j + 1);
      if (picked(t)) picked(j);
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int i = team.league_rank();
    const int begin = row_ptr(i), k = row_ptr(i + 1) - begin;
    if (k == 0) return;
    const std::uint64_t state = stream_seed(seed, static_cast<std::uint64_t>(first + i));
    if (std::size_t(k) * 16 >= std::size_t(words)) {  // the host's choice: a bitmap of the columns
      auto* taken = static_cast<std::uint64_t*>(team.team_scratch(level).get_shmem(sizeof(std::uint64_t) * words));
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, words), [&](const int w) { taken[w] = 0; });
      team.team_barrier();
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        draw_columns(state, k, [&](const std::uint64_t c) {
          const std::uint64_t bit = std::uint64_t(1) << (c & 63);
          const bool was = taken[c >> 6] & bit;
          taken[c >> 6] |= bit;
          return was;
        });
      });
      team.team_barrier();
      // the set columns in ascending order: each word's place from the bits before it
      Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, words), [&](const int w, int& before, const bool last) {
        const std::uint64_t word = taken[w];
        if (last) {
          int t = before;
          for (std::uint64_t x = word; x != 0; x &= x - 1, ++t) store(begin + t, w * 64 + lowest_bit(x), state, k, t);
        }
        before += set_bits(word);
      });
    } else {  // a list of the columns picked
      int* list = static_cast<int*>(team.team_scratch(level).get_shmem(sizeof(int) * k));
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        int n = 0;
        draw_columns(state, k, [&](const std::uint64_t c) {
          for (int y = 0; y < n; ++y)
            if (list[y] == static_cast<int>(c)) return true;
          list[n++] = static_cast<int>(c);
          return false;
        });
      });
      team.team_barrier();
      // each column's place among the row's (they are distinct)
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, k), [&](const int x) {
        const int c = list[x];
        int t = 0;
        for (int y = 0; y < k; ++y) t += list[y] < c;
        store(begin + t, c, state, k, t);
      });
    }
  }
};

template <class T>
void download(const Kokkos::View<T*, RidgeDevice>& from, core::UninitializedVector<T>& to) {
  io::reserve_huge(to, from.extent(0));
  to.resize(from.extent(0));
  const core::PageLock lock(to.data(), to.size() * sizeof(T));
  Kokkos::deep_copy(Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(to.data(), to.size()), from);
}

}  // namespace

std::shared_ptr<DeviceEntries> generate_rows_on_device(const int rows, const int columns, const double density,
                                                       const std::uint64_t seed, const std::int64_t first,
                                                       const std::int64_t count, HostCsr& host) {
  const std::int64_t total = generated_nonzeros(rows, columns, density);
  const std::int64_t base = generated_offset(total, rows, first);
  const std::int64_t stored = generated_offset(total, rows, first + count) - base;
  if (stored > std::numeric_limits<int>::max())
    throw InputError("rows " + std::to_string(first + 1) + " to " + std::to_string(first + count) +
                     " of the generated matrix hold " + std::to_string(stored) +
                     " nonzeros, more than one rank can hold (2^31-1, 32-bit offsets); run on more ranks");
  host = HostCsr();
  host.rows = static_cast<int>(count);
  host.columns = columns;
  host.row_ptr.resize(static_cast<std::size_t>(count) + 1);
  host.row_ptr[0] = 0;
  core::host_parallel_ranges(count, 1 << 14, [&](const std::int64_t r0, const std::int64_t r1) {
    for (std::int64_t i = r0; i < r1; ++i)
      host.row_ptr[static_cast<std::size_t>(i) + 1] = static_cast<int>(generated_offset(total, rows, first + i + 1) - base);
  });
  Kokkos::View<int*, RidgeDevice> row_ptr(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::entries_row_ptr"),
                                          host.row_ptr.size());
  Kokkos::deep_copy(row_ptr, Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                 host.row_ptr.data(), host.row_ptr.size()));
  GenerateRows g;
  g.row_ptr = row_ptr;
  g.col_ind = Kokkos::View<int*, RidgeDevice>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::entries_col_ind"),
                                              static_cast<std::size_t>(stored));
  g.values = Kokkos::View<double*, RidgeDevice>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::ridge::entries_values"), static_cast<std::size_t>(stored));
  g.seed = seed;
  g.first = first;
  g.columns = columns;
  g.words = (columns + 63) / 64;
  const std::int64_t most = (total + rows - 1) / rows;  // entries of the longest row
  const std::size_t scratch =
      std::max(sizeof(std::uint64_t) * static_cast<std::size_t>(g.words), sizeof(int) * static_cast<std::size_t>(most + 1));
  g.level = scratch <= (std::size_t(32) << 10) ? 0 : 1;  // past it, in device memory
  const int team = Kokkos::SpaceAccessibility<Kokkos::HostSpace, RidgeDevice::memory_space>::accessible ? 1 : 32;
  if (count > 0)
    Kokkos::parallel_for("trident::ridge::generate_rows",
                         GenerateRows::Policy(static_cast<int>(count), team)
                             .set_scratch_size(g.level, Kokkos::PerTeam(static_cast<int>(scratch))),
                         g);
  download(g.col_ind, host.col_ind);
  download(g.values, host.values);
  return std::make_shared<DeviceEntries>(row_ptr, g.col_ind, g.values, columns);
}

}  // namespace trident::ridge
