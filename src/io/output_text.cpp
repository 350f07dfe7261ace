// Text datasets of an output file: variable-length UTF-8 strings (names carried from the
// inputs), written by the rank that holds a file that is not parallel.
#include "io/output_file.hpp"

#include "core/error.hpp"
#include "io/h5_handle.hpp"

namespace trident::io {

namespace {

Handle text_type() {
  Handle type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  return type;
}

}  // namespace

void OutputFile::create_text_dataset(const std::string& dataset, const std::vector<std::uint64_t>& dims) {
  agreed([&] {
    // HDF5 refuses variable-length data through MPI-IO ("Parallel IO does not support
    // writing VL datatypes"): the study must have asked for the gathered mode
    if (parallel_) throw RunError(path_ + ": " + dataset + " holds texts, which parallel HDF5 cannot write");
    if (!holds_file()) return;
    const std::vector<hsize_t> size(dims.begin(), dims.end());
    Handle space(H5Screate_simple(static_cast<int>(size.size()), size.data(), nullptr));
    Handle lcpl(H5Pcreate(H5P_LINK_CREATE));
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    Handle type = text_type();
    Handle d(checked(H5Dcreate2(file_, dataset.c_str(), type.get(), space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
                     path_, "creating dataset " + dataset));
  });
}

void OutputFile::write_texts_here(const std::string& dataset, const std::vector<std::uint64_t>& offset,
                                  const std::vector<std::uint64_t>& count, const char* const* texts) {
  if (!holds_file() || parallel_) throw RunError(path_ + ": writing " + dataset + " from a rank that does not hold the file");
  std::uint64_t n = 1;
  for (const std::uint64_t c : count) n *= c;
  if (n == 0) return;
  Handle d(checked(H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), path_, "opening " + dataset));
  Handle file_space(H5Dget_space(d.get()));
  const std::vector<hsize_t> o(offset.begin(), offset.end()), c(count.begin(), count.end());
  checked_status(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, o.data(), nullptr, c.data(), nullptr), path_,
                 "selecting a block of " + dataset);
  Handle memory_space(H5Screate_simple(static_cast<int>(c.size()), c.data(), nullptr));
  Handle type = text_type();
  checked_status(H5Dwrite(d.get(), type.get(), memory_space.get(), file_space.get(), H5P_DEFAULT, texts), path_,
                 "writing " + dataset);
}

}  // namespace trident::io
