#pragma once
// The search of one rank's chunk in rounds, with a collective stop check between them:
// SIGUSR1/SIGTERM finish the round under way (a whole number of device batches), then
// every rank stops at the same check.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "knn/checkpoint.hpp"
#include "knn/search.hpp"

namespace trident::knn {

// Searches the rows of `rows` that are not done (observations[i] is row i's unit vector),
// marking each finished row done. The first round is first_round_size's; later rounds grow to about two seconds each, in whole
// batches. After every round all ranks take part in one MPI_Allreduce that agrees on a
// pending stop signal and on whether any rank has rows left, so every rank makes the
// same number of rounds. Returns the stop signal the ranks agreed on, or 0 once every
// rank's rows are done (a signal that arrives during the last round is not acted on).
// After a round that searched more than 1 % of its rows again, the rows left are searched
// in the order of their places (stats.reordered_rows). Collective. Stats are summed over
// rounds.
// The first round's observations out of `rows_left` (of a search over `references`):
// `batch_size` when it is set; else on host back ends kFirstRound (65536), whose rate sizes
// the later rounds and whose share searched again can order the rest by place early; on
// device back ends (`on_device`) up to 2^36 pairs, fewer past k = 64 (2^36 * 64 / k), and
// every row left when they are at most four times that. See rounds.cpp for why.
std::int64_t first_round_size(std::int64_t rows_left, std::int64_t references, int k, std::int64_t batch_size,
                              bool on_device);

int search_in_rounds(const Vec4<double>* observations, const std::vector<Vec4<double>>& references,
                     const SearchOptions& options, ChunkRows& rows, MPI_Comm comm, SearchStats& stats);

}  // namespace trident::knn
