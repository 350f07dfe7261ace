// Datasets of an output file: groups and datasets created, extended and written, each rank's
// block either through MPI-IO (parallel), straight into rank 0's file as whole rows
// (direct_rows.hpp), or gathered on rank 0; write_array for values rank 0 holds.
#include "io/output_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <random>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "io/direct_rows.hpp"
#include "io/h5_handle.hpp"

namespace trident::io {

template <> hid_t h5_type<float>() { return H5T_NATIVE_FLOAT; }
template <> hid_t h5_type<double>() { return H5T_NATIVE_DOUBLE; }
template <> hid_t h5_type<std::int32_t>() { return H5T_NATIVE_INT32; }
template <> hid_t h5_type<std::int64_t>() { return H5T_NATIVE_INT64; }
template <> hid_t h5_type<std::uint8_t>() { return H5T_NATIVE_UINT8; }

namespace {

std::vector<hsize_t> to_hsize(const std::vector<std::uint64_t>& v) {
  return std::vector<hsize_t>(v.begin(), v.end());
}

std::uint64_t product(const std::vector<std::uint64_t>& v) {
  std::uint64_t n = 1;
  for (auto x : v) n *= x;
  return n;
}

// Link creation that makes missing parent groups, so that a study can create
// "/knn/indices" without creating "/knn" first.
Handle creation_properties() {
  Handle lcpl(H5Pcreate(H5P_LINK_CREATE));
  H5Pset_create_intermediate_group(lcpl.get(), 1);
  return lcpl;
}

constexpr int kSlabTag = 7301;

}  // namespace

void OutputFile::create_group(const std::string& group) {
  agreed([&] {
    if (!holds_file()) return;
    if (H5Lexists(file_, group.c_str(), H5P_DEFAULT) > 0) return;
    Handle lcpl = creation_properties();
    Handle g(checked(H5Gcreate2(file_, group.c_str(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
                     path_, "creating group " + group));
  });
}

template <class T>
void OutputFile::create_dataset(const std::string& dataset, const std::vector<std::uint64_t>& dims,
                                const std::vector<std::uint64_t>& max_dims,
                                const std::vector<std::uint64_t>& chunk, int deflate) {
  agreed([&] { create_dataset_here<T>(dataset, dims, max_dims, chunk, deflate); });
}

template <class T>
void OutputFile::create_dataset_here(const std::string& dataset, const std::vector<std::uint64_t>& dims,
                                     const std::vector<std::uint64_t>& max_dims,
                                     const std::vector<std::uint64_t>& chunk, int deflate) {
  if (!holds_file()) return;
  std::vector<hsize_t> current = to_hsize(dims), maximum = current;
  if (!max_dims.empty()) {
    maximum = to_hsize(max_dims);
    for (auto& m : maximum)
      if (m == 0) m = H5S_UNLIMITED;
  }
  Handle space(H5Screate_simple(static_cast<int>(current.size()), current.data(), maximum.data()));
  Handle dcpl(H5Pcreate(H5P_DATASET_CREATE));
  if (chunk.empty()) {
    // storage placed at creation, so that ranks can write whole rows into it themselves
    // (direct_rows.hpp); never pre-filled: every value is written before the commit
    H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY);
    H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER);
  } else {
    std::vector<hsize_t> c = to_hsize(chunk);
    H5Pset_chunk(dcpl.get(), static_cast<int>(c.size()), c.data());
    // every value is written before the commit: pre-filling would write each chunk twice
    H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER);
    if (deflate > 0) {
      checked_status(H5Pset_shuffle(dcpl.get()), path_, "setting the shuffle filter of " + dataset);
      checked_status(H5Pset_deflate(dcpl.get(), static_cast<unsigned>(deflate)), path_,
                     "setting the deflate filter of " + dataset);
    }
  }
  Handle lcpl = creation_properties();
  Handle d(checked(H5Dcreate2(file_, dataset.c_str(), h5_type<T>(), space.get(), lcpl.get(),
                              dcpl.get(), H5P_DEFAULT),
                   path_, "creating dataset " + dataset));
}

