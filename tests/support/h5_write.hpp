#pragma once
// Writes a small HDF5 dataset with raw HDF5 calls, independent of trident's own readers
// and writers, for tests of the readers.
#include <hdf5.h>

#include <string>
#include <vector>

namespace trident::test {

// Creates (or truncates) `path` and writes `data` as dataset `name` of shape `dims`,
// stored as `file_type` (e.g. H5T_IEEE_F32LE to store float32), from `memory_type`.
template <class T>
void write_h5_dataset(const std::string& path, const std::string& name, const std::vector<hsize_t>& dims,
                      const std::vector<T>& data, hid_t memory_type, hid_t file_type) {
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  const hid_t d = H5Dcreate2(f, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (!data.empty()) H5Dwrite(d, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data());
  H5Dclose(d);
  H5Sclose(space);
  H5Fclose(f);
}

inline void write_h5_doubles(const std::string& path, const std::string& name,
                             const std::vector<hsize_t>& dims, const std::vector<double>& data) {
  write_h5_dataset(path, name, dims, data, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE);
}

}  // namespace trident::test
