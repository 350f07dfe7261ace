#pragma once
// RAII for HDF5 identifiers, a checked-call helper and the text attribute, shared by the
// reader and writer.
#include <hdf5.h>

#include <string>

namespace trident::io {

// Closes an HDF5 identifier with the right H5?close for its kind.
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept : id_(other.id_) { other.id_ = -1; }
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = other.id_;
      other.id_ = -1;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const { return id_; }
  // Gives the identifier up: the caller closes it (and sees whether closing failed).
  hid_t release() {
    const hid_t id = id_;
    id_ = -1;
    return id;
  }
  bool valid() const { return id_ >= 0; }
  void reset();

 private:
  hid_t id_ = -1;
};

// Throws RunError("FILE: WHAT failed") when `id` is negative; returns it otherwise.
hid_t checked(hid_t id, const std::string& file, const std::string& what);
void checked_status(herr_t status, const std::string& file, const std::string& what);

// Writes a text attribute (variable-length UTF-8, as h5py reads into str) of `object`,
// replacing one of that name; failures throw RunError naming `file`.
void write_text_attribute(hid_t object, const std::string& name, const std::string& text,
                          const std::string& file);

// Turns HDF5's own error stack printing off (our messages say what failed).
void silence_hdf5_errors();

}  // namespace trident::io
