#include "io/output_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
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

bool exists(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

bool is_folder(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

// The partial files this process created and has not yet committed or removed.
std::vector<std::string>& unfinished() {
  static std::vector<std::string> partials;
  return partials;
}

void forget_unfinished(const std::string& partial) {
  auto& list = unfinished();
  list.erase(std::remove(list.begin(), list.end(), partial), list.end());
}

std::string folder_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::vector<hsize_t> to_hsize(const std::vector<std::uint64_t>& v) {
  return std::vector<hsize_t>(v.begin(), v.end());
}

std::uint64_t product(const std::vector<std::uint64_t>& v) {
  std::uint64_t n = 1;
  for (auto x : v) n *= x;
  return n;
}

Handle creation_properties() {
  // Link creation makes missing parent groups; the 1.8+ format stores large attributes
  // (the deck text) densely instead of failing at 64 KiB.
  return Handle(H5Pcreate(H5P_LINK_CREATE));
}

constexpr int kSlabTag = 7301;
constexpr std::uint64_t kMessageBytes = 1ull << 30;  // MPI counts are int: send in pieces

}  // namespace

void check_output_destination(MPI_Comm comm, const std::string& path, bool overwrite) {
  mpi::collective(comm, [&] {
    if (mpi::rank(comm) != 0) return;
    if (path.empty())
      throw InputError("the output file name is empty; expected a file name such as run.h5 "
                       "(--output or output.file)");
    if (path.back() == '/')
      throw InputError(path + ": the output file name ends in '/', which names a folder; "
                              "expected a file name such as " + path + "run.h5");
    if (is_folder(path))
      throw InputError(path + ": the output path is a folder; expected a file name (choose "
                              "another with --output)");
    if (exists(path) && !overwrite) {
      throw InputError(path + ": the output file already exists; choose another with --output, "
                              "or pass --overwrite (deck: output.overwrite: true) to replace it");
    }
    const std::string folder = folder_of(path);
    if (access(folder.c_str(), W_OK) != 0) {
      throw InputError(path + ": cannot write the output file: the folder '" + folder +
                       "' does not exist or is not writable");
    }
    const std::string partial = path + ".partial";
    if (is_folder(partial))
      throw InputError(partial + ": a folder stands where the run writes its output before "
                                 "renaming it; move it away");
  });
}

void remove_unfinished_outputs() noexcept {
  for (const std::string& partial : unfinished()) std::remove(partial.c_str());
  unfinished().clear();
}

OutputFile::OutputFile(MPI_Comm comm, std::string path, bool overwrite, Mode mode)
    : comm_(comm), path_(std::move(path)) {
  silence_hdf5_errors();
#if defined(H5_HAVE_PARALLEL)
  // One rank gains nothing from MPI-IO, and a plain file lets the diffusion frames be
  // written by a thread that calls no MPI (diffusion/frames.hpp).
  parallel_ = mode == Mode::automatic && mpi::size(comm) > 1;
#else
  parallel_ = false;
  (void)mode;
#endif
  check_output_destination(comm_, path_, overwrite);
  const std::string partial = partial_path();
  mpi::collective(comm_, [&] {
    if (!parallel_ && mpi::rank(comm_) != 0) return;
    Handle fapl(H5Pcreate(H5P_FILE_ACCESS));
    H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST);
#if defined(H5_HAVE_PARALLEL)
    if (parallel_) H5Pset_fapl_mpio(fapl.get(), comm_, MPI_INFO_NULL);
#endif
    file_ = H5Fcreate(partial.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
    if (file_ < 0) throw RunError(partial + ": cannot create the output file");
    unfinished().push_back(partial);
  });
}

OutputFile::~OutputFile() {
  if (committed_ || file_ < 0) return;
  // Closing a parallel file is collective: do it only where it cannot hang (one rank);
  // a multi-rank job that fails here is brought down by MPI_Abort, which removes the
  // partial file through remove_unfinished_outputs().
  if (parallel_ && mpi::size(comm_) > 1) return;
  empty_for_discard();
  close();
  forget_unfinished(partial_path());
  std::remove(partial_path().c_str());
}

void OutputFile::agreed(const std::function<void()>& work) { mpi::collective(comm_, work); }

void OutputFile::close() {
  if (file_ >= 0) {
    H5Fclose(file_);
    file_ = -1;
  }
}

// A failed write (a full disk, a quota) leaves dirty metadata that H5Fclose must flush.
// That flush fails too, and HDF5 then keeps a half-closed file that crashes its own
// shutdown inside MPI_Finalize. The content is being thrown away: empty the file first,
// so that the flush finds room and the close succeeds. Collective in parallel mode.
void OutputFile::empty_for_discard() {
  if (file_ < 0) return;
  Handle fapl(H5Fget_access_plist(file_));
  const hid_t driver = H5Pget_driver(fapl.get());
  void* handle = nullptr;
  if (H5Fget_vfd_handle(file_, fapl.get(), &handle) < 0 || handle == nullptr) return;
  if (driver == H5FD_SEC2) {
    if (ftruncate(*static_cast<int*>(handle), 0) != 0) return;  // nothing more to try
  }
#if defined(H5_HAVE_PARALLEL)
  if (driver == H5FD_MPIO) MPI_File_set_size(*static_cast<MPI_File*>(handle), 0);
#endif
}

void OutputFile::commit() {
  close();
  forget_unfinished(partial_path());  // finished: kept whatever happens next
  mpi::collective(comm_, [&] {
    if (mpi::rank(comm_) != 0) return;
    if (std::rename(partial_path().c_str(), path_.c_str()) != 0) {
      const std::string reason = std::strerror(errno);
      throw RunError(path_ + ": the run finished but its output could not be renamed from " +
                     partial_path() + " (" + reason + "); the finished result is kept in " +
                     partial_path() + ": rename it by hand");
    }
  });
  committed_ = true;
}

void OutputFile::discard() {
  empty_for_discard();
  close();
  MPI_Barrier(comm_);
  if (mpi::rank(comm_) == 0) std::remove(partial_path().c_str());
  forget_unfinished(partial_path());
  committed_ = true;  // nothing left for the destructor
}

void OutputFile::create_group(const std::string& group) {
  agreed([&] {
    if (!holds_file()) return;
    if (H5Lexists(file_, group.c_str(), H5P_DEFAULT) > 0) return;
    Handle lcpl = creation_properties();
    H5Pset_create_intermediate_group(lcpl.get(), 1);
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
  H5Pset_create_intermediate_group(lcpl.get(), 1);
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
    const std::int64_t address = direct_address(dataset, offset, count, h5_type<T>());
    if (address >= 0) {
      const std::uint64_t row_values = product(count) / std::max<std::uint64_t>(1, count[0]);
      const std::uint64_t at = static_cast<std::uint64_t>(address) + offset[0] * row_values * sizeof(T);
      agreed([&] { write_bytes_at(partial_path(), path_, dataset, at, data, product(count) * sizeof(T)); });
      return;
    }
  }
  const auto write_local = [&](const std::vector<std::uint64_t>& off,
                               const std::vector<std::uint64_t>& cnt, const T* values) {
    write_selection<T>(select_slab(file_, path_, dataset, off, cnt), path_, dataset, values, false);
  };
  agreed([&] { gather_slabs<T>(offset, count, data, write_local); });
}

std::int64_t OutputFile::direct_address(const std::string& dataset, const std::vector<std::uint64_t>& offset,
                                        const std::vector<std::uint64_t>& count, hid_t memory_type) {
  DirectTarget target;
  agreed([&] {
    if (holds_file()) target = direct_target(file_, path_, dataset, memory_type);
  });
  // rank 0's answer to every rank: the address, the rank of the dataset, its dims
  std::vector<std::int64_t> shared{target.address, static_cast<std::int64_t>(target.dims.size())};
  MPI_Bcast(shared.data(), 2, MPI_INT64_T, 0, comm_);
  target.address = shared[0];
  target.dims.resize(static_cast<std::size_t>(shared[1]));
  if (!target.dims.empty()) MPI_Bcast(target.dims.data(), shared[1], MPI_UINT64_T, 0, comm_);
  // every rank's block must be whole rows; otherwise all go the gathered way, which also
  // reports a block outside the dataset as before
  int usable = target.address >= 0 && whole_rows(target.dims, offset, count) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &usable, 1, MPI_INT, MPI_MIN, comm_);
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
  MPI_Bcast(&mark, 1, MPI_UINT64_T, 0, comm_);
  usable = holds_mark(partial_path(), at, mark) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &usable, 1, MPI_INT, MPI_MIN, comm_);
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
    MPI_Send(header.data(), 2 * rank_dims, MPI_UINT64_T, 0, kSlabTag, comm_);
    const std::uint64_t bytes = product(count) * sizeof(T);
    const char* p = reinterpret_cast<const char*>(data);
    for (std::uint64_t sent = 0; sent < bytes; sent += kMessageBytes) {
      const int piece = static_cast<int>(std::min(kMessageBytes, bytes - sent));
      MPI_Send(p + sent, piece, MPI_BYTE, 0, kSlabTag, comm_);
    }
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
    MPI_Recv(header.data(), 2 * rank_dims, MPI_UINT64_T, r, kSlabTag, comm_, MPI_STATUS_IGNORE);
    std::vector<std::uint64_t> off(header.begin(), header.begin() + rank_dims);
    std::vector<std::uint64_t> cnt(header.begin() + rank_dims, header.end());
    const std::uint64_t bytes = product(cnt) * sizeof(T);
    buffer.resize(product(cnt));
    char* p = reinterpret_cast<char*>(buffer.data());
    for (std::uint64_t got = 0; got < bytes; got += kMessageBytes) {
      const int piece = static_cast<int>(std::min(kMessageBytes, bytes - got));
      MPI_Recv(p + got, piece, MPI_BYTE, r, kSlabTag, comm_, MPI_STATUS_IGNORE);
    }
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
  MPI_Bcast(shape.data(), static_cast<int>(shape.size()), MPI_UINT64_T, 0, comm_);
  create_dataset<T>(dataset, shape);
  if (product(shape) == 0) return;  // an empty dataset has nothing to write (every rank knows)
  const bool root = mpi::rank(comm_) == 0;
  std::vector<std::uint64_t> offset(shape.size(), 0), count = shape;
  if (!root) std::fill(count.begin(), count.end(), 0);
  write_slab<T>(dataset, offset, count, values.data());
}

