#include "core/runtime.hpp"

#include "core/overrides.hpp"
#include "core/timers.hpp"

#include <Kokkos_Core.hpp>
#include <hdf5.h>

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "core/comm.hpp"
#include "core/host_threads.hpp"
#include "trident/commit.hpp"
#include "trident/version.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif
#if defined(__has_include)
#if __has_include(<Trilinos_version.h>)
#include <Trilinos_version.h>  // Debian's Kokkos Kernels is Trilinos' and has no version of its own
#endif
#endif
#if defined(OPEN_MPI) && OPEN_MPI && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

namespace trident {

int choose_device(int local_rank, int visible_devices) {
  if (visible_devices <= 0) return -1;
  if (visible_devices == 1) return 0;
  return local_rank % visible_devices;
}

std::string DeviceBinding::describe() const {
  std::ostringstream s;
  s << "rank " << world_rank << " on " << host << " (local rank " << local_rank << "): ";
  if (device_id < 0) {
    s << device_name;
  } else {
    s << "device " << device_id << " of " << visible_devices << ", " << device_name
      << ", PCI " << pci_bus_id;
  }
  s << ", " << usable_cpus << " of " << online_cpus << " CPUs";
  if (cpu_sharers > 1) {
    const int threads = core::host_threads_for(usable_cpus, cpu_sharers);
    s << ", shared with " << cpu_sharers - 1 << (cpu_sharers == 2 ? " other rank: " : " other ranks: ") << threads
      << (threads == 1 ? " thread" : " threads") << " for host work";
  }
  return s.str();
}

namespace {

// The ranks of `local` (one host) whose affinity masks overlap this rank's, itself included
// (collective over `local`).
int ranks_sharing_cpus(MPI_Comm local) {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) CPU_ZERO(&mine);  // shares nothing then
  std::vector<cpu_set_t> masks(static_cast<std::size_t>(mpi::size(local)));
  MPI_Allgather(&mine, sizeof mine, MPI_BYTE, masks.data(), sizeof mine, MPI_BYTE, local);
  int sharers = 0;
  for (cpu_set_t& other : masks) {
    cpu_set_t both;
    CPU_AND(&both, &mine, &other);
    if (CPU_COUNT(&both) > 0) ++sharers;
  }
  return std::max(1, sharers);
}

int count_devices() {
#if defined(KOKKOS_ENABLE_CUDA)
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
  return n;
#else
  return 0;
#endif
}

void describe_device(DeviceBinding& b) {
#if defined(KOKKOS_ENABLE_CUDA)
  if (b.device_id >= 0) {
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, b.device_id) == cudaSuccess) b.device_name = prop.name;
    char bus[64] = {0};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, b.device_id) == cudaSuccess) b.pci_bus_id = bus;
    return;
  }
#endif
  b.device_name = std::string("host (") + Kokkos::DefaultExecutionSpace::name() + ")";
}

// The rank's place among the ranks of its host as the launcher gives it in the environment
// (Open MPI, MPICH and Intel MPI, SLURM, Cray PALS), known before MPI starts; -1 if none.
int launcher_local_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "PALS_LOCAL_RANKID"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    char* end = nullptr;
    const long rank = std::strtol(value, &end, 10);
    if (*end == '\0' && rank >= 0 && rank < 65536) return static_cast<int>(rank);
  }
  return -1;
}

// Makes the CUDA context of the device `local_rank` will drive, on its own thread, so that
// it is made while MPI starts (both take a large share of a rank's start); Kokkos then finds
// it made. Nothing when the local rank is not known before MPI.
std::thread start_device_early(int local_rank, double& seconds) {
#if defined(KOKKOS_ENABLE_CUDA)
  if (local_rank >= 0) {
    return std::thread([local_rank, &seconds] {
      const double begin = wall_seconds();
      const int device = choose_device(local_rank, count_devices());
      if (device >= 0 && cudaSetDevice(device) == cudaSuccess) cudaFree(nullptr);
      seconds = wall_seconds() - begin;
    });
  }
#else
  (void)local_rank;
  (void)seconds;
#endif
  return {};
}

bool has_arg_prefix(int argc, char** argv, const char* prefix) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], prefix, std::strlen(prefix)) == 0) return true;
  return false;
}

}  // namespace

Runtime::Runtime(int& argc, char**& argv) {
  startup_.loading = process_seconds();
  double mark = wall_seconds();
  // (not when the user names the device: that choice is Kokkos's)
  user_device_ = has_arg_prefix(argc, argv, "--kokkos-device-id") ||
                 has_arg_prefix(argc, argv, "--kokkos-map-device-id-by");
  early_device_ = start_device_early(user_device_ ? -1 : launcher_local_rank(), startup_.context);
  // FUNNELED: the diffusion frames' writer thread calls HDF5 but never MPI (frames.hpp);
  // a library that gives less keeps those writes on the main thread.
  int thread_level = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &thread_level);
  startup_.mpi = wall_seconds() - mark;
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  binding_.world_rank = mpi::rank(MPI_COMM_WORLD);
  binding_.local_rank = mpi::rank(local);
  binding_.local_ranks = mpi::size(local);
  binding_.cpu_sharers = ranks_sharing_cpus(local);
  core::set_cpu_sharers(binding_.cpu_sharers);
  MPI_Comm_free(&local);
  binding_.usable_cpus = core::usable_cpus();
  binding_.online_cpus = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  char host[MPI_MAX_PROCESSOR_NAME] = {0};
  int host_length = 0;
  MPI_Get_processor_name(host, &host_length);
  binding_.host = host;
  // Kokkos sees only its own --kokkos-* arguments (tools libraries among them) and the
  // device this rank chose (start_device), unless the user named one; everything else is ours.
  kokkos_args_.push_back(argc > 0 ? argv[0] : "trident");
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    (a.rfind("--kokkos-", 0) == 0 ? kokkos_args_ : args_).push_back(a);
  }
}

