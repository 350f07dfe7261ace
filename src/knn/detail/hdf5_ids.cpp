#include "knn/detail/hdf5_ids.hpp"

#include <hdf5.h>

#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/h5_handle.hpp"
#include "io/input_file.hpp"

namespace trident::knn {

namespace {

std::string where(const PointSource& source) {
  return source.file + ": dataset " + source.ids + " (" + source.ids_key() + ")";
}

// The ids dataset opened with the raw API (io::InputFile reads numbers only), after
// InputFile has named a missing file or dataset.
struct IdsDataset {
  io::Handle file, dataset, type;
  H5T_class_t type_class = H5T_NO_CLASS;
};

IdsDataset open_ids(const PointSource& source) {
  const io::InputFile input(source.file, "point file of " + source.key);
  if (!input.has(source.ids))
    throw InputError(source.file + ": the point file of " + source.key + " has no dataset '" + source.ids + "' (" +
                     source.ids_key() + ")");
  IdsDataset d;
  d.file = io::Handle(H5Fopen(source.file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  d.dataset = io::Handle(d.file.valid() ? H5Dopen2(d.file.get(), source.ids.c_str(), H5P_DEFAULT) : -1);
  if (!d.dataset.valid()) throw InputError(where(source) + ": not a dataset");
  d.type = io::Handle(H5Dget_type(d.dataset.get()));
  d.type_class = H5Tget_class(d.type.get());
  return d;
}

void select(const IdsDataset& d, std::int64_t first, std::int64_t count, io::Handle& file_space,
            io::Handle& memory_space) {
  file_space = io::Handle(H5Dget_space(d.dataset.get()));
  const hsize_t offset = static_cast<hsize_t>(first), n = static_cast<hsize_t>(count);
  H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &offset, nullptr, &n, nullptr);
  memory_space = io::Handle(H5Screate_simple(1, &n, nullptr));
}

PointIds read_integers(const PointSource& source, const IdsDataset& d, std::int64_t first, std::int64_t count) {
  std::vector<std::int64_t> ids(static_cast<std::size_t>(count));
  io::Handle file_space, memory_space;
  select(d, first, count, file_space, memory_space);
  // unsigned 64-bit ids are read as they are and checked: HDF5 would clip them to int64
  const bool unsigned64 = H5Tget_sign(d.type.get()) == H5T_SGN_NONE && H5Tget_size(d.type.get()) >= 8;
  const hid_t memory_type = unsigned64 ? H5T_NATIVE_UINT64 : H5T_NATIVE_INT64;
  if (H5Dread(d.dataset.get(), memory_type, memory_space.get(), file_space.get(), H5P_DEFAULT, ids.data()) < 0)
    throw InputError(where(source) + ": cannot be read");
  if (unsigned64) {
    for (std::int64_t i = 0; i < count; ++i) {
      const auto v = static_cast<std::uint64_t>(ids[static_cast<std::size_t>(i)]);
      if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        throw InputError(where(source) + ": entry " + std::to_string(first + i) + " is " + std::to_string(v) +
                         ", beyond the 64-bit signed integers ids are kept as");
    }
  }
  return PointIds::from_integers(std::move(ids));
}

PointIds read_texts(const PointSource& source, const IdsDataset& d, std::int64_t first, std::int64_t count) {
  io::Handle file_space, memory_space;
  select(d, first, count, file_space, memory_space);
  io::Handle memory_type(H5Tcopy(d.type.get()));  // same length, padding and character set
  PointIds ids = PointIds::empty(PointIds::Kind::text);
  const auto n = static_cast<std::size_t>(count);
  if (H5Tis_variable_str(d.type.get()) > 0) {
    std::vector<char*> texts(n, nullptr);
    if (H5Dread(d.dataset.get(), memory_type.get(), memory_space.get(), file_space.get(), H5P_DEFAULT,
                texts.data()) < 0)
      throw InputError(where(source) + ": cannot be read");
    for (const char* t : texts) ids.add_text(t != nullptr ? std::string_view(t) : std::string_view());
    H5Dvlen_reclaim(memory_type.get(), memory_space.get(), H5P_DEFAULT, texts.data());
  } else {
    const std::size_t width = H5Tget_size(d.type.get());
    std::vector<char> buffer(n * width);
    if (H5Dread(d.dataset.get(), memory_type.get(), memory_space.get(), file_space.get(), H5P_DEFAULT,
                buffer.data()) < 0)
      throw InputError(where(source) + ": cannot be read");
    const bool space_padded = H5Tget_strpad(d.type.get()) == H5T_STR_SPACEPAD;
    for (std::size_t i = 0; i < n; ++i) {
      std::string_view t(buffer.data() + i * width, width);
      t = t.substr(0, t.find('\0'));
      if (space_padded) t = t.substr(0, t.find_last_not_of(' ') + 1);
      ids.add_text(t);
    }
  }
  for (std::int64_t i = 0; i < count; ++i)
    if (ids.text_view(i).empty())
      throw InputError(where(source) + ": entry " + std::to_string(first + i) +
                       " is empty; every point needs an id (an empty one marks an unfinished row in the output)");
  return ids;
}

}  // namespace

void check_hdf5_ids(const PointSource& source, std::int64_t points) {
  const IdsDataset d = open_ids(source);
  io::Handle space(H5Dget_space(d.dataset.get()));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank > 0 ? rank : 0));
  if (rank > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  if (rank != 1 || dims[0] != static_cast<hsize_t>(points)) {
    std::string shape;
    for (auto n : dims) shape += (shape.empty() ? "" : " x ") + std::to_string(n);
    throw InputError(where(source) + ": expected " + std::to_string(points) + " ids, one for each point of " +
                     source.dataset + ", got " + (rank == 0 ? std::string("a scalar") : rank == 1 ? shape + " ids" : shape));
  }
  if (d.type_class != H5T_INTEGER && d.type_class != H5T_STRING)
    throw InputError(where(source) + ": expected integers or texts, got " +
                     (d.type_class == H5T_FLOAT ? std::string("floating-point numbers") : std::string("another type")));
}

PointIds read_hdf5_ids(const PointSource& source, std::int64_t first, std::int64_t count) {
  const IdsDataset d = open_ids(source);
  if (count <= 0)
    return PointIds::empty(d.type_class == H5T_STRING ? PointIds::Kind::text : PointIds::Kind::integer);
  if (d.type_class == H5T_STRING) return read_texts(source, d, first, count);
  return read_integers(source, d, first, count);
}

}  // namespace trident::knn
