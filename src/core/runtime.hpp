#pragma once
// The MPI + Kokkos runtime: MPI starts first and finishes last; each rank binds one
// device (the one SLURM made visible, or local rank modulo the device count).
#include <mpi.h>

#include <string>
#include <vector>

namespace trident {

struct DeviceBinding {
  int world_rank = 0;
  int local_rank = 0;       // rank among the ranks of this host
  int visible_devices = 0;  // devices this rank can see (0 on host-only backends)
  int device_id = -1;       // the device this rank drives (-1: none, host backend)
  std::string host;
  std::string device_name;  // "NVIDIA H200" or "host (Serial)"
  std::string pci_bus_id;   // "0000:19:00.0" or empty
  int local_ranks = 1;      // ranks on this host
  int usable_cpus = 1;      // CPUs in this rank's affinity mask (what the launcher left it)
  int online_cpus = 1;      // CPUs of this host
  std::string describe() const;
  // Bound to one CPU on a host with at least two for each of its ranks: the host work
  // (reading, generating, staging, writing) runs on that CPU while the others idle.
  bool one_cpu_of_many() const { return usable_cpus == 1 && online_cpus >= 2 * local_ranks; }
};

// What the run is executing on, for logs and HDF5 provenance.
struct BuildInfo {
  static std::string trident_version();
  static std::string kokkos_version();
  static std::string kokkos_kernels_version();
  static std::string kokkos_backend();  // the default execution space, e.g. "Cuda", "Serial"
  static std::string mpi_library();
  static std::string hdf5_version();
  static bool hdf5_parallel();
  static std::string yaml_cpp_version();
  // Whether MPI can take device pointers ("yes", "no" or "unknown"), and the halo path used.
  static bool mpi_gpu_aware();
  static std::string mpi_gpu_aware_reason();
};

class Runtime {
 public:
  // Starts MPI, chooses this rank's device, then starts Kokkos on it with the
  // --kokkos-* arguments; the other arguments (after the program name) are args().
  Runtime(int& argc, char**& argv);
  ~Runtime();  // Kokkos first, then MPI
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  MPI_Comm comm() const { return MPI_COMM_WORLD; }
  const DeviceBinding& binding() const { return binding_; }
  const std::vector<std::string>& args() const { return args_; }

  // Where the start of the process went, in seconds: from exec to the constructor (loading
  // the program and its libraries), MPI_Init, then the device (its context and Kokkos).
  // Within them: the device's context, made on a thread of its own while MPI_Init runs
  // (0 when the launcher gives no local rank), and Kokkos::initialize, part of `device`.
  struct StartupParts {
    double loading = 0, mpi = 0, device = 0, context = 0, kokkos = 0;
  };
  const StartupParts& startup_parts() const { return startup_; }

 private:
  DeviceBinding binding_;
  StartupParts startup_;
  std::vector<std::string> args_;
};

// Chooses the device for a rank: one visible device means that one; several mean
// local rank modulo their count. Returns -1 when there are none.
int choose_device(int local_rank, int visible_devices);

}  // namespace trident
