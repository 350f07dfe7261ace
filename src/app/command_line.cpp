// Parsing of the command line and the --help text (app/command_line.hpp).
#include "app/command_line.hpp"

#include <filesystem>
#include <optional>
#include <system_error>

#include "core/error.hpp"
#include "core/spelling.hpp"
#include "io/plain_numbers.hpp"

namespace trident::app {

namespace {

// Where the example decks, the manual and the plots are: in an install (PREFIX/bin/trident
// beside PREFIX/share/trident/examples), their installed folders, found from the
// executable's own path so that a moved prefix still works; else, in a build folder, the
// checkout's. TRIDENT_INSTALL_BINDIR, _DATADIR and _DOCDIR are the install's folders relative
// to its prefix (GNUInstallDirs', from src/CMakeLists.txt).
std::string where_to_start() {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path executable = fs::read_symlink("/proc/self/exe", error);
  fs::path prefix = executable.parent_path();
  for (const auto& part : fs::path(TRIDENT_INSTALL_BINDIR)) {
    (void)part;
    prefix = prefix.parent_path();
  }
  const fs::path examples = prefix / TRIDENT_INSTALL_DATADIR / "trident" / "examples";
  if (error || !fs::is_directory(examples, error)) {
    return R"(Example decks: inputs/*_small.yaml (seconds on two CPU cores), inputs/*_tutorial.yaml; the deck
keys, outputs, restarting and clusters are described in docs/ (start at README.md).
)";
  }
  const fs::path manual = prefix / TRIDENT_INSTALL_DOCDIR;
  return "Example decks: " + (examples / "*_small.yaml").string() +
         " (seconds on two CPU cores), *_tutorial.yaml;\n"
         "the manual (deck keys, outputs, restarting, clusters): " + manual.string() +
         " (start at README.md);\n"
         "plots: trident-summary, trident-diffusion-panels, trident-diffusion-frames, trident-knn-map,\n"
         "trident-lcurve (beside trident; each has --help).\n";
}

}  // namespace

std::string help_text() {
  return R"(usage: trident COMMAND [ARGS]

commands:
  run DECK [options]       run the studies of a YAML deck (under mpirun/srun for several ranks)
  validate DECK [options]  check what 'run' checks before it starts: the deck, the input
                           files' headers, the output's place, the rank layout; writes nothing
  info                     versions, Kokkos backend and devices, MPI, HDF5
  -V, --version            print the trident version
  -h, --help               print this help

options of run and validate (a value may also follow '=': --output=run.h5):
  -o, --output FILE      write results to FILE instead of the deck's output.file (default:
                         DECKNAME.h5 in the working folder; the checkpoint and the log,
                         FILE's name with .checkpoint.h5 and .log, beside it)
  --overwrite            replace an existing output file
  --restart CHECKPOINT   continue the study (diffusion, knn or ridge) that wrote CHECKPOINT,
                         the checkpoint of a run stopped by a signal
  --gathered-io          write through rank 0 even when HDF5 is parallel
  -q, --quiet            print only errors and the final line (the log file keeps all)
  -v, --verbose          also print the diagnostics meant for tuning, and the timer table
                         with the phases' full names
option of validate:
  -n, --ranks N          check the rank layout for a job of N ranks (default: the ranks
                         validate runs on)

Stopping: Ctrl-C (SIGINT), SIGTERM, SIGHUP or SIGUSR1 stop a run at its next check with a
checkpoint and the results so far (exit 75); a second one ends it at once, without a
checkpoint, leaving no unfinished file.

)" + where_to_start() + R"(Kokkos options (--kokkos-help lists them), e.g. --kokkos-tools-libs=LIB, are accepted too.
exit codes: 0 success, 1 run-time failure, 2 bad input, 75 stopped by a signal
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
  if (word.size() <= 2) return std::string();  // '-x': every short option is as close
  const std::string near = core::closest(word, known);
  return near.empty() ? std::string() : "; did you mean '" + near + "'?";
}

const std::vector<std::string> kCommands = {"run", "validate", "info"};

// The options each command takes, as `--help` lists them, long names first.
std::vector<std::string> options_of(const std::string& command) {
  std::vector<std::string> options = {"--help", "-h"};
  if (command == "info") return options;
  for (const char* o : {"--output", "--overwrite", "--restart", "--gathered-io", "--quiet", "--verbose", "-o", "-q", "-v"})
    options.push_back(o);
  if (command == "validate") {
    options.push_back("--ranks");
    options.push_back("-n");
  }
  return options;
}

// The long name of a short option ("-o" -> "--output"); other text as it is.
std::string long_name(const std::string& option) {
  if (option == "-o") return "--output";
  if (option == "-q") return "--quiet";
  if (option == "-v") return "--verbose";
  if (option == "-n") return "--ranks";
  if (option == "-h") return "--help";
  return option;
}

bool takes_value(const std::string& option) {
  return option == "--output" || option == "--restart" || option == "--ranks";
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
  if (first == "--version" || first == "-V" || first == "version") { cl.command = "version"; return cl; }
  if (first.rfind("-", 0) == 0)
    usage_error("unknown option '" + first + "' (expected a command: run, validate or info; or --help, --version)" +
                suggestion(first, {"--help", "--version"}));
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
  std::optional<std::string> inline_value;  // the VALUE of --option=VALUE
  const auto value_of = [&](const std::string& option) -> std::string {
    if (inline_value) {
      if (inline_value->empty()) usage_error("option " + option + " needs a value, got an empty string");
      return *inline_value;
    }
    if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0) usage_error("option " + option + " needs a value");
    if (args[i + 1].empty()) usage_error("option " + option + " needs a value, got an empty string");
    return args[++i];
  };
  bool quiet = false, verbose = false;
  for (; i < args.size(); ++i) {
    std::string a = args[i];
    inline_value.reset();
    const auto equals = a.find('=');
    if (a.rfind("--", 0) == 0 && equals != std::string::npos) {
      inline_value = a.substr(equals + 1);
      a = a.substr(0, equals);
    }
    if (a == "--help" || a == "-h") { cl.command = "help"; return cl; }
    if (cl.command == "run" && (a == "-n" || a == "--ranks" || a == "-np"))
      usage_error("option '" + a + "' is validate's; 'run' takes its ranks from the launcher: "
                  "mpirun -n N trident run DECK (srun -n N on SLURM)");
    if (a.rfind("-", 0) == 0 && a.size() > 1 && !takes(a))
      usage_error("unknown option '" + a + "' for '" + cl.command + "'" + suggestion(a, known));
    a = long_name(a);
    if (inline_value && !takes_value(a)) usage_error("option " + a + " takes no value, got '" + a + "=" + *inline_value + "'");
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