void Runtime::start_device() const {
  if (device_started_) return;
  device_started_ = true;
  const double mark = wall_seconds();
  if (early_device_.joinable()) early_device_.join();
  binding_.visible_devices = count_devices();
  binding_.device_id = choose_device(binding_.local_rank, binding_.visible_devices);
  std::vector<std::string> kokkos_args = kokkos_args_;
  if (binding_.device_id >= 0 && !user_device_)
    kokkos_args.push_back("--kokkos-device-id=" + std::to_string(binding_.device_id));
  std::vector<char*> kokkos_argv;
  for (auto& s : kokkos_args) kokkos_argv.push_back(s.data());
  kokkos_argv.push_back(nullptr);
  int kokkos_argc = static_cast<int>(kokkos_args.size());
  char** kargv = kokkos_argv.data();
  const double kokkos_begin = wall_seconds();
  Kokkos::initialize(kokkos_argc, kargv);
  startup_.kokkos = wall_seconds() - kokkos_begin;
  describe_device(binding_);
  startup_.device = wall_seconds() - mark;
}

namespace {
std::mutex g_finalize_mutex;
std::vector<std::function<void()>> g_before_finalize;
}  // namespace

void Runtime::before_finalize(std::function<void()> work) {
  const std::lock_guard<std::mutex> lock(g_finalize_mutex);
  g_before_finalize.push_back(std::move(work));
}

Runtime::~Runtime() {
  const double begin = wall_seconds();
  if (early_device_.joinable()) early_device_.join();  // a run that ended before it needed the device
  std::vector<std::function<void()>> work;
  {
    const std::lock_guard<std::mutex> lock(g_finalize_mutex);
    work.swap(g_before_finalize);
  }
  for (const auto& w : work) w();
  if (device_started_) Kokkos::finalize();
  MPI_Finalize();
  print_exit_report(binding_.world_rank, wall_seconds() - begin);
}

std::string BuildInfo::trident_version() { return TRIDENT_VERSION; }
std::string BuildInfo::commit() { return TRIDENT_COMMIT; }
std::string BuildInfo::compiler() { return TRIDENT_COMPILER; }
std::string BuildInfo::cxx_flags() { return TRIDENT_CXX_FLAGS; }
std::string BuildInfo::build_type() { return TRIDENT_BUILD_TYPE; }

std::string BuildInfo::kokkos_backends() {
  std::string out;
  const auto add = [&out](const char* name) { out += (out.empty() ? "" : ", ") + std::string(name); };
#if defined(KOKKOS_ENABLE_CUDA)
  add("Cuda");
#endif
#if defined(KOKKOS_ENABLE_HIP)
  add("HIP");
#endif
#if defined(KOKKOS_ENABLE_SYCL)
  add("SYCL");
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  add("OpenMP");
#endif
#if defined(KOKKOS_ENABLE_THREADS)
  add("Threads");
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
  add("Serial");
#endif
  return out;
}

std::string BuildInfo::kokkos_version() {
  const int v = KOKKOS_VERSION;
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

std::string BuildInfo::kokkos_kernels_version() {
  const std::string v = TRIDENT_KOKKOSKERNELS_VERSION;
  if (!v.empty()) return v;
#if defined(TRILINOS_VERSION_STRING)
  return std::string("from Trilinos ") + TRILINOS_VERSION_STRING;
#else
  return "unknown (its CMake package gave no version)";
#endif
}

std::string BuildInfo::kokkos_backend() { return Kokkos::DefaultExecutionSpace::name(); }

std::string BuildInfo::mpi_library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string s(text, static_cast<std::size_t>(length));
  const auto end = s.find_first_of(",\n");  // the first clause names library and version
  return s.substr(0, end);
}

std::string BuildInfo::hdf5_version() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
}

bool BuildInfo::hdf5_parallel() {
#if defined(H5_HAVE_PARALLEL)
  return true;
#else
  return false;
#endif
}

std::string BuildInfo::yaml_cpp_version() { return TRIDENT_YAML_CPP_VERSION; }

namespace {
// 1 or 0 from TRIDENT_GPU_AWARE_MPI=on|off, -1 for auto.
int gpu_aware_override() {
  switch (core::read_overrides().gpu_aware_mpi) {
    case core::Switch::on: return 1;
    case core::Switch::off: return 0;
    case core::Switch::automatic: break;
  }
  return -1;
}
}  // namespace

bool BuildInfo::mpi_gpu_aware() {
  if (!Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                  Kokkos::DefaultExecutionSpace::memory_space>::accessible) {
    const int forced = gpu_aware_override();
    if (forced >= 0) return forced == 1;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
  }
  return true;  // device memory is host memory: nothing to stage
}

std::string BuildInfo::mpi_gpu_aware_reason() {
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                 Kokkos::DefaultExecutionSpace::memory_space>::accessible)
    return "not needed: the backend computes in host memory";
  if (gpu_aware_override() >= 0) return "set by TRIDENT_GPU_AWARE_MPI";
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return "MPIX_Query_cuda_support()";
#else
  return "this MPI declares no CUDA support at compile time";
#endif
}

}  // namespace trident
