#include "diffusion/detail/exact_select.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"

namespace trident::diffusion {

double from_order_key(std::uint64_t key) {
  const std::uint64_t bits = (key >> 63) ? key & 0x7FFFFFFFFFFFFFFFull : ~key;
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

namespace {

constexpr int kDigitBits = 11;  // 2048 counters: 8 KiB of a team's scratch memory
constexpr std::int64_t kKeysPerTeam = 1 << 16;

using Counts = Kokkos::View<unsigned long long*>;

// Counts of the keys whose bits above `high` equal `prefix`, by their `width` bits below
// `high`. Each team counts its share in scratch memory first: the first pass sees few
// distinct digits (the values' signs and exponents), which would serialise global atomics.
void count_digits(const Kokkos::View<const std::uint64_t*>& keys, int high, int width, std::uint64_t prefix,
                  const Counts& counts) {
  using Policy = Kokkos::TeamPolicy<>;
  using Member = Policy::member_type;
  using Scratch = Kokkos::View<unsigned*, Kokkos::DefaultExecutionSpace::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const std::int64_t n = static_cast<std::int64_t>(keys.extent(0));
  const int bins = 1 << width, shift = high - width;
  const std::uint64_t mask = (std::uint64_t(1) << width) - 1;
  Kokkos::deep_copy(counts, 0ull);
  if (n == 0) return;
  const int league = static_cast<int>((n + kKeysPerTeam - 1) / kKeysPerTeam);
  Policy policy(league, Kokkos::AUTO);
  policy.set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size(bins)));
  Kokkos::parallel_for(
      "trident::diffusion::start::count_digits", policy, KOKKOS_LAMBDA(const Member& team) {
        Scratch local(team.team_scratch(0), bins);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, bins), [&](const int b) { local(b) = 0; });
        team.team_barrier();
        const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * kKeysPerTeam;
        const std::int64_t last = first + kKeysPerTeam < n ? first + kKeysPerTeam : n;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](const std::int64_t k) {
          const std::uint64_t key = keys(k);
          // high == 64: no bits above, every key takes part (a shift by 64 is undefined)
          if (high == 64 || (key >> high) == prefix) Kokkos::atomic_increment(&local((key >> shift) & mask));
        });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, bins), [&](const int b) {
          if (local(b) != 0) Kokkos::atomic_add(&counts(b), static_cast<unsigned long long>(local(b)));
        });
      });
}

}  // namespace

std::uint64_t select_key(MPI_Comm comm, const Kokkos::View<const std::uint64_t*>& keys, std::int64_t k) {
  Counts counts("trident::diffusion::start::digit_counts", std::size_t(1) << kDigitBits);
  auto counts_host = Kokkos::create_mirror_view(counts);
  std::vector<unsigned long long> total(std::size_t(1) << kDigitBits);
  std::uint64_t prefix = 0;
  auto remaining = static_cast<unsigned long long>(k);
  for (int high = 64; high > 0;) {
    const int width = high < kDigitBits ? high : kDigitBits;
    count_digits(keys, high, width, prefix, counts);
    Kokkos::deep_copy(counts_host, counts);
    const int bins = 1 << width;
    std::copy(counts_host.data(), counts_host.data() + bins, total.begin());
    mpi::sum_over_ranks(comm, total.data(), bins);
    int digit = 0;
    while (digit < bins && remaining >= total[digit]) remaining -= total[digit++];
    if (digit == bins) throw RunError("diffusion: selecting a percentile: rank beyond the values' count");
    prefix = (prefix << width) | static_cast<std::uint64_t>(digit);
    high -= width;
  }
  return prefix;
}

}  // namespace trident::diffusion
