// Attributes of an output file's groups and datasets (text, numbers, lists of numbers):
// rank 0's value is written by the rank that holds the file, replacing one of that name.
#include "io/output_file.hpp"

#include "core/comm.hpp"
#include "io/h5_handle.hpp"

namespace trident::io {

namespace {

void replace_attribute(hid_t object, const std::string& name) {
  if (H5Aexists(object, name.c_str()) > 0) H5Adelete(object, name.c_str());
}

void write_text_at(hid_t file, const std::string& path, const std::string& object,
                   const std::string& name, const std::string& text) {
  Handle o(checked(H5Oopen(file, object.c_str(), H5P_DEFAULT), path, "opening " + object));
  write_text_attribute(o.get(), name, text, path);
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
    if (holds_file()) write_text_at(file_, path_, object, name, text);
  });
}

void OutputFile::attribute(const std::string& object, const std::string& name, double value) {
  mpi::broadcast(comm_, &value, 1);
  agreed([&] {
    if (holds_file()) write_number_attribute(file_, path_, object, name, &value, 1, true);
  });
}

void OutputFile::attribute(const std::string& object, const std::string& name,
                           std::int64_t value) {
  mpi::broadcast(comm_, &value, 1);
  agreed([&] {
    if (holds_file()) write_number_attribute(file_, path_, object, name, &value, 1, true);
  });
}

void OutputFile::attribute(const std::string& object, const std::string& name,
                           const std::vector<double>& values) {
  std::uint64_t n = values.size();
  mpi::broadcast(comm_, &n, 1);
  std::vector<double> v(values);
  v.resize(n);
  mpi::broadcast(comm_, v.data(), static_cast<int>(n));
  agreed([&] {
    if (holds_file()) write_number_attribute(file_, path_, object, name, v.data(), n, false);
  });
}

}  // namespace trident::io