namespace {

void replace_attribute(hid_t object, const std::string& name) {
  if (H5Aexists(object, name.c_str()) > 0) H5Adelete(object, name.c_str());
}

void write_text_attribute(hid_t file, const std::string& path, const std::string& object,
                          const std::string& name, const std::string& text) {
  Handle o(checked(H5Oopen(file, object.c_str(), H5P_DEFAULT), path, "opening " + object));
  replace_attribute(o.get(), name);
  Handle type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  Handle space(H5Screate(H5S_SCALAR));
  Handle a(checked(H5Acreate2(o.get(), name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                   path, "creating attribute " + object + " " + name));
  const char* p = text.c_str();
  checked_status(H5Awrite(a.get(), type.get(), &p), path, "writing attribute " + name);
}

template <class T>
void write_number_attribute(hid_t file, const std::string& path, const std::string& object,
                            const std::string& name, const T* values, hsize_t count, bool scalar) {
  Handle o(checked(H5Oopen(file, object.c_str(), H5P_DEFAULT), path, "opening " + object));
  replace_attribute(o.get(), name);
  Handle space(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr));
  Handle a(checked(H5Acreate2(o.get(), name.c_str(), h5_type<T>(), space.get(), H5P_DEFAULT,
                              H5P_DEFAULT),
                   path, "creating attribute " + object + " " + name));
  checked_status(H5Awrite(a.get(), h5_type<T>(), values), path, "writing attribute " + name);
}

}  // namespace

