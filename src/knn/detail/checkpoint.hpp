#pragma once
// kNN checkpoints: which observations are finished and their neighbour rows. One HDF5
// file (written to FILE.partial and renamed), indexed by observation, so a restart may
// use any rank count: each rank reads the mask and rows of its own chunk.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "knn/settings.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "knn/detail/result_rows.hpp"

namespace trident::knn {

// This rank's chunk of the result: rows first .. first+count-1 of every observation, and
// which of them are finished (1) or still to search (0).
struct ChunkRows {
  std::int64_t first = 0, count = 0;
  std::vector<std::uint8_t> done;  // count
  Neighbours neighbours;           // count x k; rows not done hold index -1, distance 0
};

// Writes /knn/done (observations, uint8), /knn/indices and /knn/distances (observations x
// k) and the attributes a restart checks. Collective.
void write_checkpoint(MPI_Comm comm, const std::string& path, const KnnSettings& settings,
                      std::int64_t n_observations, std::int64_t n_references, const ChunkRows& rows);
// The same with the rows as the output gets them (`neighbours`, count x k) where they are
// not the search's (knn.exclude_self searches k + 1).
void write_checkpoint(MPI_Comm comm, const std::string& path, const KnnSettings& settings,
                      std::int64_t n_observations, std::int64_t n_references, const ChunkRows& rows,
                      const Neighbours& neighbours);

// The point files' SHA-256 (observations, references; "" for generated points), read on
// rank 0 and given to every rank: a checkpoint keeps them, a restart compares. Collective.
std::vector<std::string> point_file_digests(MPI_Comm comm, const KnnSettings& settings);

// This rank's rows from a checkpoint, after checking that it was written for this deck
// (k, precision, radius, the point sets, their sizes and their files' `digests` from
// point_file_digests). Throws InputError naming the file and the deck key that differs.
ChunkRows read_checkpoint(const std::string& path, const KnnSettings& settings,
                          std::int64_t n_observations, std::int64_t n_references, std::int64_t first,
                          std::int64_t count, const std::vector<std::string>& digests);

// The attributes a restart checks (the settings, the point sets and their files' digests),
// shared by the ragged checkpoints of k: all (within_checkpoint.hpp). Collective.
void write_checkpoint_settings(io::OutputFile& file, MPI_Comm comm, const KnnSettings& settings,
                               std::int64_t n_observations, std::int64_t n_references);

// Throws InputError naming `path` and the deck key whose value differs from the one the
// checkpoint `file` was written with.
void check_checkpoint_settings(const io::InputFile& file, const std::string& path, const KnnSettings& settings,
                               std::int64_t n_observations, std::int64_t n_references,
                               const std::vector<std::string>& digests);

}  // namespace trident::knn
