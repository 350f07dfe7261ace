#pragma once
// The knn study's driver: runs it on every rank and writes /knn into the output file.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/run_context.hpp"
#include "knn/settings.hpp"
#include "knn/point_ids.hpp"
#include "knn/search.hpp"

namespace trident::knn {

// One rank's share of the study: its contiguous chunk of observations and their neighbours.
struct ChunkResult {
  std::int64_t n_observations = 0, n_references = 0;
  std::int64_t first = 0, count = 0;  // this rank's observations
  std::vector<double> lat_lon;        // count x 2, degrees
  Neighbours neighbours;              // count x k
  SearchProfile stats;
  std::string method = "brute";  // the search knn.method took: brute or index
  double index_build_seconds = 0.0;  // this rank's build of the index (part of stats.search_seconds)
  std::int64_t rows_done_before = 0;  // every rank's rows done before this run's search (a restart)
};

// The point sets as read and checked: every reference, and this rank's observations.
struct KnnInputs {
  std::int64_t n_observations = 0, n_references = 0;
  std::int64_t first = 0, count = 0;  // this rank's observations
  std::vector<double> lat_lon;        // count x 2, degrees
  std::vector<Vec4<double>> references;
  // the names the deck's point sources give (kind none without): every reference's, and
  // this rank's observations'
  PointIds reference_ids, observation_ids;
};

// Counts the point sets, checks k and the host memory the search holds (naming
// `host_name`), then reads and validates the points and their ids (settle_ids). Collective:
// every rank fails together with the lowest failing rank's message.
KnnInputs read_inputs(const deck::KnnSettings& settings, MPI_Comm comm, const std::string& host_name);

// Searches this rank's chunk of observations, with the TRIDENT_KNN_* `overrides`. Collective.
ChunkResult search_chunk(const deck::KnnSettings& settings, KnnInputs&& inputs, MPI_Comm comm,
                         const core::Overrides& overrides = core::Overrides{});

// read_inputs then search_chunk.
ChunkResult compute_chunk(const deck::KnnSettings& settings, MPI_Comm comm);

// Reads and checks the points (and, with context.restart_path, the checkpoint's finished
// rows) before the output exists; run() searches and writes /knn. A stop signal ends the
// search after the round under way with a checkpoint at `checkpoint_path`, the rows so
// far in the output and StudyStopped (exit 75).
std::unique_ptr<PreparedStudy> prepare_study(const deck::KnnSettings& settings, RunContext& context,
                                             const std::string& checkpoint_path);

// prepare_study(...)->run(output) with the checkpoint beside the output: for tests and
// callers with one study.
void run_study(const deck::KnnSettings& settings, RunContext& context, io::OutputFile& output);

}  // namespace trident::knn
