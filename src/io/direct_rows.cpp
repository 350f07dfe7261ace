#include "io/direct_rows.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.hpp"
#include "io/h5_handle.hpp"

namespace trident::io {

DirectTarget direct_target(hid_t file, const std::string& path, const std::string& dataset, hid_t memory_type) {
  DirectTarget target;
  Handle d(checked(H5Dopen2(file, dataset.c_str(), H5P_DEFAULT), path, "opening " + dataset));
  Handle dcpl(H5Dget_create_plist(d.get()));
  Handle type(H5Dget_type(d.get()));
  Handle space(H5Dget_space(d.get()));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 1 || H5Pget_layout(dcpl.get()) != H5D_CONTIGUOUS || H5Pget_nfilters(dcpl.get()) != 0 ||
      H5Tequal(type.get(), memory_type) <= 0)
    return target;
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  const haddr_t address = H5Dget_offset(d.get());  // HADDR_UNDEF: storage not allocated (or empty)
  if (address == HADDR_UNDEF) return target;
  target.address = static_cast<std::int64_t>(address);
  target.dims.assign(dims.begin(), dims.end());
  return target;
}

bool whole_rows(const std::vector<std::uint64_t>& dims, const std::vector<std::uint64_t>& offset,
                const std::vector<std::uint64_t>& count) {
  if (dims.empty() || offset.size() != dims.size() || count.size() != dims.size()) return false;
  if (offset[0] > dims[0] || count[0] > dims[0] - offset[0]) return false;
  for (std::size_t d = 1; d < dims.size(); ++d)
    if (offset[d] != 0 || count[d] != dims[d]) return false;
  return true;
}

namespace {

// Reads up to 8 bytes at byte `at` of `partial` into `word`, zeroed first (so a short read
// leaves the rest zero): the bytes read, or -1 with `error` set.
ssize_t read_word(const std::string& partial, std::uint64_t at, std::uint64_t& word, int& error) {
  word = 0;
  const int fd = open(partial.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = errno;
    return -1;
  }
  ssize_t got;
  do {
    got = pread(fd, &word, sizeof word, static_cast<off_t>(at));
  } while (got < 0 && errno == EINTR);
  error = errno;
  close(fd);
  return got;
}

}  // namespace

bool holds_mark(const std::string& partial, std::uint64_t at, std::uint64_t mark) {
  std::uint64_t found = 0;
  int error = 0;
  return read_word(partial, at, found, error) == static_cast<ssize_t>(sizeof found) && found == mark;
}

std::uint64_t word_at(const std::string& partial, const std::string& path, const std::string& dataset,
                      std::uint64_t at) {
  std::uint64_t word = 0;
  int error = 0;
  if (read_word(partial, at, word, error) < 0)
    throw RunError(path + ": reading " + dataset + " back failed (" + std::strerror(error) + ")");
  return word;
}

void write_bytes_at(const std::string& partial, const std::string& path, const std::string& dataset,
                    std::uint64_t at, const void* data, std::uint64_t bytes) {
  const auto fail = [&](int error) {
    throw RunError(path + ": writing " + dataset + " failed (" + std::strerror(error) + ")");
  };
  const int fd = open(partial.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail(errno);
  const char* p = static_cast<const char*>(data);
  std::uint64_t done = 0;
  while (done < bytes) {
    const std::uint64_t piece = std::min<std::uint64_t>(bytes - done, std::uint64_t(1) << 30);
    const ssize_t wrote = pwrite(fd, p + done, piece, static_cast<off_t>(at + done));
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      const int error = wrote < 0 ? errno : ENOSPC;  // 0 bytes written: nothing more fits
      close(fd);
      fail(error);
    }
    done += static_cast<std::uint64_t>(wrote);
  }
  if (close(fd) != 0 && errno != EINTR) fail(errno);  // (NFS reports a failed write here)
}

}  // namespace trident::io
