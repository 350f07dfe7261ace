#include "io/provenance.hpp"

#include "core/comm.hpp"
#include "core/log.hpp"
#include "core/overrides.hpp"
#include "io/sha256.hpp"

namespace trident::io {

std::string utc_now() { return log::utc_time(); }

void write_provenance(OutputFile& file, const std::string& deck_file, const std::string& deck_text,
                      const std::string& resolved_deck, const DeviceBinding& binding,
                      const std::string& start_time) {
  const MPI_Comm comm = file.comm();
  std::string devices;
  for (const auto& line : mpi::gather_strings(comm, binding.describe())) devices += line + "\n";
  file.attribute("/", "deck", deck_text);
  file.attribute("/", "deck_file", deck_file);
  file.attribute("/", "resolved_deck", resolved_deck);
  file.attribute("/", "trident_version", BuildInfo::trident_version());
  file.attribute("/", "commit", BuildInfo::commit());
  file.attribute("/", "compiler", BuildInfo::compiler());
  file.attribute("/", "cxx_flags", BuildInfo::cxx_flags());
  file.attribute("/", "build_type", BuildInfo::build_type());
  file.attribute("/", "kokkos_backends", BuildInfo::kokkos_backends());
  file.attribute("/", "mpi_ranks", static_cast<std::int64_t>(mpi::size(comm)));
  file.attribute("/", "kokkos_version", BuildInfo::kokkos_version());
  file.attribute("/", "kokkos_backend", BuildInfo::kokkos_backend());
  file.attribute("/", "devices", devices);
  file.attribute("/", "mpi_library", BuildInfo::mpi_library());
  file.attribute("/", "hdf5_version", BuildInfo::hdf5_version());
  file.attribute("/", "hdf5_parallel_writes", static_cast<std::int64_t>(file.parallel() ? 1 : 0));
  file.attribute("/", "environment_overrides", core::read_overrides().describe());
  file.attribute("/", "start_time", start_time);
}

std::string checksums(const std::vector<std::string>& paths) {
  std::string out;
  for (const std::string& path : paths) {
    try {
      out += sha256_of_file(path) + "  " + path + "\n";
    } catch (const std::exception& e) {
      out += "unreadable: " + std::string(e.what()) + "\n";  // the run read it; a checksum is not worth failing for
    }
  }
  return out;
}

void write_run_end(OutputFile& file, const std::string& status, const Timers& timers,
                   const std::string& input_checksums) {
  const MPI_Comm comm = file.comm();
  file.attribute("/", "input_sha256", mpi::broadcast(comm, input_checksums));
  file.create_group("/timings");
  file.attribute("/timings", "what", std::string("wall-clock seconds per phase, slowest rank"));
  for (const std::string& name : timers.phase_names(comm))
    file.attribute("/timings", name, mpi::max_over_ranks(comm, timers.seconds(name)));
  file.attribute("/", "status", status);
  file.attribute("/", "end_time", utc_now());
}

}  // namespace trident::io