void OutputFile::extend(const std::string& dataset, const std::vector<std::uint64_t>& dims) {
  agreed([&] {
    if (!holds_file()) return;
    Handle d(checked(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), path_, "opening " + dataset));
    std::vector<hsize_t> size = to_hsize(dims);
    checked_status(H5Dset_extent(d.get(), size.data()), path_, "extending " + dataset);
  });
}

namespace {

// A block of a dataset opened and selected for writing.
struct SlabSelection {
  Handle dataset, file_space, memory_space;
};

// Opens `dataset` and selects the block at `off` of `cnt` (a count of 0: nothing). Only
// local work: throws RunError for a missing dataset or a block outside it, so that the
// ranks can agree on it before the (collective) write.
SlabSelection select_slab(hid_t file, const std::string& path, const std::string& dataset,
                          const std::vector<std::uint64_t>& off, const std::vector<std::uint64_t>& cnt) {
  SlabSelection s;
  s.dataset = Handle(checked(H5Dopen2(file, dataset.c_str(), H5P_DEFAULT), path, "opening " + dataset));
  s.file_space = Handle(H5Dget_space(s.dataset.get()));
  std::vector<hsize_t> o = to_hsize(off), c = to_hsize(cnt);
  if (product(cnt) == 0) {
    H5Sselect_none(s.file_space.get());
    const hsize_t one = 1;
    s.memory_space = Handle(H5Screate_simple(1, &one, nullptr));
    H5Sselect_none(s.memory_space.get());
    return s;
  }
  const herr_t selected =
      H5Sselect_hyperslab(s.file_space.get(), H5S_SELECT_SET, o.data(), nullptr, c.data(), nullptr);
  checked_status(selected < 0 || H5Sselect_valid(s.file_space.get()) <= 0 ? -1 : 0, path,
                 "selecting a block of " + dataset);
  s.memory_space = Handle(H5Screate_simple(static_cast<int>(c.size()), c.data(), nullptr));
  return s;
}

template <class T>
void write_selection(const SlabSelection& s, const std::string& path, const std::string& dataset,
                     const T* values, bool collective_transfer) {
  Handle xfer(H5Pcreate(H5P_DATASET_XFER));
#if defined(H5_HAVE_PARALLEL)
  if (collective_transfer) H5Pset_dxpl_mpio(xfer.get(), H5FD_MPIO_COLLECTIVE);
#else
  (void)collective_transfer;
#endif
  checked_status(H5Dwrite(s.dataset.get(), h5_type<T>(), s.memory_space.get(), s.file_space.get(),
                          xfer.get(), values),
                 path, "writing " + dataset);
}

}  // namespace

template <class T>
void OutputFile::write_slab(const std::string& dataset, const std::vector<std::uint64_t>& offset,
                            const std::vector<std::uint64_t>& count, const T* data) {
  if (parallel_) {
    // Every rank enters the collective write only once every rank's block is known good:
    // a rank failing alone inside it would leave the others waiting there.
    SlabSelection selection;
    agreed([&] { selection = select_slab(file_, path_, dataset, offset, count); });
    agreed([&] { write_selection<T>(selection, path_, dataset, data, true); });
    return;
  }
  if (mpi::size(comm_) > 1) {
    const std::int64_t at = rows_address<T>(dataset, offset, count);
    if (at >= 0) {
      agreed([&] {
        write_bytes_at(partial_path(), path_, dataset, static_cast<std::uint64_t>(at), data, product(count) * sizeof(T));
      });
      return;
    }
  }
  const auto write_local = [&](const std::vector<std::uint64_t>& off,
                               const std::vector<std::uint64_t>& cnt, const T* values) {
    write_selection<T>(select_slab(file_, path_, dataset, off, cnt), path_, dataset, values, false);
  };
  agreed([&] { gather_slabs<T>(offset, count, data, write_local); });
}

