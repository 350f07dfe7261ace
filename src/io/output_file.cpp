// An output file's life: the destination check, FILE.partial created, then renamed to FILE
// (commit) or emptied and removed (discard, the destructor, or remove_unfinished_outputs()
// before MPI_Abort). Datasets are written in output_datasets.cpp, attributes in
// output_attributes.cpp.
#include "io/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/signals.hpp"
#include "io/h5_handle.hpp"

namespace trident::io {

namespace {

bool exists(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

bool is_folder(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

// The partial files this process created and has not yet committed or removed live in
// core/signals' fixed list, which a second stop signal's handler can read too.
void forget_unfinished(const std::string& partial) { signals::forget_partial(partial); }

std::string folder_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Creates `probe` (a name the run will create anyway) and removes it: the only test that
// sees every refusal (a read-only mount, /proc, a quota, an ACL) with the system's reason.
void require_creatable(const std::string& path, const std::string& probe, const char* what) {
  const std::string folder = folder_of(path);
  struct stat info;
  if (stat(folder.c_str(), &info) != 0)
    throw InputError(path + ": cannot write the " + what + ": the folder '" + folder + "': " + std::strerror(errno));
  if (!S_ISDIR(info.st_mode))
    throw InputError(path + ": cannot write the " + what + ": '" + folder + "' is not a folder");
  const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd >= 0) {
    ::close(fd);
    unlink(probe.c_str());
    return;
  }
  const int error = errno;
  if (error == EEXIST && access(probe.c_str(), W_OK) == 0) return;  // an old partial file, replaced
  throw InputError(path + ": cannot write the " + what + " in the folder '" + folder + "': " + std::strerror(error));
}

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
    const std::string partial = path + ".partial";
    if (is_folder(partial))
      throw InputError(partial + ": a folder stands where the run writes its output before "
                                 "renaming it; move it away");
    require_creatable(path, partial, "output file");
  });
}

void check_log_destination(MPI_Comm comm, const std::string& path) {
  mpi::collective(comm, [&] {
    if (mpi::rank(comm) != 0) return;
    if (is_folder(path))
      throw InputError(path + ": the log file's path is a folder; expected a file name (output.log)");
    if (exists(path)) {
      if (access(path.c_str(), W_OK) != 0)
        throw InputError(path + ": cannot append to the log file: " + std::strerror(errno) + " (output.log)");
      return;
    }
    require_creatable(path, path, "log file");
  });
}

void remove_unfinished_outputs() noexcept { signals::remove_remembered_partials(); }

OutputFile::OutputFile(MPI_Comm comm, std::string path, bool overwrite, Mode mode)
    : comm_(comm), path_(std::move(path)) {
  silence_hdf5_errors();
#if defined(H5_HAVE_PARALLEL)
  // One rank gains nothing from MPI-IO, and a plain file lets the diffusion frames be
  // written by a thread that calls no MPI (diffusion/detail/frames.hpp).
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
    // The 1.8+ format stores large attributes (the deck text) densely instead of failing
    // at 64 KiB.
    H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST);
#if defined(H5_HAVE_PARALLEL)
    if (parallel_) H5Pset_fapl_mpio(fapl.get(), comm_, MPI_INFO_NULL);
#endif
    file_ = H5Fcreate(partial.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
    if (file_ < 0) throw RunError(partial + ": cannot create the output file");
    signals::remember_partial(partial);
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
  if (parallel_) mpi::barrier(comm_);  // every rank's MPI-IO closed before rank 0 opens the file again
  mpi::collective(comm_, [&] {
    if (mpi::rank(comm_) != 0) return;
    if (!description_.empty()) {
      try {
        write_description(partial_path(), path_, description_);
      } catch (const std::exception& e) {
        throw RunError(path_ + ": the run finished but its datasets could not be described for netCDF readers (" +
                       e.what() + "); the results are kept in " + partial_path());
      }
    }
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
  mpi::barrier(comm_);
  if (mpi::rank(comm_) == 0) std::remove(partial_path().c_str());
  forget_unfinished(partial_path());
  committed_ = true;  // nothing left for the destructor
}

}  // namespace trident::io
