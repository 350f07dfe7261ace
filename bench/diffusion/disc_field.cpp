// trident_disc_field N NAME FILE: writes the field bench/diffusion/speed.sh's variants read,
// an N x N float32 dataset /NAME in FILE: for NAME c a diffusivity of 0.25 with a disc of
// 0.05 (every face's harmonic mean at most 0.25: stable), for NAME s a source of -1e-7 with
// a disc of 1e-6. The disc: centre (n/3, n/2), radius n/5. In C++ so that a GPU machine
// without h5py can run the benchmark. Exit 0 written, 1 failed, 2 bad arguments.
#include <hdf5.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 4 || (std::string(argv[2]) != "c" && std::string(argv[2]) != "s") || std::atol(argv[1]) < 1) {
    std::fprintf(stderr, "usage: %s N c|s FILE\n", argv[0]);
    return 2;
  }
  const long n = std::atol(argv[1]);
  const bool c = std::string(argv[2]) == "c";
  std::vector<float> values(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
  for (long y = 0; y < n; ++y)
    for (long x = 0; x < n; ++x) {
      const double dx = x - n / 3.0, dy = y - n / 2.0, r = n / 5.0;
      const bool disc = dx * dx + dy * dy < r * r;
      values[static_cast<std::size_t>(y * n + x)] = c ? (disc ? 0.05f : 0.25f) : (disc ? 1e-6f : -1e-7f);
    }
  const hid_t file = H5Fcreate(argv[3], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0) return 1;
  const hsize_t dims[2] = {static_cast<hsize_t>(n), static_cast<hsize_t>(n)};
  const hid_t space = H5Screate_simple(2, dims, nullptr);
  const std::string name = "/" + std::string(argv[2]);
  const hid_t set = H5Dcreate2(file, name.c_str(), H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const bool ok = set >= 0 && H5Dwrite(set, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0;
  if (set >= 0) H5Dclose(set);
  H5Sclose(space);
  return H5Fclose(file) >= 0 && ok ? 0 : 1;
}
