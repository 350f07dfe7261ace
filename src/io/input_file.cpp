#include "io/input_file.hpp"

#include <unistd.h>

#include <cmath>

#include "core/error.hpp"
#include "io/h5_handle.hpp"
#include "io/reserve_huge.hpp"
#include "io/output_file.hpp"

namespace trident::io {

InputFile::InputFile(std::string path, std::string role)
    : path_(std::move(path)), role_(std::move(role)) {
  silence_hdf5_errors();
  if (access(path_.c_str(), R_OK) != 0)
    throw InputError(path_ + ": cannot open the " + role_ + " (does it exist and is it readable?)");
  if (H5Fis_hdf5(path_.c_str()) <= 0)
    throw InputError(path_ + ": the " + role_ + " is not an HDF5 file");
  file_ = H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file_ < 0) throw InputError(path_ + ": cannot open the " + role_ + " as HDF5");
}

InputFile::~InputFile() {
  if (file_ >= 0) H5Fclose(file_);
}

bool InputFile::has(const std::string& object) const {
  // H5Lexists fails on a missing intermediate group: walk the path one link at a time.
  std::size_t begin = object[0] == '/' ? 1 : 0;
  while (begin <= object.size()) {
    std::size_t end = object.find('/', begin);
    if (end == std::string::npos) end = object.size();
    const std::string prefix = object.substr(0, end);
    if (!prefix.empty() && prefix != "/" && H5Lexists(file_, prefix.c_str(), H5P_DEFAULT) <= 0)
      return false;
    begin = end + 1;
  }
  return true;
}

std::vector<std::uint64_t> InputFile::dims(const std::string& dataset) const {
  if (!has(dataset)) throw InputError(path_ + ": the " + role_ + " has no dataset '" + dataset + "'");
  Handle d(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT));
  if (!d.valid()) throw InputError(path_ + ": '" + dataset + "' in the " + role_ + " is not a dataset");
  Handle space(H5Dget_space(d.get()));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> size(static_cast<std::size_t>(rank > 0 ? rank : 0));
  if (rank > 0) H5Sget_simple_extent_dims(space.get(), size.data(), nullptr);
  return std::vector<std::uint64_t>(size.begin(), size.end());
}

void InputFile::read_into(const std::string& dataset, const std::vector<std::uint64_t>& offset,
                          const std::vector<std::uint64_t>& count, hid_t memory_type, void* out) const {
  const std::vector<std::uint64_t> shape = dims(dataset);
  Handle d(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT));
  Handle type(H5Dget_type(d.get()));
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (type_class != H5T_INTEGER && type_class != H5T_FLOAT)
    throw InputError(path_ + ": '" + dataset + "' in the " + role_ + " is not numeric");
  Handle file_space(H5Dget_space(d.get()));
  std::vector<hsize_t> c(shape.begin(), shape.end());
  if (!count.empty()) {
    std::vector<hsize_t> o(offset.begin(), offset.end());
    c.assign(count.begin(), count.end());
    H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, o.data(), nullptr, c.data(), nullptr);
  }
  std::uint64_t n = 1;
  for (auto x : c) n *= x;
  if (n == 0) return;
  Handle memory_space(H5Screate_simple(static_cast<int>(c.size()), c.data(), nullptr));
  if (H5Dread(d.get(), memory_type, memory_space.get(), file_space.get(), H5P_DEFAULT, out) < 0)
    throw InputError(path_ + ": cannot read '" + dataset + "' from the " + role_);
}

std::size_t InputFile::float_size(const std::string& dataset) const {
  dims(dataset);  // names a missing dataset
  Handle d(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT));
  Handle type(H5Dget_type(d.get()));
  return H5Tget_class(type.get()) == H5T_FLOAT ? H5Tget_size(type.get()) : 0;
}

bool InputFile::fits_int32(const std::string& dataset) const {
  dims(dataset);  // names a missing dataset
  Handle d(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT));
  Handle type(H5Dget_type(d.get()));
  if (H5Tget_class(type.get()) != H5T_INTEGER) return false;
  const std::size_t size = H5Tget_size(type.get());
  return size < 4 || (size == 4 && H5Tget_sign(type.get()) == H5T_SGN_2);
}

template <class T>
std::vector<T> InputFile::read(const std::string& dataset, const std::vector<std::uint64_t>& offset,
                               const std::vector<std::uint64_t>& count) const {
  std::uint64_t n = 1;
  for (auto x : count.empty() ? dims(dataset) : count) n *= x;
  std::vector<T> out;
  reserve_huge(out, n);
  out.resize(n);
  read_into(dataset, offset, count, h5_type<T>(), out.data());
  return out;
}

