// MatrixRows: A's shape and row offsets from the deck's source, the blocks of rows that
// balance the nonzeros over ranks, and each rank's block taken from the source.
#include "ridge/detail/matrix_rows.hpp"

#include <utility>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "io/input_file.hpp"
#include "ridge/detail/generator.hpp"
#include "ridge/detail/hdf5_csr.hpp"
#include "ridge/detail/matrix_market.hpp"

namespace trident::ridge {

std::vector<std::int64_t> nonzero_balanced_rows(std::int64_t rows, int parts,
                                                const std::function<std::int64_t(std::int64_t)>& offset) {
  const std::int64_t total = offset(rows);
  std::vector<std::int64_t> bounds(static_cast<std::size_t>(parts) + 1, rows);
  bounds[0] = 0;
  for (int r = 1; r < parts; ++r) {
    const auto share = static_cast<std::int64_t>(static_cast<unsigned __int128>(total) * unsigned(r) / unsigned(parts));
    std::int64_t low = bounds[r - 1], high = rows;  // the first row at or past the share
    while (low < high) {
      const std::int64_t mid = low + (high - low) / 2;
      if (offset(mid) >= share) high = mid;
      else low = mid + 1;
    }
    bounds[r] = low;
  }
  return bounds;
}

void collective_unless_alone(MPI_Comm comm, const std::function<void()>& work) {
  if (mpi::is_self(comm)) work();
  else mpi::collective(comm, work);
}

MatrixRows::MatrixRows(const ridge::RidgeMatrixSettings& settings, MPI_Comm comm)
    : settings_(settings), comm_(comm) {
  using Kind = ridge::RidgeMatrixSettings::Kind;
  if (settings.kind == Kind::generate) {
    rows_ = settings.rows;
    columns_ = settings.columns;
    generated_nonzeros_ = generated_nonzeros(rows_, columns_, settings.density);
    return;
  }
  std::int64_t shape[2] = {0, 0};
  if (settings.kind == Kind::hdf5) {
    collective_unless_alone(comm, [&] {
      const io::InputFile in(settings.file, kMatrixFileRole);
      Hdf5CsrIndex index = read_hdf5_index(in, settings.group);
      shape[0] = index.rows;
      shape[1] = index.columns;
      offsets_ = std::move(index.offsets);
    });
  } else {
    // Parsed once, on rank 0, and kept there until take() sends each rank its rows.
    collective_unless_alone(comm, [&] {
      if (mpi::rank(comm) == 0) parsed_ = read_matrix_market(settings.file);
    });
    if (mpi::rank(comm) == 0) {
      shape[0] = parsed_.rows;
      shape[1] = parsed_.columns;
    }
    mpi::broadcast(comm, shape, 2);
    offsets_.resize(static_cast<std::size_t>(shape[0]) + 1);
    if (mpi::rank(comm) == 0) offsets_.assign(parsed_.row_ptr.begin(), parsed_.row_ptr.end());
    mpi::broadcast(comm, offsets_.data(), static_cast<int>(offsets_.size()));
  }
  rows_ = shape[0];
  columns_ = shape[1];
}

MatrixRows::~MatrixRows() = default;

std::int64_t MatrixRows::offset(std::int64_t row) const {
  if (settings_.kind == ridge::RidgeMatrixSettings::Kind::generate)
    return generated_offset(generated_nonzeros_, rows_, row);
  return offsets_[static_cast<std::size_t>(row)];
}

HostCsr MatrixRows::take(std::int64_t first, std::int64_t count) const {
  using Kind = ridge::RidgeMatrixSettings::Kind;
  HostCsr out;
  if (settings_.kind == Kind::generate) {
    collective_unless_alone(comm_, [&] {
      try {
        out = generate_matrix_rows(static_cast<int>(rows_), static_cast<int>(columns_), settings_.density,
                                   settings_.seed, first, count);
      } catch (const InputError& e) {
        throw InputError(settings_.where + ": " + e.what());
      }
    });
    return out;
  }
  if (settings_.kind == Kind::hdf5) {
    collective_unless_alone(comm_, [&] {
      const io::InputFile in(settings_.file, kMatrixFileRole);
      Hdf5CsrIndex index;
      index.rows = rows_;
      index.columns = columns_;
      index.offsets = offsets_;  // a copy: take() may be called again
      out = read_hdf5_rows(in, settings_.group, index, first, count);
    });
    return out;
  }
  return send_parsed_blocks(first, count);  // Matrix Market: checked when parsed
}

HostCsr MatrixRows::send_parsed_blocks(std::int64_t first, std::int64_t count) const {
  const int ranks = mpi::size(comm_), me = mpi::rank(comm_);
  const std::int64_t mine[2] = {first, count};
  std::vector<std::int64_t> asks(static_cast<std::size_t>(2 * ranks));
  mpi::gather(comm_, mine, 2, asks.data());
  auto block = [&](std::int64_t f, std::int64_t n) {
    HostCsr a;
    a.rows = static_cast<int>(n);
    a.columns = static_cast<int>(columns_);
    const int begin = parsed_.row_ptr[f], end = parsed_.row_ptr[f + n];
    for (std::int64_t i = 0; i <= n; ++i) a.row_ptr.push_back(parsed_.row_ptr[f + i] - begin);
    a.col_ind.assign(parsed_.col_ind.begin() + begin, parsed_.col_ind.begin() + end);
    a.values.assign(parsed_.values.begin() + begin, parsed_.values.begin() + end);
    return a;
  };
  if (me == 0) {
    for (int r = 1; r < ranks; ++r) {
      const HostCsr a = block(asks[2 * r], asks[2 * r + 1]);
      mpi::send(comm_, a.row_ptr.data(), static_cast<int>(a.row_ptr.size()), r, 0);
      mpi::send(comm_, a.col_ind.data(), static_cast<int>(a.col_ind.size()), r, 1);
      mpi::send(comm_, a.values.data(), static_cast<int>(a.values.size()), r, 2);
    }
    return block(first, count);
  }
  HostCsr out;
  out.rows = static_cast<int>(count);
  out.columns = static_cast<int>(columns_);
  out.row_ptr.resize(static_cast<std::size_t>(count) + 1);
  mpi::receive(comm_, out.row_ptr.data(), static_cast<int>(out.row_ptr.size()), 0, 0);
  out.col_ind.resize(static_cast<std::size_t>(out.row_ptr.back()));
  out.values.resize(out.col_ind.size());
  mpi::receive(comm_, out.col_ind.data(), static_cast<int>(out.col_ind.size()), 0, 1);
  mpi::receive(comm_, out.values.data(), static_cast<int>(out.values.size()), 0, 2);
  return out;
}

}  // namespace trident::ridge
