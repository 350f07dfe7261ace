#pragma once
// The HDF5 output file of a run. Written to FILE.partial and renamed to FILE by commit();
// an existing FILE is refused unless overwrite is set. Every member function is
// collective: every rank calls it with the same arguments (slab contents excepted).
// With parallel HDF5 and more than one rank every rank writes its own slab through MPI-IO;
// otherwise (serial HDF5, Mode::gathered, or one rank) rank 0 alone holds the file: on
// several ranks whole rows of a contiguous dataset go straight from each rank into the
// file (direct_rows.hpp), and rank 0 writes other slabs as it receives them.
// Defined in output_file.cpp (the destination check and the file's life),
// output_datasets.cpp (groups and datasets), output_attributes.cpp and
// output_description.cpp (the description written at commit).
#include <hdf5.h>
#include <mpi.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "io/output_description.hpp"

namespace trident::io {

enum class Mode { automatic, gathered };

// HDF5 type of a C++ type: float, double, std::int32_t, std::int64_t, std::uint8_t.
template <class T>
hid_t h5_type();

// Checks, before any work, that `path` can become a run's output: a file name (not empty,
// not ending in '/'), not a folder, not an existing file unless `overwrite`, in a folder
// that exists and can be written, with PATH.partial free to use. Collective: rank 0
// looks, and every rank throws the same CollectiveError (exit 2) when it finds a fault.
// The folder's faults name the system's reason ("Permission denied"); the place is tried
// by creating PATH.partial and removing it at once.
void check_output_destination(MPI_Comm comm, const std::string& path, bool overwrite);

// The same for the log file, which a run appends to: not a folder, and writable where it
// exists, else creatable. Collective like check_output_destination.
void check_log_destination(MPI_Comm comm, const std::string& path);

// Removes the partial files of the outputs this process still has unfinished. For the
// last moment before MPI_Abort, when no destructor will run.
void remove_unfinished_outputs() noexcept;

// The one owner of an output file's life: created as FILE.partial, written, then either
// renamed to FILE (commit) or closed and removed (discard, or the destructor) on every
// failure path. A write that fails on any rank fails on every rank (CollectiveError), so
// the ranks stay together and can discard the file cleanly.
class OutputFile {
 public:
  // Checks the destination (check_output_destination) and creates FILE.partial.
  OutputFile(MPI_Comm comm, std::string path, bool overwrite, Mode mode = Mode::automatic);
  // Without commit() the partial file is closed and removed: nothing half-written stays.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Closes the file, writes the recorded description (describe(), below) and renames
  // FILE.partial to FILE. If the description or the rename fails, the finished result
  // stays in FILE.partial and the error says so (exit 1).
  void commit();
  // Closes the file and removes FILE.partial (after an error every rank shares).
  void discard();

  MPI_Comm comm() const { return comm_; }
  const std::string& path() const { return path_; }
  std::string partial_path() const { return path_ + ".partial"; }
  bool parallel() const { return parallel_; }

  void create_group(const std::string& group);  // parents are created as needed

  // A dataset of `dims`; `max_dims` (0 means unlimited) and `chunk` make it extendible.
  // `deflate` 1 to 9 compresses the chunks (HDF5's shuffle, then deflate at that level;
  // needs `chunk`); 0 stores them as they are. Chunks are never pre-filled: every value
  // is written before the file is committed.
  template <class T>
  void create_dataset(const std::string& dataset, const std::vector<std::uint64_t>& dims,
                      const std::vector<std::uint64_t>& max_dims = {},
                      const std::vector<std::uint64_t>& chunk = {}, int deflate = 0);
  void extend(const std::string& dataset, const std::vector<std::uint64_t>& dims);

  // Each rank writes its own block: `offset` and `count` per dimension (a count of 0
  // writes nothing from that rank). `data` is row-major, count[0]*count[1]*... values.
  template <class T>
  void write_slab(const std::string& dataset, const std::vector<std::uint64_t>& offset,
                  const std::vector<std::uint64_t>& count, const T* data);

  // Where this rank's block of `dataset` starts in FILE.partial (a byte address), for
  // writing its bytes later with write_bytes_at (direct_rows.hpp) from any thread, without
  // HDF5 or MPI: in gathered mode (on any number of ranks) when every rank's block is whole
  // rows of a contiguous dataset that every rank sees; -1 otherwise, on every rank (then
  // write it with write_slab). Collective.
  template <class T>
  std::int64_t rows_address(const std::string& dataset, const std::vector<std::uint64_t>& offset,
                            const std::vector<std::uint64_t>& count);

  // A whole dataset whose values rank 0 holds (other ranks' values are ignored).
  template <class T>
  void write_array(const std::string& dataset, const std::vector<T>& values,
                   const std::vector<std::uint64_t>& dims = {});

