// Reading A's CSR group and b's dataset through io::InputFile: one-dimensional slabs, index
// arrays narrowed to int with each value checked, the group's structure checked before any
// entry is read.
#include "ridge/detail/hdf5_csr.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/host_threads.hpp"
#include "core/uninitialized_vector.hpp"
#include "io/reserve_huge.hpp"
#include "io/input_file.hpp"

namespace trident::ridge {

namespace {

std::string join(const std::string& group, const std::string& name) {
  return group.empty() || group.back() == '/' ? group + name : group + "/" + name;
}

// The entries of a dataset of dimensions `dims` that must be one-dimensional (or N x 1).
std::uint64_t one_dimensional_length(const io::InputFile& in, const std::string& name,
                                     const std::vector<std::uint64_t>& dims) {
  std::uint64_t count = 1;
  for (const std::uint64_t d : dims) count *= d;
  if (dims.size() > 1 && count != dims[0])
    throw InputError(in.path() + ": " + name + " must be one-dimensional, it has " + std::to_string(dims.size()) +
                     " dimensions");
  return count;
}

// Entries [first, first + count) of a one-dimensional dataset as `type` (an HDF5 native
// type matching T), in a std::vector or (for the matrix's arrays) a core::UninitializedVector,
// which the read itself first touches. The whole dataset is read without a selection.
template <class T, class Vector = std::vector<T>>
Vector read_slab(const io::InputFile& in, const std::string& name, hid_t type, std::uint64_t first,
                 std::uint64_t count) {
  const std::vector<std::uint64_t> dims = in.dims(name);
  const std::uint64_t total = one_dimensional_length(in, name, dims);
  Vector out;
  io::reserve_huge(out, count);  // first-touch page faults cost more than the read
  out.resize(count);
  if (count == 0) return out;
  std::vector<std::uint64_t> offset, extent;
  if (count != total) {  // a part: rows of an N x 1 dataset too
    offset.assign(dims.size(), 0);
    extent.assign(dims.size(), 1);
    offset[0] = first;
    extent[0] = count;
  }
  in.read_into(name, offset, extent, type, out.data());
  return out;
}

template <class Vector>
Vector read_doubles(const io::InputFile& in, const std::string& name, std::uint64_t first, std::uint64_t count) {
  return read_slab<double, Vector>(in, name, H5T_NATIVE_DOUBLE, first, count);
}

std::vector<long long> read_wide_integers(const io::InputFile& in, const std::string& name) {
  return read_slab<long long>(in, name, H5T_NATIVE_LLONG, 0, hdf5_vector_length(in, name));
}

// A slab of an index array (row_ptr, col_ind) as int, each value checked to lie in
// [0, high]: read straight into int when it is stored in 32 signed bits or fewer (scipy's
// int32), else through long long, so that a value beyond int's range is still reported as
// written. `label` names the array; `first` numbers its entries in messages.
core::UninitializedVector<int> index_slab(const io::InputFile& in, const std::string& name, std::size_t first,
                                          std::size_t count, long long high, const std::string& source,
                                          const std::string& label) {
  auto bad = [&](std::size_t k, long long v) {
    return InputError(source + ": " + label + "[" + std::to_string(first + k) + "] = " + std::to_string(v) +
                      " lies outside 0.." + std::to_string(high));
  };
  // Checked by ranges on the host's CPUs; the lowest range reports first, so the error
  // names the first bad entry.
  const auto check = [&](const auto& values) {
    core::host_parallel_ranges(static_cast<std::int64_t>(values.size()), std::int64_t(1) << 16,
                               [&](const std::int64_t begin, const std::int64_t end) {
                                 for (std::int64_t k = begin; k < end; ++k)
                                   if (values[k] < 0 || values[k] > high) throw bad(std::size_t(k), values[k]);
                               });
  };
  if (in.fits_int32(name)) {
    core::UninitializedVector<int> out =
        read_slab<int, core::UninitializedVector<int>>(in, name, H5T_NATIVE_INT, first, count);
    check(out);
    return out;
  }
  const auto wide = read_slab<long long, core::UninitializedVector<long long>>(in, name, H5T_NATIVE_LLONG, first, count);
  check(wide);
  core::UninitializedVector<int> out;
  io::reserve_huge(out, wide.size());
  out.assign(wide.begin(), wide.end());
  return out;
}

void check_finite(const std::vector<double>& b, const std::string& source, std::int64_t first) {
  for (std::size_t i = 0; i < b.size(); ++i)
    if (!std::isfinite(b[i]))
      throw InputError(source + ": entry " + std::to_string(first + std::int64_t(i)) + " (0-based) is not finite (" +
                       std::to_string(b[i]) + ")");
}

}  // namespace

std::uint64_t hdf5_vector_length(const io::InputFile& in, const std::string& dataset) {
  return one_dimensional_length(in, dataset, in.dims(dataset));
}

Hdf5CsrIndex read_hdf5_index(const io::InputFile& in, const std::string& group) {
  const std::string& file = in.path();
  const std::string source = file + ":" + group;
  if (!in.has(group)) throw InputError(file + ": no CSR group " + group);
  std::vector<long long> shape;
  for (const std::int64_t n : in.integer_attribute_values(group, "shape")) shape.push_back(n);
  if (shape.empty() && in.has(join(group, "shape"))) shape = read_wide_integers(in, join(group, "shape"));
  if (shape.size() != 2)
    throw InputError(source + ": expected the shape [rows, columns] as an attribute 'shape' of the group or a "
                              "dataset 'shape' in it");
  if (shape[0] < 1 || shape[1] < 1 || shape[0] > std::numeric_limits<int>::max() ||
      shape[1] > std::numeric_limits<int>::max())
    throw InputError(source + ": expected a shape of 1 to 2^31-1 rows and columns, got [" +
                     std::to_string(shape[0]) + ", " + std::to_string(shape[1]) + "]");
  Hdf5CsrIndex index;
  index.rows = shape[0];
  index.columns = shape[1];
  const auto nonzeros = static_cast<long long>(hdf5_vector_length(in, join(group, "col_ind")));
  const std::vector<long long> offsets = read_wide_integers(in, join(group, "row_ptr"));
  for (std::size_t k = 0; k < offsets.size(); ++k)
    if (offsets[k] < 0 || offsets[k] > nonzeros)
      throw InputError(source + ": row_ptr[" + std::to_string(k) + "] = " + std::to_string(offsets[k]) +
                       " lies outside 0.." + std::to_string(nonzeros));
  // The checks validate() makes of the whole structure, in its order and words.
  if (offsets.size() != static_cast<std::size_t>(index.rows) + 1)
    throw InputError(source + ": expected " + std::to_string(index.rows + 1) + " row offsets (rows + 1), got " +
                     std::to_string(offsets.size()));
  const auto values = static_cast<long long>(hdf5_vector_length(in, join(group, "values")));
  if (values != nonzeros)
    throw InputError(source + ": expected as many column indices as values, got " + std::to_string(nonzeros) +
                     " and " + std::to_string(values));
  if (offsets.front() != 0 || offsets.back() != nonzeros)
    throw InputError(source + ": expected row offsets from 0 to " + std::to_string(nonzeros) +
                     " (the number of values), got " + std::to_string(offsets.front()) + " to " +
                     std::to_string(offsets.back()));
  for (std::int64_t i = 0; i < index.rows; ++i)
    if (offsets[i + 1] < offsets[i])
      throw InputError(source + ": row offsets decrease at row " + std::to_string(i + 1));
  index.offsets.assign(offsets.begin(), offsets.end());
  return index;
}

HostCsr read_hdf5_rows(const io::InputFile& in, const std::string& group, const Hdf5CsrIndex& index,
                       std::int64_t first, std::int64_t count) {
  const std::string source = in.path() + ":" + group;
  const std::int64_t begin = index.offsets[first], end = index.offsets[first + count];
  if (end - begin > std::numeric_limits<int>::max())
    throw InputError(source + ": rows " + std::to_string(first + 1) + " to " + std::to_string(first + count) +
                     " hold " + std::to_string(end - begin) +
                     " nonzeros, more than one rank can hold (2^31-1, 32-bit offsets); run on more ranks");
  HostCsr a;
  a.rows = static_cast<int>(count);
  a.columns = static_cast<int>(index.columns);
  a.row_ptr.resize(static_cast<std::size_t>(count) + 1);
  for (std::int64_t i = 0; i <= count; ++i) a.row_ptr[i] = static_cast<int>(index.offsets[first + i] - begin);
  const auto b = static_cast<std::size_t>(begin), n = static_cast<std::size_t>(end - begin);
  a.col_ind = index_slab(in, join(group, "col_ind"), b, n, index.columns - 1, source, "col_ind");
  a.values = read_doubles<core::UninitializedVector<double>>(in, join(group, "values"), b, n);
  validate_rows(a, source, first);
  return a;
}

HostCsr read_hdf5_csr(const std::string& file, const std::string& group) {
  const io::InputFile in(file, kMatrixFileRole);
  const Hdf5CsrIndex index = read_hdf5_index(in, group);
  return read_hdf5_rows(in, group, index, 0, index.rows);
}

std::vector<double> read_hdf5_vector_rows(const io::InputFile& in, const std::string& dataset, std::int64_t first,
                                          std::int64_t count) {
  std::vector<double> b = read_doubles<std::vector<double>>(in, dataset, static_cast<std::uint64_t>(first),
                                                            static_cast<std::uint64_t>(count));
  check_finite(b, in.path() + ":" + dataset, first);
  return b;
}

std::vector<double> read_hdf5_vector(const std::string& file, const std::string& dataset) {
  const io::InputFile in(file, kRhsFileRole);
  return read_hdf5_vector_rows(in, dataset, 0, static_cast<std::int64_t>(hdf5_vector_length(in, dataset)));
}

}  // namespace trident::ridge