void OutputFile::attribute(const std::string& object, const std::string& name,
                           const std::string& value) {
  const std::string text = mpi::broadcast(comm_, value, 0);
  agreed([&] {
    if (holds_file()) write_text_attribute(file_, path_, object, name, text);
  });
}

void OutputFile::attribute(const std::string& object, const std::string& name, double value) {
  MPI_Bcast(&value, 1, MPI_DOUBLE, 0, comm_);
  agreed([&] {
    if (holds_file()) write_number_attribute(file_, path_, object, name, &value, 1, true);
  });
}

void OutputFile::attribute(const std::string& object, const std::string& name,
                           std::int64_t value) {
  MPI_Bcast(&value, 1, MPI_INT64_T, 0, comm_);
  agreed([&] {
    if (holds_file()) write_number_attribute(file_, path_, object, name, &value, 1, true);
  });
}

void OutputFile::attribute(const std::string& object, const std::string& name,
                           const std::vector<double>& values) {
  std::uint64_t n = values.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, comm_);
  std::vector<double> v(values);
  v.resize(n);
  MPI_Bcast(v.data(), static_cast<int>(n), MPI_DOUBLE, 0, comm_);
  agreed([&] {
    if (holds_file()) write_number_attribute(file_, path_, object, name, v.data(), n, false);
  });
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
  template void OutputFile::write_array<T>(const std::string&, const std::vector<T>&,         \
                                           const std::vector<std::uint64_t>&);
TRIDENT_OUTPUT_FILE_TYPES(float)
TRIDENT_OUTPUT_FILE_TYPES(double)
TRIDENT_OUTPUT_FILE_TYPES(std::int32_t)
TRIDENT_OUTPUT_FILE_TYPES(std::int64_t)
TRIDENT_OUTPUT_FILE_TYPES(std::uint8_t)
#undef TRIDENT_OUTPUT_FILE_TYPES

}  // namespace trident::io
