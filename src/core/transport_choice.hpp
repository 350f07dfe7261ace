#pragma once
// How device data travels between ranks, decided once per run and carried by the run's
// context (core/run_context.hpp) to the studies, which hand it to the transports
// themselves (transport/device_comm.hpp). Three transports:
//   nccl          GPU to GPU through NCCL (built with CUDA and NCCL, and every rank drives
//                 its own GPU);
//   mpi           MPI with device pointers (a CUDA-aware MPI), or plain MPI when the backend
//                 computes in host memory;
//   host-staging  MPI on page-locked host copies of the device buffers.
// TRIDENT_DEVICE_COMM=auto|nccl|mpi|host-staging overrides the automatic choice.
#include <mpi.h>

#include <string>

#include "core/overrides.hpp"
#include "core/runtime.hpp"

namespace trident::core {

enum class Transport { nccl, mpi, host_staging };
const char* transport_name(Transport transport);

struct TransportChoice {
  Transport transport = Transport::mpi;
  std::string reason;  // why, for the run log and `trident info`
  std::string describe() const;
};

// Decides the transport for `comm` from the build, the MPI, the devices the ranks drive and
// TRIDENT_DEVICE_COMM. Collective; every rank gets the same answer. An impossible forced
// choice is an InputError naming TRIDENT_DEVICE_COMM.
TransportChoice choose_transport(MPI_Comm comm, const DeviceBinding& binding,
                                 const Overrides& overrides = read_overrides());

// MPI alone, with or without host staging as the MPI needs; no set-up, no collective.
TransportChoice mpi_transport();

}  // namespace trident::core
