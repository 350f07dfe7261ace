#include "support/test_support.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>

#include <Kokkos_Core.hpp>

#include "core/comm.hpp"
#include "core/error.hpp"

namespace trident::test {

DeviceBinding this_rank_binding() {
  DeviceBinding binding;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  binding.host = host;
#if defined(KOKKOS_ENABLE_CUDA)
  int device = 0;
  char bus[64] = {};
  cudaGetDevice(&device);
  cudaDeviceGetPCIBusId(bus, sizeof bus, device);
  binding.pci_bus_id = bus;
#else
  binding.pci_bus_id = "host-rank-" + std::to_string(mpi::rank(MPI_COMM_WORLD));
#endif
  return binding;
}


std::string scratch_folder(MPI_Comm comm, const std::string& name) {
  // One folder per test process (rank 0's pid): ctest runs the same suites on several
  // rank counts at once in the same working folder.
  long long pid = static_cast<long long>(getpid());
  MPI_Bcast(&pid, 1, MPI_LONG_LONG, 0, comm);
  const std::string path = "scratch/" + std::to_string(pid) + "/" + name;
  MPI_Barrier(comm);  // no rank may still be reading what an earlier test left there
  if (mpi::rank(comm) == 0) {
    std::system(("rm -rf '" + path + "' && mkdir -p '" + path + "'").c_str());
  }
  MPI_Barrier(comm);
  return path;
}

bool file_exists(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << text;
}

std::string input_error_message(const std::function<void()>& work) {
  try {
    work();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string source_path(const std::string& relative) {
  return std::string(TRIDENT_SOURCE_DIR) + "/" + relative;
}

}  // namespace trident::test
