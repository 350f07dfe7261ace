#include "app/command_line.hpp"

#include "core/error.hpp"

namespace trident::app {

std::string help_text() {
  return R"(usage: trident COMMAND [ARGS]

commands:
  run DECK [--output FILE] [--overwrite] [--restart CHECKPOINT] [--gathered-io]
                  run the studies of a YAML deck (under mpirun/srun for several ranks)
  validate DECK   check a deck and print what it would run; writes nothing
  info            versions, Kokkos backend and devices, MPI, HDF5
  --version       print the trident version
  --help          print this help

run options:
  --output FILE          write results to FILE instead of the deck's output.file
  --overwrite            replace an existing output file
  --restart CHECKPOINT   continue the diffusion study from a checkpoint file
  --gathered-io          write through rank 0 even when HDF5 is parallel

Kokkos options (--kokkos-help lists them), e.g. --kokkos-tools-libs=LIB, are accepted too.
exit codes: 0 success, 1 run-time failure, 2 bad input, 75 stopped by SIGUSR1/SIGTERM
after writing a checkpoint (resume with --restart).
)";
}

namespace {
[[noreturn]] void usage_error(const std::string& what) {
  throw InputError(what + "; see 'trident --help'");
}
}  // namespace

CommandLine parse_command_line(const std::vector<std::string>& args) {
  CommandLine cl;
  if (args.empty()) usage_error("no command given (expected run, validate or info)");
  const std::string& first = args[0];
  if (first == "--help" || first == "-h" || first == "help") { cl.command = "help"; return cl; }
  if (first == "--version") { cl.command = "version"; return cl; }
  if (first != "run" && first != "validate" && first != "info")
    usage_error("unknown command '" + first + "' (expected run, validate or info)");
  cl.command = first;
  std::size_t i = 1;
  const auto value_of = [&](const std::string& option) -> std::string {
    if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0) usage_error("option " + option + " needs a value");
    if (args[i + 1].empty()) usage_error("option " + option + " needs a value, got an empty string");
    return args[++i];
  };
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") { cl.command = "help"; return cl; }
    if (cl.command == "run" && a == "--output") cl.output = value_of(a);
    else if (cl.command == "run" && a == "--restart") cl.restart = value_of(a);
    else if (cl.command == "run" && a == "--overwrite") cl.overwrite = true;
    else if (cl.command == "run" && a == "--gathered-io") cl.gathered_io = true;
    else if (a.rfind("-", 0) == 0) usage_error("unknown option '" + a + "' for '" + cl.command + "'");
    else if (cl.command != "info" && cl.deck.empty()) cl.deck = a;
    else usage_error("unexpected argument '" + a + "' for '" + cl.command + "'");
  }
  if (cl.command != "info" && cl.deck.empty()) usage_error("'" + cl.command + "' needs a deck file");
  return cl;
}

}  // namespace trident::app
