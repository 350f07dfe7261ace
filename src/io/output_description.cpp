// The description of an output file for netCDF and CF readers: recorded on every rank by
// OutputFile::describe*, written by rank 0 into the closed FILE.partial at commit(). The
// file is opened again on its own there, so HDF5's dimension scales (whose calls are not
// collective) never meet MPI-IO, and only metadata is written: the data stay as they are.
#include "io/output_description.hpp"

#include <hdf5.h>
#include <hdf5_hl.h>

#include <cstdio>
#include <stdexcept>

#include "io/h5_handle.hpp"
#include "io/output_file.hpp"

namespace trident::io {

DatasetDescription& Description::of(const std::string& dataset) {
  for (DatasetDescription& d : datasets)
    if (d.dataset == dataset) return d;
  datasets.push_back(DatasetDescription{});
  datasets.back().dataset = dataset;
  return datasets.back();
}

std::string dimension_only_name(std::uint64_t length) {
  char text[80];
  std::snprintf(text, sizeof text, "This is a netCDF dimension but not a netCDF variable.%10llu",
                static_cast<unsigned long long>(length));
  return text;
}

void OutputFile::describe(const std::string& dataset, const std::vector<std::string>& dimensions,
                          const std::string& long_name, const std::string& units,
                          const std::string& standard_name) {
  DatasetDescription& d = description_.of(dataset);
  d.dimensions = dimensions;
  d.long_name = long_name;
  d.units = units;
  d.standard_name = standard_name;
}

void OutputFile::describe_flags(const std::string& dataset, const std::vector<std::int64_t>& values,
                                const std::string& meanings) {
  DatasetDescription& d = description_.of(dataset);
  d.flags = true;
  d.flag_values = values;
  d.flag_meanings = meanings;
}

void OutputFile::describe_text(const std::string& object, const std::string& name, const std::string& value) {
  description_.texts.push_back({object, name, value});
}

namespace {

std::string group_of(const std::string& dataset) {
  const auto slash = dataset.find_last_of('/');
  return slash == 0 || slash == std::string::npos ? "/" : dataset.substr(0, slash);
}

std::string leaf_of(const std::string& dataset) { return dataset.substr(dataset.find_last_of('/') + 1); }

std::string child(const std::string& group, const std::string& name) {
  return group == "/" ? "/" + name : group + "/" + name;
}

// A described dataset opened, with its current and maximum extents.
struct OpenDataset {
  const DatasetDescription* description = nullptr;
  Handle id;
  std::vector<hsize_t> dims, max_dims;
};

// One named dimension of a group: its length, whether it may grow, and its scale (the
// coordinate dataset, or a dataset made for it).
struct Dimension {
  std::string group, name;
  hsize_t length = 0;
  bool unlimited = false;
  std::string seen_in;     // the first dataset that has it, for messages
  std::string coordinate;  // the dataset that is its coordinate; empty: none
  Handle scale;
};

Dimension& dimension_of(std::vector<Dimension>& dimensions, const std::string& group, const std::string& name) {
  for (Dimension& d : dimensions)
    if (d.group == group && d.name == name) return d;
  dimensions.push_back(Dimension{});
  dimensions.back().group = group;
  dimensions.back().name = name;
  return dimensions.back();
}

OpenDataset open_described(hid_t file, const std::string& path, const DatasetDescription& d) {
  OpenDataset o;
  o.description = &d;
  o.id = Handle(checked(H5Dopen2(file, d.dataset.c_str(), H5P_DEFAULT), path, "opening " + d.dataset));
  Handle space(H5Dget_space(o.id.get()));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0 || static_cast<std::size_t>(rank) != d.dimensions.size())
    throw std::logic_error(d.dataset + " has " + std::to_string(rank) + " dimensions but is described with " +
                           std::to_string(d.dimensions.size()));
  o.dims.resize(static_cast<std::size_t>(rank));
  o.max_dims.resize(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), o.dims.data(), o.max_dims.data());
  return o;
}

// Every dimension named by the datasets, its length checked to be the same in each.
std::vector<Dimension> dimensions_of(const std::vector<OpenDataset>& datasets) {
  std::vector<Dimension> dimensions;
  for (const OpenDataset& o : datasets) {
    const DatasetDescription& d = *o.description;
    const std::string group = group_of(d.dataset);
    for (std::size_t axis = 0; axis < d.dimensions.size(); ++axis) {
      Dimension& dim = dimension_of(dimensions, group, d.dimensions[axis]);
      if (dim.seen_in.empty()) {
        dim.seen_in = d.dataset;
        dim.length = o.dims[axis];
      } else if (dim.length != o.dims[axis]) {
        throw std::logic_error("dimension " + dim.name + " of " + group + " is " + std::to_string(dim.length) +
                               " long in " + dim.seen_in + " but " + std::to_string(o.dims[axis]) + " in " +
                               d.dataset);
      }
      dim.unlimited = dim.unlimited || o.max_dims[axis] == H5S_UNLIMITED;
    }
    if (d.dimensions.size() == 1 && leaf_of(d.dataset) == d.dimensions[0])
      dimension_of(dimensions, group, d.dimensions[0]).coordinate = d.dataset;
  }
  return dimensions;
}

