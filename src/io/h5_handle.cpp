#include "io/h5_handle.hpp"

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace trident::io {

void Handle::reset() {
  if (id_ < 0) return;
  switch (H5Iget_type(id_)) {
    case H5I_FILE: H5Fclose(id_); break;
    case H5I_GROUP: H5Gclose(id_); break;
    case H5I_DATASET: H5Dclose(id_); break;
    case H5I_DATASPACE: H5Sclose(id_); break;
    case H5I_DATATYPE: H5Tclose(id_); break;
    case H5I_ATTR: H5Aclose(id_); break;
    case H5I_GENPROP_LST: H5Pclose(id_); break;
    default: break;
  }
  id_ = -1;
}

namespace {
// HDF5's messages do not reach the user (silence_hdf5_errors), but the system's reason for
// a failed write does: errno as the failing write left it, for the causes a user can fix.
std::string system_reason() {
  const int e = errno;
  if (e == ENOSPC || e == EDQUOT || e == EIO || e == EFBIG || e == EROFS)
    return std::string(" (") + std::strerror(e) + ")";
  return "";
}
}  // namespace

hid_t checked(hid_t id, const std::string& file, const std::string& what) {
  if (id < 0) throw RunError(file + ": " + what + " failed" + system_reason());
  return id;
}

void checked_status(herr_t status, const std::string& file, const std::string& what) {
  if (status < 0) throw RunError(file + ": " + what + " failed" + system_reason());
}

void write_text_attribute(hid_t object, const std::string& name, const std::string& text,
                          const std::string& file) {
  if (H5Aexists(object, name.c_str()) > 0) H5Adelete(object, name.c_str());
  Handle type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  Handle space(H5Screate(H5S_SCALAR));
  Handle a(checked(H5Acreate2(object, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), file,
                   "creating attribute " + name));
  const char* p = text.c_str();
  checked_status(H5Awrite(a.get(), type.get(), &p), file, "writing attribute " + name);
}

void silence_hdf5_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

}  // namespace trident::io
