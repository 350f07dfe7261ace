// Parsing of the command line and the --help text (app/command_line.hpp).
#include "app/command_line.hpp"

#include "core/error.hpp"
#include "core/spelling.hpp"
#include "io/plain_numbers.hpp"

namespace trident::app {

std::string help_text() {
  return R"(usage: trident COMMAND [ARGS]

commands:
  run DECK [options]       run the studies of a YAML deck (under mpirun/srun for several ranks)
  validate DECK [options]  check what 'run' checks before it starts: the deck, the input
                           files' headers, the output's place, the rank layout; writes nothing
  info                     versions, Kokkos backend and devices, MPI, HDF5
  --version                print the trident version
  --help                   print this help

options of run and validate:
  --output FILE          write results to FILE instead of the deck's output.file (default:
                         DECKNAME.h5 in the working folder, the checkpoint beside it)
  --overwrite            replace an existing output file
  --restart CHECKPOINT   continue the study (diffusion, knn or ridge) that wrote CHECKPOINT,
                         the checkpoint of a run stopped by SIGUSR1/SIGTERM
  --gathered-io          write through rank 0 even when HDF5 is parallel
  --quiet                print only errors and the final line
  --verbose              also print the diagnostics meant for tuning, and the timer table
                         with the phases' full names
option of validate:
  --ranks N              check the rank layout for a job of N ranks (default: the ranks
                         validate runs on)

Example decks: inputs/*_small.yaml (seconds on two CPU cores), inputs/*_tutorial.yaml; the deck
keys, outputs, restarting and clusters are described in docs/ (start at README.md).
Kokkos options (--kokkos-help lists them), e.g. --kokkos-tools-libs=LIB, are accepted too.
exit codes: 0 success, 1 run-time failure, 2 bad input, 75 stopped by SIGUSR1/SIGTERM
after writing a checkpoint (resume with --restart); a run that completes removes its own
checkpoint.
)";
}

namespace {

[[noreturn]] void usage_error(const std::string& what) {
  throw InputError(what + "; see 'trident --help'");
}

// "; did you mean 'X'?" when one of `known` is close to `word`, else nothing.
std::string suggestion(const std::string& word, const std::vector<std::string>& known) {
  const std::string near = core::closest(word, known);
  return near.empty() ? std::string() : "; did you mean '" + near + "'?";
}

const std::vector<std::string> kCommands = {"run", "validate", "info"};

// The options each command takes, as `--help` lists them.
std::vector<std::string> options_of(const std::string& command) {
  std::vector<std::string> options = {"--help"};
  if (command == "info") return options;
  for (const char* o : {"--output", "--overwrite", "--restart", "--gathered-io", "--quiet", "--verbose"})
    options.push_back(o);
  if (command == "validate") options.push_back("--ranks");
  return options;
}

int rank_count(const std::string& text) {
  long long n = 0;
  if (!io::plain_integer(text.data(), text.data() + text.size(), n) || n < 1 || n > (1 << 30))
    usage_error("option --ranks needs a whole number of ranks, at least 1, got '" + text + "'");
  return static_cast<int>(n);
}

}  // namespace

CommandLine parse_command_line(const std::vector<std::string>& args) {
  CommandLine cl;
  if (args.empty()) usage_error("no command given (expected run, validate or info)");
  const std::string& first = args[0];
  if (first == "--help" || first == "-h" || first == "help") { cl.command = "help"; return cl; }
  if (first == "--version") { cl.command = "version"; return cl; }
  if (first != "run" && first != "validate" && first != "info")
    usage_error("unknown command '" + first + "' (expected run, validate or info)" + suggestion(first, kCommands));
  cl.command = first;
  const std::vector<std::string> known = options_of(cl.command);
  const auto takes = [&](const std::string& option) {
    for (const std::string& k : known)
      if (k == option) return true;
    return false;
  };
  std::size_t i = 1;
  const auto value_of = [&](const std::string& option) -> std::string {
    if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0) usage_error("option " + option + " needs a value");
    if (args[i + 1].empty()) usage_error("option " + option + " needs a value, got an empty string");
    return args[++i];
  };
  bool quiet = false, verbose = false;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") { cl.command = "help"; return cl; }
    if (a.rfind("-", 0) == 0 && !takes(a))
      usage_error("unknown option '" + a + "' for '" + cl.command + "'" + suggestion(a, known));
    if (a == "--output") cl.output = value_of(a);
    else if (a == "--restart") cl.restart = value_of(a);
    else if (a == "--ranks") cl.ranks = rank_count(value_of(a));
    else if (a == "--overwrite") cl.overwrite = true;
    else if (a == "--gathered-io") cl.gathered_io = true;
    else if (a == "--quiet") quiet = true;
    else if (a == "--verbose") verbose = true;
    else if (cl.command != "info" && cl.deck.empty()) cl.deck = a;
    else usage_error("unexpected argument '" + a + "' for '" + cl.command + "'");
  }
  if (quiet && verbose) usage_error("options --quiet and --verbose exclude each other; give one");
  cl.verbosity = quiet ? log::Verbosity::quiet : verbose ? log::Verbosity::verbose : log::Verbosity::normal;
  if (cl.command != "info" && cl.deck.empty()) usage_error("'" + cl.command + "' needs a deck file");
  return cl;
}

}  // namespace trident::app