  // For a writer in another thread (gathered mode only: parallel() is false). Not
  // collective: only the rank that holds the file (holds_file()) calls it, and no other
  // call on this file (or any HDF5 call) may run meanwhile. Grows `dataset` to `dims` and
  // writes the block at `offset` of `count` from `data`; throws RunError naming the file
  // and the dataset. The ranks then share the outcome with rethrow_agreed().
  template <class T>
  void extend_and_write_here(const std::string& dataset, const std::vector<std::uint64_t>& dims,
                             const std::vector<std::uint64_t>& offset,
                             const std::vector<std::uint64_t>& count, const T* data);
  bool holds_file() const { return file_ >= 0; }

  // A dataset of variable-length UTF-8 texts (netCDF's `string`, which h5py, xarray and
  // netCDF all read), written empty. Parallel HDF5 cannot write such data: only a file
  // that is not parallel() takes them (RunError otherwise). Collective. Defined in
  // output_text.cpp.
  void create_text_dataset(const std::string& dataset, const std::vector<std::uint64_t>& dims);
  // Writes the block at `offset` of `count` from `texts` (NUL-terminated, row-major). Not
  // collective, like extend_and_write_here: only the rank that holds the file calls it.
  void write_texts_here(const std::string& dataset, const std::vector<std::uint64_t>& offset,
                        const std::vector<std::uint64_t>& count, const char* const* texts);
  // Collective: if any rank passes a failure (from extend_and_write_here), every rank
  // throws the same CollectiveError (the lowest failing rank's message).
  void rethrow_agreed(const std::exception_ptr& failure);

  // Attributes of a group or dataset ("/" for the root); rank 0's value is written.
  void attribute(const std::string& object, const std::string& name, const std::string& value);
  void attribute(const std::string& object, const std::string& name, double value);
  void attribute(const std::string& object, const std::string& name, std::int64_t value);
  void attribute(const std::string& object, const std::string& name,
                 const std::vector<double>& values);

  // What readers other than trident's are told about a dataset, following netCDF-4 (named
  // dimensions as HDF5 dimension scales) and CF (`long_name`, `units`, `standard_name`,
  // flags). Not collective and no file access: every rank records it where the study
  // creates the dataset, and commit() writes it once, on rank 0, into the closed file
  // (output_description.hpp), so a stopped run is described like a finished one.
  //
  // `dimensions` names each dimension, outermost first; a name stands for one dimension
  // of the dataset's group. The 1-D dataset named like its dimension (/diffusion/time on
  // "time") is that dimension's coordinate; a dimension without one gets a netCDF
  // dimension-only scale. `units` is UDUNITS text ("1": dimensionless; "": unknown, and no
  // `units` attribute); `standard_name` is CF's, where one exists.
  void describe(const std::string& dataset, const std::vector<std::string>& dimensions,
                const std::string& long_name, const std::string& units,
                const std::string& standard_name = "");
  // CF flags of an integer dataset: `flag_values` (written in the dataset's own type) and
  // `flag_meanings` (one word for each value, separated by spaces).
  void describe_flags(const std::string& dataset, const std::vector<std::int64_t>& values,
                      const std::string& meanings);
  // A text attribute of a dataset or group written with the description (CF's
  // `coordinates`, a `comment`).
  void describe_text(const std::string& object, const std::string& name, const std::string& value);

 private:
  // Runs `work` (which touches the file on the ranks that hold it) so that a failure on
  // any rank throws the same CollectiveError on every rank.
  void agreed(const std::function<void()>& work);
  void close();
  void empty_for_discard();
  template <class T>
  void create_dataset_here(const std::string& dataset, const std::vector<std::uint64_t>& dims,
                           const std::vector<std::uint64_t>& max_dims,
                           const std::vector<std::uint64_t>& chunk, int deflate);
  // Gathered mode on several ranks: the byte address of `dataset` when every rank's block
  // is whole rows of it and it is contiguous (direct_rows.hpp), so that each rank writes
  // its own rows; -1 otherwise (the blocks are gathered on rank 0). Collective.
  std::int64_t direct_address(const std::string& dataset, const std::vector<std::uint64_t>& offset,
                              const std::vector<std::uint64_t>& count, hid_t memory_type);
  template <class T, class WriteLocal>
  void gather_slabs(const std::vector<std::uint64_t>& offset,
                    const std::vector<std::uint64_t>& count, const T* data,
                    const WriteLocal& write_local);

  MPI_Comm comm_;
  std::string path_;
  bool parallel_ = false;
  bool committed_ = false;
  hid_t file_ = -1;
  Description description_;
};

}  // namespace trident::io
