#include "io/provenance.hpp"

#include <fstream>
#include <iterator>

#include "core/comm.hpp"
#include "core/log.hpp"
#include "core/overrides.hpp"
#include "io/sha256.hpp"

namespace trident::io {

std::string utc_now() { return log::utc_time(); }

namespace {

// The command that started this process, as a shell would take it back (arguments with
// spaces or quotes in single quotes), from /proc/self/cmdline; "trident" where the system
// has no such file.
std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string line;
  std::size_t start = 0;
  while (start < raw.size()) {
    std::size_t end = raw.find('\0', start);
    if (end == std::string::npos) end = raw.size();
    std::string argument = raw.substr(start, end - start);
    if (argument.empty() || argument.find_first_of(" \t\n'\"\\$`*?;&|<>()") != std::string::npos) {
      std::string quoted = "'";
      for (char c : argument) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      argument = quoted + "'";
    }
    line += (line.empty() ? "" : " ") + argument;
    start = end + 1;
  }
  return line.empty() ? "trident" : line;
}

// "trident diffusion and knn results (DECK)".
std::string title_of(const std::string& deck_file, const std::vector<std::string>& studies) {
  std::string names;
  for (std::size_t i = 0; i < studies.size(); ++i)
    names += (i == 0 ? "" : i + 1 == studies.size() ? " and " : ", ") + studies[i];
  return "trident " + names + (names.empty() ? "" : " ") + "results (" + deck_file + ")";
}

}  // namespace

void write_provenance(OutputFile& file, const std::string& deck_file, const std::string& deck_text,
                      const std::string& resolved_deck, const std::vector<std::string>& studies,
                      const DeviceBinding& binding, const std::string& start_time) {
  const MPI_Comm comm = file.comm();
  std::string devices;
  for (const auto& line : mpi::gather_strings(comm, binding.describe())) devices += line + "\n";
  // CF's global attributes, so that netCDF and xarray users see what the file is
  file.attribute("/", "Conventions", std::string("CF-1.10"));
  file.attribute("/", "title", title_of(deck_file, studies));
  const int ranks = mpi::size(comm);
  file.attribute("/", "history", start_time + ": " + command_line() +
                                     (ranks > 1 ? " (" + std::to_string(ranks) + " MPI ranks)" : std::string()));
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
