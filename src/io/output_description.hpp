#pragma once
// The description an output file gives readers other than trident's (netCDF, xarray, CF
// tools): each dataset's named dimensions and its CF attributes, recorded while the run
// writes (OutputFile::describe) and written into the closed file by write_description.
#include <cstdint>
#include <string>
#include <vector>

namespace trident::io {

struct DatasetDescription {
  std::string dataset;                  // full path, "/diffusion/field"
  std::vector<std::string> dimensions;  // one name for each dimension, outermost first
  std::string long_name;
  std::string units;                    // empty: unknown, no attribute
  std::string standard_name;            // empty: none
  bool flags = false;                   // CF flag_values / flag_meanings below
  std::vector<std::int64_t> flag_values;
  std::string flag_meanings;
};

struct TextAttribute {
  std::string object, name, value;
};

struct Description {
  std::vector<DatasetDescription> datasets;
  std::vector<TextAttribute> texts;
  bool empty() const { return datasets.empty() && texts.empty(); }
  // The description of `dataset`, added if it has none yet.
  DatasetDescription& of(const std::string& dataset);
};

// The netCDF text that marks a dimension scale as a dimension without a variable (netCDF-C's
// own, which netCDF and h5netcdf recognise), followed by the dimension's length.
std::string dimension_only_name(std::uint64_t length);

// Opens the closed output `partial` on its own (no MPI-IO), makes each dimension's scale (its
// coordinate dataset, or a dimension-only dataset of no stored values), attaches the scales
// to every described dataset and writes the attributes. Throws RunError naming `path` and
// what failed; std::logic_error where a description does not fit the file's datasets (a
// wrong rank or a dimension of two lengths).
void write_description(const std::string& partial, const std::string& path, const Description& description);

}  // namespace trident::io