// A dimension without a coordinate: a dataset of its length that stores nothing (no value
// is written, so no storage is allocated), marked the way netCDF marks such dimensions.
Handle dimension_only_scale(hid_t file, const std::string& path, const Dimension& dim) {
  const std::string name = child(dim.group, dim.name);
  if (H5Lexists(file, name.c_str(), H5P_DEFAULT) > 0)
    throw std::logic_error(name + " exists but is not described as the coordinate of dimension " + dim.name);
  const hsize_t length = dim.length, max_length = dim.unlimited ? H5S_UNLIMITED : dim.length;
  Handle space(H5Screate_simple(1, &length, &max_length));
  Handle dcpl(H5Pcreate(H5P_DATASET_CREATE));
  if (dim.unlimited) {
    const hsize_t chunk = 1024;
    H5Pset_chunk(dcpl.get(), 1, &chunk);
  }
  Handle scale(checked(H5Dcreate2(file, name.c_str(), H5T_IEEE_F32BE, space.get(), H5P_DEFAULT, dcpl.get(),
                                  H5P_DEFAULT),
                       path, "creating the dimension " + name));
  checked_status(H5DSset_scale(scale.get(), dimension_only_name(dim.length).c_str()), path,
                 "making " + name + " a dimension scale");
  return scale;
}

void write_attributes(hid_t dataset, const std::string& path, const DatasetDescription& d) {
  write_text_attribute(dataset, "long_name", d.long_name, path);
  if (!d.units.empty()) write_text_attribute(dataset, "units", d.units, path);
  if (!d.standard_name.empty()) write_text_attribute(dataset, "standard_name", d.standard_name, path);
  if (!d.flags) return;
  // CF wants flag_values in the dataset's own type; HDF5 converts from int64 as it writes
  if (H5Aexists(dataset, "flag_values") > 0) H5Adelete(dataset, "flag_values");
  Handle type(H5Dget_type(dataset));
  const hsize_t count = d.flag_values.size();
  Handle space(H5Screate_simple(1, &count, nullptr));
  Handle a(checked(H5Acreate2(dataset, "flag_values", type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), path,
                   "creating attribute flag_values of " + d.dataset));
  checked_status(H5Awrite(a.get(), H5T_NATIVE_INT64, d.flag_values.data()), path,
                 "writing attribute flag_values of " + d.dataset);
  write_text_attribute(dataset, "flag_meanings", d.flag_meanings, path);
}

}  // namespace

void write_description(const std::string& partial, const std::string& path, const Description& description) {
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS));
  H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST);  // as the file was made
  Handle file(checked(H5Fopen(partial.c_str(), H5F_ACC_RDWR, fapl.get()), path, "opening " + partial + " again"));
  std::vector<OpenDataset> datasets;
  for (const DatasetDescription& d : description.datasets) datasets.push_back(open_described(file.get(), path, d));
  std::vector<Dimension> dimensions = dimensions_of(datasets);
  for (Dimension& dim : dimensions) {
    if (dim.coordinate.empty()) {
      dim.scale = dimension_only_scale(file.get(), path, dim);
      continue;
    }
    dim.scale = Handle(checked(H5Dopen2(file.get(), dim.coordinate.c_str(), H5P_DEFAULT), path,
                               "opening " + dim.coordinate));
    checked_status(H5DSset_scale(dim.scale.get(), dim.name.c_str()), path,
                   "making " + dim.coordinate + " a dimension scale");
  }
  for (const OpenDataset& o : datasets) {
    const DatasetDescription& d = *o.description;
    const std::string group = group_of(d.dataset);
    for (std::size_t axis = 0; axis < d.dimensions.size(); ++axis) {
      const Dimension& dim = dimension_of(dimensions, group, d.dimensions[axis]);
      if (dim.coordinate == d.dataset) continue;  // a scale is not attached to itself
      checked_status(H5DSattach_scale(o.id.get(), dim.scale.get(), static_cast<unsigned>(axis)), path,
                     "attaching dimension " + dim.name + " to " + d.dataset);
    }
    write_attributes(o.id.get(), path, d);
  }
  for (const TextAttribute& t : description.texts) {
    Handle object(checked(H5Oopen(file.get(), t.object.c_str(), H5P_DEFAULT), path, "opening " + t.object));
    write_text_attribute(object.get(), t.name, t.value, path);
  }
  datasets.clear();
  for (Dimension& dim : dimensions) dim.scale.reset();
  checked_status(H5Fclose(file.release()), path, "closing " + partial);
}

}  // namespace trident::io