template <class T>
std::int64_t OutputFile::rows_address(const std::string& dataset, const std::vector<std::uint64_t>& offset,
                                      const std::vector<std::uint64_t>& count) {
  if (parallel_) return -1;
  const std::int64_t address = direct_address(dataset, offset, count, h5_type<T>());
  if (address < 0) return -1;
  const std::uint64_t row_values = product(count) / std::max<std::uint64_t>(1, count[0]);
  return address + static_cast<std::int64_t>(offset[0] * row_values * sizeof(T));
}

std::int64_t OutputFile::direct_address(const std::string& dataset, const std::vector<std::uint64_t>& offset,
                                        const std::vector<std::uint64_t>& count, hid_t memory_type) {
  DirectTarget target;
  agreed([&] {
    if (holds_file()) target = direct_target(file_, path_, dataset, memory_type);
  });
  // rank 0's answer to every rank: the address, the rank of the dataset, its dims
  std::vector<std::int64_t> shared{target.address, static_cast<std::int64_t>(target.dims.size())};
  mpi::broadcast(comm_, shared.data(), 2);
  target.address = shared[0];
  target.dims.resize(static_cast<std::size_t>(shared[1]));
  if (!target.dims.empty()) mpi::broadcast(comm_, target.dims.data(), static_cast<int>(shared[1]));
  // every rank's block must be whole rows; otherwise all go the gathered way, which also
  // reports a block outside the dataset as before
  int usable = target.address >= 0 && whole_rows(target.dims, offset, count) ? 1 : 0;
  mpi::min_over_ranks(comm_, &usable, 1);
  if (!usable || product(target.dims) * H5Tget_size(memory_type) < sizeof(std::uint64_t)) return -1;
  // every rank must see rank 0's file: a mark that rank 0 writes where the dataset starts,
  // looked for by every rank, then the bytes it covered put back (rows that an earlier
  // call wrote there: the ridge solutions are written a λ at a time)
  const auto at = static_cast<std::uint64_t>(target.address);
  std::uint64_t mark = 0, covered = 0;
  if (holds_file()) {
    mark = std::random_device{}() ^ (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^
           static_cast<std::uint64_t>(getpid());
  }
  agreed([&] {
    if (!holds_file()) return;
    covered = word_at(partial_path(), path_, dataset, at);
    write_bytes_at(partial_path(), path_, dataset, at, &mark, sizeof mark);
  });
  mpi::broadcast(comm_, &mark, 1);
  usable = holds_mark(partial_path(), at, mark) ? 1 : 0;
  mpi::min_over_ranks(comm_, &usable, 1);
  agreed([&] {
    if (holds_file()) write_bytes_at(partial_path(), path_, dataset, at, &covered, sizeof covered);
  });
  return usable ? target.address : -1;
}

template <class T>
void OutputFile::extend_and_write_here(const std::string& dataset, const std::vector<std::uint64_t>& dims,
                                       const std::vector<std::uint64_t>& offset,
                                       const std::vector<std::uint64_t>& count, const T* data) {
  if (!holds_file() || parallel_) throw RunError(path_ + ": writing " + dataset + " from a rank that does not hold the file");
  {
    Handle d(checked(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), path_, "opening " + dataset));
    std::vector<hsize_t> size = to_hsize(dims);
    checked_status(H5Dset_extent(d.get(), size.data()), path_, "extending " + dataset);
  }
  write_selection<T>(select_slab(file_, path_, dataset, offset, count), path_, dataset, data, false);
}

void OutputFile::rethrow_agreed(const std::exception_ptr& failure) {
  agreed([&] {
    if (failure) std::rethrow_exception(failure);
  });
}

