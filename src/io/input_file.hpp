#pragma once
// Read-only access to an HDF5 input (start fields, checkpoints, point sets, matrices).
// Each rank opens the file on its own; errors name the file and the dataset.
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace trident::io {

class InputFile {
 public:
  // Throws InputError when the file is missing or not HDF5. `role` says what it is for
  // in messages ("start field file", "checkpoint").
  InputFile(std::string path, std::string role);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& path() const { return path_; }
  bool has(const std::string& object) const;
  // Dimensions of a dataset; InputError if it does not exist.
  std::vector<std::uint64_t> dims(const std::string& dataset) const;
  // Reads a block (converted to T by HDF5). An empty offset/count reads everything.
  template <class T>
  std::vector<T> read(const std::string& dataset, const std::vector<std::uint64_t>& offset = {},
                      const std::vector<std::uint64_t>& count = {}) const;
  // Reads a block into `out` (room for the block's values) as `memory_type`, an HDF5 native
  // type: no conversion, at the disk's speed, when it is the stored type.
  void read_into(const std::string& dataset, const std::vector<std::uint64_t>& offset,
                 const std::vector<std::uint64_t>& count, hid_t memory_type, void* out) const;
  // Bytes of a floating-point dataset's values (4 or 8); 0 for other types.
  std::size_t float_size(const std::string& dataset) const;
  // Whether a dataset holds integers that int32 holds exactly (signed of 32 bits or fewer,
  // unsigned of fewer), so that they can be read straight into int32.
  bool fits_int32(const std::string& dataset) const;
  bool has_attribute(const std::string& object, const std::string& name) const;
  std::string string_attribute(const std::string& object, const std::string& name) const;
  double real_attribute(const std::string& object, const std::string& name) const;
  std::int64_t integer_attribute(const std::string& object, const std::string& name) const;
  // Every value of an integer attribute (a shape, say); empty when the object has none of
  // that name.
  std::vector<std::int64_t> integer_attribute_values(const std::string& object, const std::string& name) const;
  // Every value of a real attribute (an origin, say); empty when the object has none of that name.
  std::vector<double> real_attribute_values(const std::string& object, const std::string& name) const;

 private:
  std::string path_, role_;
  hid_t file_ = -1;
};

// The one wording of a non-finite value in an HDF5 input:
// "FILE: dataset 'NAME': cell (12, 40) is not finite (nan)", the cell's indices counted
// from 0 in the dataset's own order, as h5py's dataset[12, 40] (one index for a 1-D
// dataset: "entry 12"); the value shown as nan, inf or -inf.
std::string not_finite_message(const std::string& file, const std::string& dataset,
                               const std::vector<std::uint64_t>& cell, double value);

}  // namespace trident::io
