#pragma once
// The /knn rows of the output, written while the search goes on. The datasets are created
// before the search; this rank's observations are written at once, and the rows of each
// round after it (rounds finish a rank's rows in order, so the rows written are those up to
// the first one not finished), on a thread of their own straight into the file
// (io::OutputFile::rows_address): a long search then ends with little left to write. Where
// the file cannot take rows that way (parallel HDF5, through MPI-IO), every row is written
// after the search, by write_slab.
#include <cstdint>
#include <exception>
#include <vector>

#include "core/uninitialized_vector.hpp"
#include "io/write_queue.hpp"
#include "io/output_file.hpp"
#include "knn/detail/result_rows.hpp"

namespace trident::knn {

// Describes /knn/observations (n x 2), /knn/latitude and /knn/longitude (n) for netCDF
// readers (io::OutputFile::describe), as OutputRows and the ragged rows of k: all write them.
void describe_observations(io::OutputFile& out);

// The columns of `count` (latitude, longitude) pairs, for /knn/latitude and /knn/longitude:
// split on the host's threads into huge pages (a fresh array's first touch, on one thread
// and in small pages, took longer than writing it).
struct CoordinateColumns {
  core::UninitializedVector<double> latitude, longitude;
};
CoordinateColumns coordinate_columns(const std::vector<double>& lat_lon, std::int64_t count);

class OutputRows {
 public:
  // Creates /knn/indices, /knn/distances (n x k), /knn/observations (n x 2), /knn/latitude
  // and /knn/longitude (n), describes them for netCDF readers (io::OutputFile::describe) and
  // starts writing this rank's `lat_lon` (count x 2, rows from `first`). `lat_lon` and the arrays
  // of `rows` (count x k; the vectors may be moved, not freed) must outlive finish().
  // Collective.
  OutputRows(io::OutputFile& out, std::int64_t n, int k, std::int64_t first, std::int64_t count,
             const std::vector<double>& lat_lon, const Neighbours& rows);
  OutputRows(const OutputRows&) = delete;
  OutputRows& operator=(const OutputRows&) = delete;

  // After a round: `done` (count, 1 for a finished row) says which rows are final. Queues the
  // finished rows after those already queued, up to the first row not finished. Local (no
  // MPI).
  void after_round(const std::vector<std::uint8_t>& done);

  // Waits for the writer, writes every row not written yet (finished or not), and makes a
  // failure on any rank one error on every rank. Collective.
  void finish();

  // Whether the rows go straight into the file while the search goes on (not parallel HDF5).
  bool straight() const { return at_observations_ >= 0; }
  // Seconds the writer's thread spent (after finish()), and the rows queued before finish().
  double background_seconds() const { return writer_.seconds(); }
  std::int64_t rows_written_early() const { return early_rows_; }

 private:
  void push_rows(std::int64_t from, std::int64_t to);  // queues rows [from, to) of indices and distances
  io::OutputFile& out_;
  std::int64_t first_, count_;
  int k_;
  const double* lat_lon_;
  CoordinateColumns columns_;  // lat_lon_'s
  const NeighbourIndex* indices_;
  const double* distances_;
  // byte addresses, -1: write_slab
  std::int64_t at_indices_ = -1, at_distances_ = -1, at_observations_ = -1, at_latitude_ = -1, at_longitude_ = -1;
  std::int64_t written_ = 0;      // this rank's rows of /knn/indices and /knn/distances queued
  std::int64_t early_rows_ = 0;   // of them, before finish()
  io::WriteQueue writer_;         // last: joined before the rest goes
};

}  // namespace trident::knn
