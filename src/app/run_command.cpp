#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include "app/commands.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/run_context.hpp"
#include "deck/deck.hpp"
#include "diffusion/checkpoint.hpp"
#include "diffusion/study.hpp"
#include "diffusion/xdmf.hpp"
#include "io/output_file.hpp"
#include "io/provenance.hpp"
#include "knn/study.hpp"
#include "ridge/study.hpp"

namespace trident::app {

namespace {

deck::Deck read_checked_deck(const CommandLine& command_line, MPI_Comm comm) {
  deck::Deck deck;
  mpi::collective(comm, [&] {
    deck = deck::read_deck(command_line.deck);
    if (!command_line.restart.empty() && !deck.diffusion)
      throw InputError("--restart " + command_line.restart +
                       ": the deck has no diffusion section, the only study that restarts");
  });
  return deck;
}

void log_start(const Runtime& runtime, const std::string& deck_file, const std::string& output) {
  const MPI_Comm comm = runtime.comm();
  log::info(comm, version_line() + ", " + std::to_string(mpi::size(comm)) + " rank(s), deck " + deck_file +
                      ", output " + output);
  log::info(comm, "Kokkos Kernels " + BuildInfo::kokkos_kernels_version() + ", MPI " + BuildInfo::mpi_library() +
                      ", HDF5 " + BuildInfo::hdf5_version() + (BuildInfo::hdf5_parallel() ? " (parallel)" : " (serial)") +
                      ", GPU-aware MPI: " + (BuildInfo::mpi_gpu_aware() ? "yes" : "no") + " (" +
                      BuildInfo::mpi_gpu_aware_reason() + ")");
  log::each_rank(comm, runtime.binding().describe());
}

}  // namespace

int validate_command(const CommandLine& command_line, const Runtime& runtime) {
  const deck::Deck deck = read_checked_deck(command_line, runtime.comm());
  std::ostringstream s;
  s << deck.source.file << ": valid; studies:";
  if (deck.diffusion)
    s << " diffusion (" << deck.diffusion->nx << " x " << deck.diffusion->ny << " cells, "
      << deck.diffusion->steps << " steps, " << deck.diffusion->precision << ")";
  if (deck.knn)
    s << " knn (k = " << deck.knn->k << ", observations " << deck.knn->observations.describe()
      << ", references " << deck.knn->references.describe() << ")";
  if (deck.ridge)
    s << " ridge (" << deck.ridge->lambdas.size() << " lambda values, "
      << deck::precision_name(deck.ridge->precision) << ", "
      << deck::kernels_name(deck.ridge->solver.kernels) << " kernels)";
  s << "; output " << deck.output.file;
  log::info(runtime.comm(), s.str());
  return kExitOk;
}

namespace {

struct NamedStudy {
  const char* name;
  std::unique_ptr<PreparedStudy> study;
};

// Every study reads and checks its inputs, settles its rank layout and checks its memory
// before the output file exists: a mistake there leaves nothing behind.
std::vector<NamedStudy> prepare_studies(const deck::Deck& deck, RunContext& context,
                                        const std::string& output_path) {
  std::vector<NamedStudy> studies;
  if (deck.diffusion) {
    const std::string checkpoint = deck.diffusion->checkpoint_file.empty()
                                       ? diffusion::default_checkpoint_path(output_path)
                                       : deck.diffusion->checkpoint_file;
    auto t = context.timers.scope("diffusion.prepare");
    studies.push_back({"diffusion", diffusion::prepare_study(*deck.diffusion, context, checkpoint)});
  }
  if (deck.knn) {
    auto t = context.timers.scope("knn.prepare");
    studies.push_back({"knn", knn::prepare_study(*deck.knn, context)});
  }
  if (deck.ridge) {
    auto t = context.timers.scope("ridge.prepare");
    studies.push_back({"ridge", ridge::prepare_study(*deck.ridge, context)});
  }
  return studies;
}

}  // namespace

int run_command(const CommandLine& command_line, const Runtime& runtime) {
  const MPI_Comm comm = runtime.comm();
  // The steps of the whole run, in order: startup (MPI, Kokkos, devices), deck, prepare,
  // open_output, each study, close_output; the summary compares them with the wall time.
  Timers timers;
  timers.add("startup", process_seconds());
  const std::string start_time = io::utc_now();
  std::optional<Timers::Scope> step(std::in_place, timers, "deck");
  const deck::Deck deck = read_checked_deck(command_line, comm);
  const std::string output_path = command_line.output.empty() ? deck.output.file : command_line.output;
  const bool overwrite = command_line.overwrite || deck.output.overwrite;
  log_start(runtime, deck.source.file, output_path);
  io::check_output_destination(comm, output_path, overwrite);

  RunContext context{comm, timers, runtime.binding(), command_line.restart, deck.output.progress_seconds};
  step.emplace(timers, "prepare");
  std::vector<NamedStudy> studies = prepare_studies(deck, context, output_path);

  step.emplace(timers, "open_output");
  io::OutputFile output(comm, output_path, overwrite,
                        command_line.gathered_io ? io::Mode::gathered : io::Mode::automatic);
  log::info(comm, std::string("writing ") + output.partial_path() + " (" +
                      (output.parallel() ? "parallel HDF5" : "gathered to rank 0") + ")");
  std::string status = "completed";
  int exit_code = kExitOk;
  try {
    io::write_provenance(output, deck.source.file, deck.source.text, runtime.binding(), start_time);
    for (NamedStudy& s : studies) {
      step.emplace(timers, s.name);
      s.study->run(output);
    }
  } catch (const StudyStopped& e) {
    status = e.what();  // keep what was computed, then report
    exit_code = e.exit_code();
  } catch (const CollectiveError&) {
    output.discard();  // every rank failed the same way: leave nothing half-written
    throw;
  }
  step.emplace(timers, "close_output");
  io::write_run_end(output, status, timers);
  output.commit();
  if (deck.diffusion) {
    mpi::collective(comm, [&] {
      if (mpi::rank(comm) == 0) diffusion::write_xdmf(output_path);
    });
  }
  step.reset();
  const std::string summary = timers.summary(comm);
  if (mpi::rank(comm) == 0 && !log::quiet()) std::fputs(summary.c_str(), stdout);
  log::info(comm, "wrote " + output_path);
  if (exit_code != kExitOk) throw CollectiveError(status, exit_code);
  return kExitOk;
}

}  // namespace trident::app
