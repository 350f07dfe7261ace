#pragma once
// What a study's driver is given: the communicator, the timers, this rank's device and
// the command-line options that concern studies; and the two phases every study has.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/overrides.hpp"
#include "core/runtime.hpp"
#include "core/timers.hpp"
#include "core/transport_choice.hpp"

namespace trident {
namespace io {
class OutputFile;
}

struct RunContext {
  MPI_Comm comm;
  Timers& timers;
  const DeviceBinding& binding;
  std::string restart_path;         // --restart CHECKPOINT, for the study that wrote it; else empty
  double progress_seconds = 10.0;   // interval between progress lines on rank 0
  int compression = 0;              // output.compression: deflate level of large datasets, 0 none
  // Host memory a study may plan its output buffers with; 0 measures it (MemAvailable).
  // Tests set it to force the smaller buffer layouts.
  std::int64_t host_memory_bytes = 0;
  // How device data goes between ranks (core/transport_choice.hpp); the run sets it from
  // choose_transport(), tests may leave the MPI route that needs no set-up.
  core::TransportChoice transport = core::mpi_transport();
  // The TRIDENT_* overrides (core/overrides.hpp): the run passes the environment's, tests
  // leave the automatic choices or set the ones they compare.
  core::Overrides overrides{};
  // Starts the device (Runtime::start_device, once) and says how device data goes between
  // ranks. The run sets it; tests, whose device is up, leave it empty.
  std::function<core::TransportChoice()> start_device{};

  // A study calls this before it first uses Kokkos, the device or `transport` (and the
  // binding's device fields): a study that reads inputs on the host first calls it after
  // them, so that the driver makes the device's context meanwhile. Collective.
  void device_ready() {
    if (start_device) transport = start_device();
  }
  // The same for a study whose reading `scope` times as `phase`: closed for the wait (which
  // is startup.device's) and opened again after it.
  void device_ready(std::optional<Timers::Scope>& scope, const std::string& phase) {
    scope.reset();
    device_ready();
    scope.emplace(timers, phase);
  }
};

// A study whose inputs are read and checked, whose rank layout is settled and whose memory
// is allocated: every mistake in the deck or the data has shown by now, before the output
// file exists. run() does the work and writes the study's group. Collective.
class PreparedStudy {
 public:
  virtual ~PreparedStudy() = default;
  virtual void run(io::OutputFile& output) = 0;
  // Whether run() writes variable-length texts, which parallel HDF5 cannot write: the run
  // then writes its output gathered to rank 0.
  virtual bool writes_texts() const { return false; }
};

}  // namespace trident
