#pragma once
// Rows of a contiguous dataset written by each rank straight into the file (gathered mode:
// serial HDF5, or --gathered-io). The file stays rank 0's to create, describe and close;
// each rank only writes its own rows' bytes where HDF5 placed the dataset's storage, so
// no rank sends its rows to rank 0 and no copy is made: gathered on rank 0, the rows of
// two ranks took longer to write than one rank's writing all of them (docs/history/core.md).
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace trident::io {

// Where a dataset's values start in the file, for writing them without HDF5: the byte
// address of a contiguous (not chunked, not filtered) dataset whose storage is allocated
// and whose file type is the native type `memory_type`, with its dims; address -1 when
// it is not such a dataset. Local to the rank that holds the file; throws RunError
// naming `path` and the dataset when it cannot be opened.
struct DirectTarget {
  std::int64_t address = -1;
  std::vector<std::uint64_t> dims;
};
DirectTarget direct_target(hid_t file, const std::string& path, const std::string& dataset, hid_t memory_type);

// Whether a block at `offset` of `count` is whole rows of a dataset of `dims` (every
// dimension after the first taken whole, the rows inside the dataset): then its values
// are one run of bytes in a contiguous dataset.
bool whole_rows(const std::vector<std::uint64_t>& dims, const std::vector<std::uint64_t>& offset,
                const std::vector<std::uint64_t>& count);

// Whether the 8 bytes at byte `at` of the file `partial` hold `mark`: false when the file
// cannot be opened or read there. Before the ranks write into rank 0's file, rank 0 puts
// a random mark where the dataset starts and every rank looks for it, so that a rank that
// sees another file of that name (node-local storage on another node) or none sends its
// rows to rank 0 instead of writing elsewhere. Rank 0 then puts back the bytes the mark
// covered (word_at), since a dataset written in several calls holds rows of earlier calls
// there.
bool holds_mark(const std::string& partial, std::uint64_t at, std::uint64_t mark);

// The 8 bytes at byte `at` of the file `partial`, zeros for those past its end (storage
// HDF5 placed but nothing wrote yet). Throws RunError("PATH: reading DATASET back failed
// (REASON)") naming the output's final `path` when the file cannot be opened or read.
std::uint64_t word_at(const std::string& partial, const std::string& path, const std::string& dataset,
                      std::uint64_t at);

// Writes `bytes` from `data` at byte `at` of the file `partial` (pwrite, no HDF5), then
// closes it, so that a rank on another node has its bytes on the file system before rank
// 0 closes the file. Throws RunError("PATH: writing DATASET failed (REASON)") naming the
// output's final `path`.
void write_bytes_at(const std::string& partial, const std::string& path, const std::string& dataset,
                    std::uint64_t at, const void* data, std::uint64_t bytes);

}  // namespace trident::io
