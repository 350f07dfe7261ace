#pragma once
// The MPI + Kokkos runtime: MPI starts first and finishes last; each rank binds one
// device (the one SLURM made visible, or local rank modulo the device count).
#include <mpi.h>

#include <functional>
#include <string>
#include <thread>
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
  int cpu_sharers = 1;      // ranks of this host whose CPUs overlap these (core::host_threads)
  std::string describe() const;
  // Bound to one CPU on a host with at least two for each of its ranks: the host work
  // (reading, generating, staging, writing) runs on that CPU while the others idle.
  bool one_cpu_of_many() const { return usable_cpus == 1 && online_cpus >= 2 * local_ranks; }
};

// What the run is executing on, for logs and HDF5 provenance.
struct BuildInfo {
  static std::string trident_version();
  static std::string commit();           // `git describe` at build time, "unknown" outside a checkout
  static std::string compiler();         // e.g. "GNU 12.2.0"
  static std::string cxx_flags();        // CMAKE_CXX_FLAGS and the build type's flags
  static std::string build_type();       // e.g. "Release"
  static std::string kokkos_backends();  // the execution spaces built in, e.g. "Serial" or "Cuda, Serial"
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
  // Starts MPI, and meanwhile this rank's device context on a thread of its own; the
  // arguments after the program name but the --kokkos-* ones are args(). Kokkos starts in
  // start_device().
  Runtime(int& argc, char**& argv);
  ~Runtime();  // Kokkos first (if started), then MPI
  // Waits for the device's context, chooses this rank's device and starts Kokkos on it with
  // the --kokkos-* arguments; once (later calls return at once). Nothing may use Kokkos or
  // the device before. Called when the device is first needed, so that host work (a study
  // reading its inputs) goes on while the driver makes the contexts, which it makes one
  // process after the other (the later ranks of a host wait the longest). Const: the
  // commands hold the runtime as const, and this only completes its start.
  void start_device() const;
  // Work that must end before Kokkos and MPI finalize, such as threads still using the
  // device (NCCL's releasing threads, transport/nccl_comm.cpp): the destructor runs it
  // first, in the order given. Thread-safe.
  static void before_finalize(std::function<void()> work);
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  MPI_Comm comm() const { return MPI_COMM_WORLD; }
  // The device's fields are set by start_device().
  const DeviceBinding& binding() const { return binding_; }
  const std::vector<std::string>& args() const { return args_; }

  // Where the start of the process went, in seconds: from exec to the constructor (loading
  // the program and its libraries), MPI_Init, then start_device() (the wait for the
  // device's context, and Kokkos). Within them: the device's context, made on a thread of
  // its own from the process's start (0 when the launcher gives no local rank), and
  // Kokkos::initialize, part of `device`.
  struct StartupParts {
    double loading = 0, mpi = 0, device = 0, context = 0, kokkos = 0;
  };
  const StartupParts& startup_parts() const { return startup_; }

 private:
  mutable DeviceBinding binding_;
  mutable StartupParts startup_;
  std::vector<std::string> args_;
  std::vector<std::string> kokkos_args_;  // the program's name and the --kokkos-* arguments
  bool user_device_ = false;              // --kokkos-device-id or --kokkos-map-device-id-by given
  mutable std::thread early_device_;      // making the device's context
  mutable bool device_started_ = false;
};

// Chooses the device for a rank: one visible device means that one; several mean
// local rank modulo their count. Returns -1 when there are none.
int choose_device(int local_rank, int visible_devices);

}  // namespace trident
