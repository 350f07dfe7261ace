// trident_h5_same A B [ATTRIBUTE...]: whether two trident outputs hold the same study results bit for bit,
// for machines without HDF5's command-line tools (bench/common/compare_outputs.sh uses h5diff where
// it exists). Compares every dataset under /diffusion, /knn and /ridge (type, shape, bytes)
// and every attribute of those groups and their datasets except the timing ones (names
// ending in _seconds or _per_second, and the ATTRIBUTEs named: e.g. method, to compare a
// brute-force and an index search) and HDF5's dimension-scale bookkeeping (DIMENSION_LIST,
// REFERENCE_LIST: object references, file addresses that differ between files of the same
// content; the scales are compared as the datasets they are). Exit 0 same, 1 different (the first difference
// printed), 2 an unreadable file.
#include <hdf5.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

std::vector<std::string> ignored;  // attribute names left out, from the command line

bool left_out(const std::string& name) {
  if (name == "DIMENSION_LIST" || name == "REFERENCE_LIST") return true;
  for (const std::string& i : ignored)
    if (name == i) return true;
  const auto ends = [&](const std::string& tail) {
    return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends("_seconds") || ends("_per_second");
}

// The raw bytes of a dataset or attribute in its file type converted to its native type.
std::vector<unsigned char> bytes(hid_t object, bool attribute, hid_t& type_out, std::vector<hsize_t>& shape) {
  const hid_t space = attribute ? H5Aget_space(object) : H5Dget_space(object);
  const int rank = H5Sget_simple_extent_ndims(space);
  shape.assign(rank > 0 ? rank : 0, 0);
  if (rank > 0) H5Sget_simple_extent_dims(space, shape.data(), nullptr);
  const hssize_t count = H5Sget_simple_extent_npoints(space);
  H5Sclose(space);
  const hid_t file_type = attribute ? H5Aget_type(object) : H5Dget_type(object);
  type_out = H5Tget_native_type(file_type, H5T_DIR_ASCEND);
  H5Tclose(file_type);
  std::vector<unsigned char> out(static_cast<std::size_t>(count) * H5Tget_size(type_out));
  if (H5Tis_variable_str(type_out) > 0) {  // compare the strings' text (attributes, knn's text ids)
    std::vector<char*> text(count, nullptr);
    if (attribute) H5Aread(object, type_out, text.data());
    else if (count > 0) H5Dread(object, type_out, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data());
    out.clear();
    for (char* t : text) {
      if (t != nullptr) out.insert(out.end(), t, t + std::string(t).size());
      out.push_back(0);  // an unwritten (null) text reads as an empty one
      if (t != nullptr) H5free_memory(t);
    }
    return out;
  }
  if (!out.empty()) {
    if (attribute) H5Aread(object, type_out, out.data());
    else H5Dread(object, type_out, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data());
  }
  return out;
}

struct Files {
  hid_t a, b;
  std::string first_difference;
};

bool same_attributes(hid_t a, hid_t b, const std::string& path, std::string& why) {
  // every compared attribute of b must be in a too (those of a are checked one by one below)
  for (int i = 0, n = H5Aget_num_attrs(b); i < n; ++i) {
    const hid_t attr = H5Aopen_idx(b, static_cast<unsigned>(i));
    char name[256] = {0};
    H5Aget_name(attr, sizeof name, name);
    H5Aclose(attr);
    if (!left_out(name) && H5Aexists(a, name) <= 0) return why = path + "@" + name + ": only in the second file", false;
  }
  const int n = H5Aget_num_attrs(a);
  for (int i = 0; i < n; ++i) {
    const hid_t attr_a = H5Aopen_idx(a, static_cast<unsigned>(i));
    char name[256] = {0};
    H5Aget_name(attr_a, sizeof name, name);
    if (left_out(name)) { H5Aclose(attr_a); continue; }
    if (H5Aexists(b, name) <= 0) return H5Aclose(attr_a), why = path + "@" + name + ": only in the first file", false;
    const hid_t attr_b = H5Aopen(b, name, H5P_DEFAULT);
    hid_t ta, tb;
    std::vector<hsize_t> sa, sb;
    const bool same = bytes(attr_a, true, ta, sa) == bytes(attr_b, true, tb, sb) && sa == sb && H5Tequal(ta, tb) > 0;
    H5Tclose(ta), H5Tclose(tb), H5Aclose(attr_a), H5Aclose(attr_b);
    if (!same) return why = path + "@" + name + ": differs", false;
  }
  return true;
}

herr_t visit(hid_t group_a, const char* name, const H5O_info_t* info, void* data) {
  auto& files = *static_cast<Files*>(data);
  const std::string path = name;
  if (H5Oexists_by_name(files.b, name, H5P_DEFAULT) <= 0) return files.first_difference = path + ": only in the first file", 1;
  const hid_t a = H5Oopen(group_a, name, H5P_DEFAULT), b = H5Oopen(files.b, name, H5P_DEFAULT);
  std::string why;
  bool same = same_attributes(a, b, path, why);
  if (same && info->type == H5O_TYPE_DATASET) {
    hid_t ta, tb;
    std::vector<hsize_t> sa, sb;
    same = bytes(a, false, ta, sa) == bytes(b, false, tb, sb) && sa == sb && H5Tequal(ta, tb) > 0;
    H5Tclose(ta), H5Tclose(tb);
    if (!same) why = path + ": the data differ";
  }
  H5Oclose(a), H5Oclose(b);
  if (!same) return files.first_difference = why, 1;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return std::fprintf(stderr, "usage: %s A.h5 B.h5 [ATTRIBUTE...]\n", argv[0]), 2;
  ignored.assign(argv + 3, argv + argc);
  H5Eset_auto(H5E_DEFAULT, nullptr, nullptr);
  Files files{H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT), H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT), ""};
  if (files.a < 0 || files.b < 0) return std::fprintf(stderr, "%s: cannot open both files\n", argv[0]), 2;
  for (const char* group : {"/diffusion", "/knn", "/ridge"}) {
    const bool in_a = H5Lexists(files.a, group, H5P_DEFAULT) > 0, in_b = H5Lexists(files.b, group, H5P_DEFAULT) > 0;
    if (in_a != in_b) return std::printf("%s: in one file only\n", group), 1;
    if (!in_a) continue;
    // H5Ovisit names objects relative to the group it starts from, the group itself as ".".
    const hid_t start = H5Gopen(files.a, group, H5P_DEFAULT);
    const hid_t other = H5Gopen(files.b, group, H5P_DEFAULT);
    const hid_t b = files.b;
    files.b = other;
    const herr_t stop = H5Ovisit(start, H5_INDEX_NAME, H5_ITER_INC, visit, &files);
    files.b = b;
    H5Gclose(start), H5Gclose(other);
    if (stop != 0) return std::printf("%s/%s\n", group, files.first_difference.c_str()), 1;
  }
  return 0;
}