namespace {
Handle open_attribute(hid_t file, const std::string& path, const std::string& role,
                      const std::string& object, const std::string& name) {
  Handle o(H5Oopen(file, object.c_str(), H5P_DEFAULT));
  if (!o.valid() || H5Aexists(o.get(), name.c_str()) <= 0)
    throw InputError(path + ": the " + role + " has no attribute '" + name + "' on '" + object + "'");
  return Handle(H5Aopen(o.get(), name.c_str(), H5P_DEFAULT));
}
}  // namespace

bool InputFile::has_attribute(const std::string& object, const std::string& name) const {
  Handle o(H5Oopen(file_, object.c_str(), H5P_DEFAULT));
  return o.valid() && H5Aexists(o.get(), name.c_str()) > 0;
}

std::string InputFile::string_attribute(const std::string& object, const std::string& name) const {
  Handle a = open_attribute(file_, path_, role_, object, name);
  Handle type(H5Aget_type(a.get()));
  if (H5Tget_class(type.get()) != H5T_STRING)
    throw InputError(path_ + ": attribute '" + name + "' of the " + role_ + " is not text");
  if (H5Tis_variable_str(type.get()) > 0) {
    char* text = nullptr;  // read with the file's own type: no character-set conversion
    if (H5Aread(a.get(), type.get(), &text) < 0)
      throw InputError(path_ + ": cannot read attribute '" + name + "' of the " + role_);
    std::string out = text ? text : "";
    H5free_memory(text);
    return out;
  }
  const std::size_t size = H5Tget_size(type.get());
  std::string out(size, '\0');
  H5Aread(a.get(), type.get(), out.data());
  return out.substr(0, out.find('\0'));
}

double InputFile::real_attribute(const std::string& object, const std::string& name) const {
  Handle a = open_attribute(file_, path_, role_, object, name);
  double v = 0;
  H5Aread(a.get(), H5T_NATIVE_DOUBLE, &v);
  return v;
}

std::int64_t InputFile::integer_attribute(const std::string& object, const std::string& name) const {
  Handle a = open_attribute(file_, path_, role_, object, name);
  std::int64_t v = 0;
  H5Aread(a.get(), H5T_NATIVE_INT64, &v);
  return v;
}

std::vector<std::int64_t> InputFile::integer_attribute_values(const std::string& object,
                                                             const std::string& name) const {
  Handle o(H5Oopen(file_, object.c_str(), H5P_DEFAULT));
  if (!o.valid() || H5Aexists(o.get(), name.c_str()) <= 0) return {};
  Handle a(H5Aopen(o.get(), name.c_str(), H5P_DEFAULT));
  Handle space(H5Aget_space(a.get()));
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  std::vector<std::int64_t> out(static_cast<std::size_t>(count > 0 ? count : 0));
  if (count > 0 && H5Aread(a.get(), H5T_NATIVE_INT64, out.data()) < 0)
    throw InputError(path_ + ": attribute '" + name + "' of '" + object + "' in the " + role_ + " is not integers");
  return out;
}

std::vector<double> InputFile::real_attribute_values(const std::string& object, const std::string& name) const {
  Handle o(H5Oopen(file_, object.c_str(), H5P_DEFAULT));
  if (!o.valid() || H5Aexists(o.get(), name.c_str()) <= 0) return {};
  Handle a(H5Aopen(o.get(), name.c_str(), H5P_DEFAULT));
  Handle space(H5Aget_space(a.get()));
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  std::vector<double> out(static_cast<std::size_t>(count > 0 ? count : 0));
  if (count > 0 && H5Aread(a.get(), H5T_NATIVE_DOUBLE, out.data()) < 0)
    throw InputError(path_ + ": attribute '" + name + "' of '" + object + "' in the " + role_ + " is not numbers");
  return out;
}

std::string not_finite_message(const std::string& file, const std::string& dataset,
                               const std::vector<std::uint64_t>& cell, double value) {
  std::string where;
  for (const std::uint64_t i : cell) where += (where.empty() ? "" : ", ") + std::to_string(i);
  if (cell.size() != 1) where = "cell (" + where + ")";
  else where = "entry " + where;
  const char* shown = std::isnan(value) ? "nan" : value > 0 ? "inf" : "-inf";
  return file + ": dataset '" + dataset + "': " + where + " is not finite (" + shown + ")";
}

template std::vector<float> InputFile::read<float>(const std::string&, const std::vector<std::uint64_t>&,
                                                   const std::vector<std::uint64_t>&) const;
template std::vector<double> InputFile::read<double>(const std::string&, const std::vector<std::uint64_t>&,
                                                     const std::vector<std::uint64_t>&) const;
template std::vector<std::int32_t> InputFile::read<std::int32_t>(
    const std::string&, const std::vector<std::uint64_t>&, const std::vector<std::uint64_t>&) const;
template std::vector<std::int64_t> InputFile::read<std::int64_t>(
    const std::string&, const std::vector<std::uint64_t>&, const std::vector<std::uint64_t>&) const;

}  // namespace trident::io
