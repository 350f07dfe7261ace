#include "knn/detail/id_output.hpp"

#include <algorithm>
#include <exception>
#include <string>

#include "core/comm.hpp"

namespace trident::knn {

namespace {

constexpr const char* kReferenceIds = "/knn/reference_ids";
constexpr const char* kObservationIds = "/knn/observation_ids";
constexpr int kIdTag = 7411;
constexpr std::int64_t kPieceEntries = std::int64_t{1} << 22;  // a piece's neighbours: 16 MiB of int32 + pointers
const char* const kEmptyText = "";

// Where a rank's reference ids go: rows of `k` (k nearest: /knn/reference_ids is n x k) or,
// `flat`, entries of a 1-D dataset of n (the ragged rows of k: all, beside /knn/indices).
struct IdCells {
  std::int64_t n = 0, first = 0, count = 0;
  int k = 1;
  bool flat = false;
  const NeighbourIndex* indices = nullptr;
  const std::vector<std::uint8_t>* done = nullptr;  // per row (rows form only)
  std::vector<std::uint64_t> dims() const {
    return flat ? std::vector<std::uint64_t>{static_cast<std::uint64_t>(n)}
                : std::vector<std::uint64_t>{static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(k)};
  }
  std::vector<std::uint64_t> start(std::int64_t row) const {
    return flat ? std::vector<std::uint64_t>{static_cast<std::uint64_t>(row)}
                : std::vector<std::uint64_t>{static_cast<std::uint64_t>(row), 0};
  }
  std::vector<std::uint64_t> size(std::int64_t rows) const {
    return flat ? std::vector<std::uint64_t>{static_cast<std::uint64_t>(rows)}
                : std::vector<std::uint64_t>{static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(k)};
  }
};

// Rows [from, from + rows) of this rank's indices, an unfinished row's as -1.
void finished_indices(const IdCells& r, std::int64_t from, std::int64_t rows, std::vector<NeighbourIndex>& out) {
  const auto k = static_cast<std::size_t>(r.k);
  out.assign(r.indices + static_cast<std::size_t>(from) * k, r.indices + static_cast<std::size_t>(from + rows) * k);
  if (r.done == nullptr) return;
  for (std::int64_t i = 0; i < rows; ++i)
    if ((*r.done)[static_cast<std::size_t>(from + i)] == 0)
      std::fill(out.begin() + static_cast<std::ptrdiff_t>(i * r.k), out.begin() + static_cast<std::ptrdiff_t>((i + 1) * r.k), -1);
}

void write_integer_reference_ids(io::OutputFile& out, const PointIds& references, const IdCells& r, MPI_Comm comm) {
  const std::int64_t piece_rows = std::max<std::int64_t>(1, kPieceEntries / r.k);
  // every rank makes as many write_slab calls (collective) as the rank with the most pieces
  const auto pieces = static_cast<std::int64_t>(
      mpi::max_over_ranks(comm, static_cast<double>((r.count + piece_rows - 1) / piece_rows)));
  out.create_dataset<std::int64_t>(kReferenceIds, r.dims());
  const std::vector<std::int64_t>& ids = references.integers();
  std::vector<NeighbourIndex> indices;
  std::vector<std::int64_t> values;
  for (std::int64_t p = 0; p < pieces; ++p) {
    const std::int64_t from = std::min(p * piece_rows, r.count), rows = std::min(piece_rows, r.count - from);
    finished_indices(r, from, rows, indices);
    values.resize(indices.size());
    for (std::size_t i = 0; i < indices.size(); ++i)
      values[i] = indices[i] >= 0 ? ids[static_cast<std::size_t>(indices[i])] : kIntegerIdFill;
    out.write_slab(kReferenceIds, r.start(r.first + from), r.size(rows), values.data());
  }
}

// Rank 0 writes every rank's rows: its own, then each other rank's pieces of indices as they
// come. After a failed write it still receives every piece, so that no sender waits forever.
void write_text_reference_ids(io::OutputFile& out, const PointIds& references, const IdCells& r, MPI_Comm comm) {
  out.create_text_dataset(kReferenceIds, r.dims());
  const std::int64_t piece_rows = std::max<std::int64_t>(1, kPieceEntries / r.k);
  const int me = mpi::rank(comm), ranks = mpi::size(comm);
  std::vector<std::int64_t> shares(2 * static_cast<std::size_t>(ranks));
  const std::int64_t mine[2] = {r.first, r.count};
  mpi::all_gather(comm, mine, 2, shares.data());
  std::vector<NeighbourIndex> indices;
  std::vector<const char*> texts;
  std::exception_ptr failure;
  for (int rank = 0; rank < ranks; ++rank) {
    const std::int64_t first = shares[2 * rank], count = shares[2 * rank + 1];
    if (me != 0 && me != rank) continue;
    for (std::int64_t from = 0; from < count; from += piece_rows) {
      const std::int64_t rows = std::min(piece_rows, count - from);
      indices.resize(static_cast<std::size_t>(rows * r.k));
      if (rank == me) finished_indices(r, from, rows, indices);
      if (rank != 0 && me == rank) {
        mpi::send_bytes(comm, indices.data(), indices.size() * sizeof(NeighbourIndex), 0, kIdTag);
        continue;
      }
      if (rank != 0) mpi::receive_bytes(comm, indices.data(), indices.size() * sizeof(NeighbourIndex), rank, kIdTag);
      if (failure) continue;
      texts.resize(indices.size());
      for (std::size_t i = 0; i < indices.size(); ++i) texts[i] = indices[i] >= 0 ? references.text(indices[i]) : kEmptyText;
      try {
        out.write_texts_here(kReferenceIds, r.start(first + from), r.size(rows), texts.data());
      } catch (...) {
        failure = std::current_exception();
      }
    }
  }
  out.rethrow_agreed(failure);
}

void write_text_observation_ids(io::OutputFile& out, const PointIds& observations, const IdRows& r, MPI_Comm comm) {
  out.create_text_dataset(kObservationIds, {static_cast<std::uint64_t>(r.n)});
  const int me = mpi::rank(comm), ranks = mpi::size(comm);
  std::exception_ptr failure;
  const auto write = [&](const PointIds& ids, std::int64_t first) {
    std::vector<const char*> texts(static_cast<std::size_t>(ids.size()));
    for (std::int64_t i = 0; i < ids.size(); ++i) texts[static_cast<std::size_t>(i)] = ids.text(i);
    try {
      out.write_texts_here(kObservationIds, {static_cast<std::uint64_t>(first)}, {texts.size()}, texts.data());
    } catch (...) {
      failure = std::current_exception();
    }
  };
  if (me == 0) {
    write(observations, r.first);
    for (int rank = 1; rank < ranks; ++rank) {
      std::uint64_t header[2] = {0, 0};  // first, bytes
      mpi::receive(comm, header, 2, rank, kIdTag);
      std::string bytes(header[1], '\0');
      mpi::receive_bytes(comm, bytes.data(), header[1], rank, kIdTag);
      if (!failure) write(PointIds::from_text_bytes(std::move(bytes)), static_cast<std::int64_t>(header[0]));
    }
  } else {
    const std::string& bytes = observations.text_bytes();
    const std::uint64_t header[2] = {static_cast<std::uint64_t>(r.first), bytes.size()};
    mpi::send(comm, header, 2, 0, kIdTag);
    mpi::send_bytes(comm, bytes.data(), bytes.size(), 0, kIdTag);
  }
  out.rethrow_agreed(failure);
}

// What the ids are, for netCDF and CF readers (io::OutputFile::describe): integer ids are
// dimensionless like /knn/indices ("1"); texts take no units in CF.
std::string id_units(const PointIds& ids) { return ids.kind() == PointIds::Kind::integer ? "1" : ""; }

void describe_ids(io::OutputFile& out, const PointIds& references, const PointIds& observations, bool ragged) {
  if (observations.kind() != PointIds::Kind::none)
    out.describe(kObservationIds, {"observation"}, "id of the observation, as its input gives it",
                 id_units(observations));
  if (references.kind() == PointIds::Kind::none) return;
  if (ragged) {  // beside /knn/indices; an unfinished row has no entries to name
    out.describe(kReferenceIds, {"pair"}, "id of the neighbour, as the references' input gives it",
                 id_units(references));
    return;
  }
  out.describe(kReferenceIds, {"observation", "neighbour"}, "id of the neighbour, as the references' input gives it",
               id_units(references));
  out.describe_text(kReferenceIds, "comment",
                    references.kind() == PointIds::Kind::integer
                        ? "rows the search did not finish (knn/done 0) hold " + std::to_string(kIntegerIdFill)
                        : std::string("rows the search did not finish (knn/done 0) hold an empty text"));
}

void write_observation_ids(io::OutputFile& out, const PointIds& observations, const IdRows& rows, MPI_Comm comm) {
  if (observations.kind() == PointIds::Kind::integer) {
    out.create_dataset<std::int64_t>(kObservationIds, {static_cast<std::uint64_t>(rows.n)});
    out.write_slab(kObservationIds, {static_cast<std::uint64_t>(rows.first)}, {static_cast<std::uint64_t>(rows.count)},
                   observations.integers().data());
  } else if (observations.kind() == PointIds::Kind::text) {
    write_text_observation_ids(out, observations, rows, comm);
  }
}

void write_reference_ids(io::OutputFile& out, const PointIds& references, const IdCells& cells, MPI_Comm comm) {
  if (references.kind() == PointIds::Kind::integer) write_integer_reference_ids(out, references, cells, comm);
  if (references.kind() == PointIds::Kind::text) write_text_reference_ids(out, references, cells, comm);
}

}  // namespace

void write_point_ids(io::OutputFile& out, const PointIds& references, const PointIds& observations,
                     const IdRows& rows) {
  const MPI_Comm comm = out.comm();
  describe_ids(out, references, observations, /*ragged=*/false);
  write_observation_ids(out, observations, rows, comm);
  write_reference_ids(out, references, {rows.n, rows.first, rows.count, rows.k, false, rows.indices, rows.done}, comm);
}

void write_ragged_point_ids(io::OutputFile& out, const PointIds& references, const PointIds& observations,
                            const IdRows& rows, const RaggedIdEntries& entries) {
  const MPI_Comm comm = out.comm();
  describe_ids(out, references, observations, /*ragged=*/true);
  write_observation_ids(out, observations, rows, comm);
  if (references.kind() == PointIds::Kind::none) return;
  write_reference_ids(out, references,
                      {entries.total, entries.first, static_cast<std::int64_t>(entries.indices->size()), 1, true,
                       entries.indices->data(), nullptr},
                      comm);
}

}  // namespace trident::knn
