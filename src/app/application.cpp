// Parsing the command line, dispatching the command, and mapping failures to exit codes.
#include <cstdio>

#include "app/commands.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/overrides.hpp"
#include "io/output_file.hpp"

namespace trident::app {

std::string version_line() {
  return "trident " + BuildInfo::trident_version() + " (commit " + BuildInfo::commit() + "; " + BuildInfo::compiler() +
         ", " + BuildInfo::build_type() + "; Kokkos " + BuildInfo::kokkos_version() + ", " + BuildInfo::kokkos_backend() + ")";
}

namespace {
[[noreturn]] void abort_job(const Runtime& runtime, const std::string& message, int code) {
  const int ranks = mpi::size(runtime.comm());
  log::error(ranks > 1 ? "rank " + std::to_string(runtime.binding().world_rank) + ": " + message : message);
  io::remove_unfinished_outputs();  // no destructor runs after MPI_Abort
  mpi::abort_all(runtime.comm(), code);
}
}  // namespace

int application(const Runtime& runtime) {
  const MPI_Comm comm = runtime.comm();
  const bool speaker = mpi::rank(comm) == 0;
  try {
    CommandLine command_line;
    mpi::collective(comm, [&] { command_line = parse_command_line(runtime.args()); });
    log::set_verbosity(command_line.verbosity);
    if (command_line.command == "help") {
      if (speaker) std::fputs(help_text().c_str(), stdout);
      return kExitOk;
    }
    if (command_line.command == "version") {
      if (speaker) std::printf("%s\n", version_line().c_str());
      return kExitOk;
    }
    // The TRIDENT_* overrides are read once, before any work: a bad value ends every command
    // that works (exit 2), an unknown name is warned about.
    mpi::collective(comm, [] { core::read_overrides(); });
    for (const std::string& line : core::read_overrides().warnings) log::warning(comm, line);
    // `run` starts the device once its studies have read their inputs (run_command.cpp)
    if (command_line.command == "info" || command_line.command == "validate") runtime.start_device();
    if (command_line.command == "info") return info_command(runtime);
    if (command_line.command == "validate") return validate_command(command_line, runtime);
    return run_command(command_line, runtime);
  } catch (const CollectiveError& e) {
    if (speaker && e.exit_code() == kExitStopped) log::result(comm, e.what());  // not an error
    else if (speaker) log::error(e.what());
    if (e.exit_code() == kExitBadInput) log::discard_file();
    return e.exit_code();
  } catch (const InputError& e) {
    log::discard_file();
    if (mpi::size(comm) > 1) abort_job(runtime, e.what(), kExitBadInput);
    log::error(e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    if (mpi::size(comm) > 1) abort_job(runtime, e.what(), kExitRunFailure);
    log::error(e.what());
    return kExitRunFailure;
  }
}

}  // namespace trident::app