template <class T, class WriteLocal>
void OutputFile::gather_slabs(const std::vector<std::uint64_t>& offset,
                              const std::vector<std::uint64_t>& count, const T* data,
                              const WriteLocal& write_local) {
  // Gathered: rank 0 writes its own block, then each other rank's as it arrives. After a
  // failed write rank 0 still receives every block (the senders would wait forever
  // otherwise) and reports the first failure once all have arrived.
  const int me = mpi::rank(comm_), n = mpi::size(comm_);
  const int rank_dims = static_cast<int>(offset.size());
  if (me != 0) {
    std::vector<std::uint64_t> header(offset);
    header.insert(header.end(), count.begin(), count.end());
    mpi::send(comm_, header.data(), 2 * rank_dims, 0, kSlabTag);
    mpi::send_bytes(comm_, data, product(count) * sizeof(T), 0, kSlabTag);
    return;
  }
  std::exception_ptr failure;
  const auto attempt = [&](const std::vector<std::uint64_t>& off, const std::vector<std::uint64_t>& cnt,
                           const T* values) {
    if (failure) return;
    try {
      write_local(off, cnt, values);
    } catch (...) {
      failure = std::current_exception();
    }
  };
  attempt(offset, count, data);
  std::vector<T> buffer;
  for (int r = 1; r < n; ++r) {
    std::vector<std::uint64_t> header(2 * rank_dims);
    mpi::receive(comm_, header.data(), 2 * rank_dims, r, kSlabTag);
    std::vector<std::uint64_t> off(header.begin(), header.begin() + rank_dims);
    std::vector<std::uint64_t> cnt(header.begin() + rank_dims, header.end());
    buffer.resize(product(cnt));
    mpi::receive_bytes(comm_, buffer.data(), product(cnt) * sizeof(T), r, kSlabTag);
    attempt(off, cnt, buffer.data());
  }
  if (failure) std::rethrow_exception(failure);
}

template <class T>
void OutputFile::write_array(const std::string& dataset, const std::vector<T>& values,
                             const std::vector<std::uint64_t>& dims) {
  std::vector<std::uint64_t> shape = dims;
  if (shape.empty()) shape = {static_cast<std::uint64_t>(values.size())};
  // The shape must agree on every rank: take rank 0's.
  mpi::broadcast(comm_, shape.data(), static_cast<int>(shape.size()));
  create_dataset<T>(dataset, shape);
  if (product(shape) == 0) return;  // an empty dataset has nothing to write (every rank knows)
  const bool root = mpi::rank(comm_) == 0;
  std::vector<std::uint64_t> offset(shape.size(), 0), count = shape;
  if (!root) std::fill(count.begin(), count.end(), 0);
  write_slab<T>(dataset, offset, count, values.data());
}

#define TRIDENT_OUTPUT_FILE_TYPES(T)                                                          \
  template void OutputFile::create_dataset<T>(const std::string&,                             \
                                              const std::vector<std::uint64_t>&,              \
                                              const std::vector<std::uint64_t>&,              \
                                              const std::vector<std::uint64_t>&, int);        \
  template void OutputFile::extend_and_write_here<T>(                                         \
      const std::string&, const std::vector<std::uint64_t>&, const std::vector<std::uint64_t>&, \
      const std::vector<std::uint64_t>&, const T*);                                           \
  template void OutputFile::write_slab<T>(const std::string&, const std::vector<std::uint64_t>&, \
                                          const std::vector<std::uint64_t>&, const T*);       \
  template std::int64_t OutputFile::rows_address<T>(const std::string&, const std::vector<std::uint64_t>&, \
                                                    const std::vector<std::uint64_t>&);       \
  template void OutputFile::write_array<T>(const std::string&, const std::vector<T>&,         \
                                           const std::vector<std::uint64_t>&);
TRIDENT_OUTPUT_FILE_TYPES(float)
TRIDENT_OUTPUT_FILE_TYPES(double)
TRIDENT_OUTPUT_FILE_TYPES(std::int32_t)
TRIDENT_OUTPUT_FILE_TYPES(std::int64_t)
TRIDENT_OUTPUT_FILE_TYPES(std::uint8_t)
#undef TRIDENT_OUTPUT_FILE_TYPES

}  // namespace trident::io
