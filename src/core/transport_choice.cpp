// The transport choice (core/transport_choice.hpp): the build, the MPI, the devices the
// ranks drive and TRIDENT_DEVICE_COMM.
#include "core/transport_choice.hpp"

#include <Kokkos_Core.hpp>

#include <set>

#include "core/comm.hpp"
#include "core/error.hpp"

namespace trident::core {

namespace {

constexpr bool kDeviceMemoryIsHostMemory =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                               Kokkos::DefaultExecutionSpace::memory_space>::accessible;

#if defined(TRIDENT_HAVE_NCCL)
constexpr bool kBuiltWithNccl = true;
#else
constexpr bool kBuiltWithNccl = false;
#endif

// Whether two ranks of one host drive the same GPU (NCCL refuses that). Collective.
bool ranks_share_a_device(MPI_Comm comm, const DeviceBinding& binding) {
  const auto devices = mpi::gather_strings(comm, binding.host + " " + binding.pci_bus_id);
  int shared = 0;
  if (mpi::rank(comm) == 0) shared = std::set<std::string>(devices.begin(), devices.end()).size() != devices.size();
  MPI_Bcast(&shared, 1, MPI_INT, 0, comm);
  return shared != 0;
}

}  // namespace

const char* transport_name(Transport transport) {
  switch (transport) {
    case Transport::nccl: return "nccl";
    case Transport::mpi: return "mpi";
    case Transport::host_staging: return "host-staging";
  }
  return "?";
}

std::string TransportChoice::describe() const {
  return std::string(transport_name(transport)) + " (" + reason + ")";
}

TransportChoice mpi_transport() {
  if (kDeviceMemoryIsHostMemory) return {Transport::mpi, "the backend computes in host memory"};
  if (BuildInfo::mpi_gpu_aware()) return {Transport::mpi, "MPI is GPU-aware (" + BuildInfo::mpi_gpu_aware_reason() + ")"};
  return {Transport::host_staging, "MPI is not GPU-aware (" + BuildInfo::mpi_gpu_aware_reason() + ")"};
}

TransportChoice choose_transport(MPI_Comm comm, const DeviceBinding& binding, const Overrides& overrides) {
  const std::string& requested = overrides.device_comm;
  if (kDeviceMemoryIsHostMemory) {
    if (requested == "nccl")
      throw InputError("TRIDENT_DEVICE_COMM=nccl: this build computes in host memory (" +
                       BuildInfo::kokkos_backend() + "); use auto or mpi");
    return mpi_transport();
  }
  const bool one_rank = mpi::size(comm) == 1;
  const bool shared_device = !one_rank && ranks_share_a_device(comm, binding);
  if (requested == "nccl" || requested == "auto") {
    std::string why_not;
    if (!kBuiltWithNccl) why_not = "built without NCCL";
    else if (shared_device) why_not = "two ranks of one host drive the same GPU";
    if (why_not.empty())
      return {Transport::nccl, std::string(requested == "nccl" ? "set by TRIDENT_DEVICE_COMM" : "GPU to GPU") +
                                   (overrides.peer_memory == Switch::off
                                        ? "; no peer memory (TRIDENT_PEER_MEMORY=off)"
                                        : "; between the GPUs of one host through peer memory where they map it")};
    if (requested == "nccl") throw InputError("TRIDENT_DEVICE_COMM=nccl: not possible here: " + why_not);
    TransportChoice fallback = mpi_transport();
    fallback.reason += "; no NCCL: " + why_not;
    return fallback;
  }
  if (requested == "mpi") {
    if (!BuildInfo::mpi_gpu_aware())
      throw InputError("TRIDENT_DEVICE_COMM=mpi: this MPI cannot take device pointers (" +
                       BuildInfo::mpi_gpu_aware_reason() + "); use auto or host-staging");
    return {Transport::mpi, "set by TRIDENT_DEVICE_COMM"};
  }
  return {Transport::host_staging, "set by TRIDENT_DEVICE_COMM"};
}

}  // namespace trident::core
