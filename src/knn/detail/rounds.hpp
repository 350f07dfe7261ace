#pragma once
// The search of one rank's chunk in rounds, with a collective stop check between them:
// SIGUSR1/SIGTERM finish the round under way (a whole number of device batches), then
// every rank stops at the same check.
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <functional>
#include <type_traits>
#include <vector>

#include "knn/detail/checkpoint.hpp"
#include "knn/detail/search.hpp"

namespace trident::knn {

// Whether the search runs on a device of its own rather than on the host's cores: rounds are
// then sized without a measured rate, and knn.method: auto weighs the device's rates.
constexpr bool kOnDevice = !std::is_same<Kokkos::DefaultExecutionSpace, Kokkos::DefaultHostExecutionSpace>::value;

// Round sizes. The first round is a probe: `batch_size` rows when that is set, else on host
// back ends 2^26 pairs' worth of rows over `references` (the references a round is sized
// for: at most 2^15 through the index), between 256 and 65536 rows (its rate then sizes the
// next rounds, about a second each), and 4096 on device back ends (`on_device`). If it searched more than 1 % of its rows again, the rows left go in
// the order of their places. On device back ends the round after the probe is
// device_round_size's (when `batch_size` is not set), which needs no measured rate.
std::int64_t probe_round_size(std::int64_t batch_size, bool on_device, std::int64_t references);

// Of `rows_left` rows searched over `references` with k neighbours: up to 2^36 pairs, fewer
// past k = 64 (2^36 * 64 / k), at least 65536 rows; every row left when they are at most
// four times that. See rounds.cpp for why.
std::int64_t device_round_size(std::int64_t rows_left, std::int64_t references, int k);

// Rows of the largest round of a search in rounds of `rows` rows (the round after the
// probe, on device back ends), 0 where it cannot be told before the search (host back
// ends size their rounds by the measured rate; their allocations cost little anyway).
std::int64_t largest_round(std::int64_t rows, std::int64_t references, const SearchOptions& options);

// Searches the rows of `rows` that are not done (observations[i] is row i's unit vector),
// marking each finished row done. The rounds are sized as above; later rounds grow to about
// one second each, in whole batches. After every round all ranks take part in one
// MPI_Allreduce that agrees on a pending stop signal and on whether any rank has rows left,
// so every rank makes the same number of rounds. Returns the stop signal the ranks agreed
// on, or 0 once every rank's rows are done (a signal that arrives during the last round is
// not acted on). After a round that searched more than 1 % of its rows again, the rows left
// are searched in the order of their places (stats.reordered_rows). Collective. Stats are
// summed over rounds. `after_round`, when given, is called on every rank after each round,
// before that agreement, with the rows of `rows` done so far (it may be collective: the
// study sums them over ranks for its progress line).
int search_in_rounds(const Vec4<double>* observations, const std::vector<Vec4<double>>& references,
                     const SearchOptions& options, ChunkRows& rows, MPI_Comm comm, SearchProfile& stats,
                     const std::function<void(std::int64_t)>& after_round = {});

}  // namespace trident::knn
