#include <cstdio>

#include "app/commands.hpp"
#include "core/comm.hpp"
#include "core/overrides.hpp"
#include "core/transport_choice.hpp"

namespace trident::app {

int info_command(const Runtime& runtime) {
  const MPI_Comm comm = runtime.comm();
  const core::TransportChoice transport = core::choose_transport(comm, runtime.binding());
  if (mpi::rank(comm) == 0) {
    std::printf("trident %s (commit %s)\n", BuildInfo::trident_version().c_str(), BuildInfo::commit().c_str());
    std::printf("  built with      %s, %s, flags '%s'\n", BuildInfo::compiler().c_str(), BuildInfo::build_type().c_str(),
                BuildInfo::cxx_flags().c_str());
    std::printf("  Kokkos          %s, default execution space %s (built with %s)\n",
                BuildInfo::kokkos_version().c_str(), BuildInfo::kokkos_backend().c_str(),
                BuildInfo::kokkos_backends().c_str());
    std::printf("  Kokkos Kernels  %s\n", BuildInfo::kokkos_kernels_version().c_str());
    std::printf("  MPI             %s, %d rank(s)\n", BuildInfo::mpi_library().c_str(), mpi::size(comm));
    std::printf("  GPU-aware MPI   %s (%s)\n", BuildInfo::mpi_gpu_aware() ? "yes" : "no",
                BuildInfo::mpi_gpu_aware_reason().c_str());
    std::printf("  device data     %s between ranks\n", transport.describe().c_str());
    std::printf("  HDF5            %s, %s\n", BuildInfo::hdf5_version().c_str(),
                BuildInfo::hdf5_parallel() ? "parallel (MPI-IO)" : "serial (writes gathered to rank 0)");
    std::printf("  yaml-cpp        %s\n", BuildInfo::yaml_cpp_version().c_str());
    std::printf("  overrides       %s\n", core::read_overrides().describe().c_str());
    std::printf("devices:\n");
    std::fflush(stdout);
  }
  for (const auto& line : mpi::gather_strings(comm, runtime.binding().describe()))
    std::printf("  %s\n", line.c_str());
  std::fflush(stdout);
  return 0;
}

}  // namespace trident::app
