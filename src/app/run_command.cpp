// The `run` command: the plan and its checks, the studies prepared, run and written, the
// timer table.
#include <algorithm>
#include <cstdio>
#include <future>
#include <memory>
#include <optional>
#include <vector>

#include "app/commands.hpp"
#include "app/own_checkpoints.hpp"
#include "app/run_plan.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/run_context.hpp"
#include "core/transport_choice.hpp"
#include "deck/deck.hpp"
#include "io/output_file.hpp"
#include "io/provenance.hpp"

namespace trident::app {

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t from = 0;
  while (from < text.size()) {
    std::size_t end = text.find('\n', from);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(from, end - from));
    from = end + 1;
  }
  return lines;
}

// mpirun binds each of one or two ranks to a core by default: a rank's host work (reading
// and generating inputs, staging, writing) then runs on that core alone while the host's
// others idle (kNN's 4.3 GB of result rows were filled in 0.1 s on the 16 cores of an H200
// host, in 3.0 s on one), and nothing else says why.
void warn_of_one_cpu(MPI_Comm comm, const DeviceBinding& binding) {
  int narrow = binding.one_cpu_of_many() ? 1 : 0;
  mpi::sum_over_ranks(comm, &narrow, 1);
  if (narrow == 0) return;
  log::warning(comm, std::to_string(narrow) + " of " + std::to_string(mpi::size(comm)) +
                         " rank(s) may use only one CPU, on a host with at least two for each of its ranks: "
                         "reading, generating and writing run on that CPU alone; start them with "
                         "'mpirun --bind-to none' (or --map-by slot:PE=N for N CPUs a rank), or "
                         "'srun --cpus-per-task=N'");
}

void log_start(const Runtime& runtime, const std::string& deck_file, const std::string& output) {
  const MPI_Comm comm = runtime.comm();
  log::info(comm, "running " + deck_file + " on " + std::to_string(mpi::size(comm)) + " rank(s), output " + output +
                      "; version " + BuildInfo::trident_version() + " (commit " + BuildInfo::commit() + "; Kokkos " +
                      BuildInfo::kokkos_version() + ", " + BuildInfo::kokkos_backend() + ")");
  log::info(comm, "Kokkos Kernels " + BuildInfo::kokkos_kernels_version() + ", MPI " + BuildInfo::mpi_library() +
                      ", HDF5 " + BuildInfo::hdf5_version() + (BuildInfo::hdf5_parallel() ? " (parallel)" : " (serial)") +
                      ", GPU-aware MPI: " + (BuildInfo::mpi_gpu_aware() ? "yes" : "no") + " (" +
                      BuildInfo::mpi_gpu_aware_reason() + ")");
  const core::Overrides& overrides = core::read_overrides();
  if (!overrides.active.empty()) log::info(comm, "environment overrides: " + overrides.describe());
  warn_of_one_cpu(comm, runtime.binding());
}

// The device's parts of the start (Runtime::startup_parts).
void add_device_parts(Timers& timers, const Runtime::StartupParts& parts) {
  timers.add("startup.device", parts.device);
  timers.add("startup.context", parts.context);
  timers.add("startup.kokkos", parts.kokkos);
}

core::TransportChoice log_transport(const Runtime& runtime) {
  const core::TransportChoice choice = core::choose_transport(runtime.comm(), runtime.binding());
  log::info(runtime.comm(), "device data between ranks: " + choice.describe());
  return choice;
}

// Once the device is up: each rank's line (host, device, CPUs) and the transport.
core::TransportChoice log_device(const Runtime& runtime) {
  log::each_rank(runtime.comm(), runtime.binding().describe());
  return log_transport(runtime);
}

// The log file, once the checks have passed (a refused deck leaves no log behind): what
// was said so far, then the resolved deck, the file's own.
void open_log(const RunPlan& plan, MPI_Comm comm) {
  if (plan.log_path.empty()) {
    log::close_file();  // output.log: false: keep nothing for a file
    return;
  }
  mpi::collective(comm, [&] {
    try {
      log::open_file(comm, plan.log_path);
    } catch (const RunError& e) {
      throw InputError(e.what());  // before any work: the destination is bad input
    }
  });
  log::info(comm, "log file " + plan.log_path);
  std::string resolved;
  for (const std::string& line : split_lines(deck::resolved_text(plan.deck.source))) resolved += "  " + line + "\n";
  log::to_file(comm, "resolved deck (every key with the value it runs with; '# default' where the deck "
                     "gave none):\n" + resolved);
}

}  // namespace

namespace {

struct PreparedOne {
  std::string name;
  std::unique_ptr<PreparedStudy> study;
};

// The run's context for one study: only the study whose checkpoint --restart names
// resumes; the deck's other studies run in full (a study before it in the deck completed
// in the stopped run, but its results went to that run's output, not to the checkpoint).
RunContext context_for(const RunContext& common, const std::string& restart_study, const std::string& study) {
  RunContext context = common;
  if (restart_study != study) context.restart_path.clear();
  return context;
}

// Every study reads and checks its inputs, settles its rank layout and checks its memory
// before the output file exists: a mistake there leaves nothing behind. `contexts` keeps
// each study's context alive as long as the study. The device starts when a study first
// needs it: kNN reads its points and ridge its rows of A on the host first; diffusion
// needs it from the start (StudyPlan::device_from_start).
std::vector<PreparedOne> prepare_studies(const RunPlan& plan, const RunContext& common,
                                         std::vector<std::unique_ptr<RunContext>>& contexts) {
  std::vector<PreparedOne> studies;
  for (const PlannedStudy& planned : plan.studies) {
    contexts.push_back(std::make_unique<RunContext>(context_for(common, plan.restart_study, planned.name())));
    RunContext& context = *contexts.back();
    if (planned.plan->device_from_start()) context.device_ready();
    auto t = common.timers.scope(planned.name() + ".prepare");
    studies.push_back({planned.name(), planned.plan->prepare(context, plan.checkpoint_path(planned))});
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
  timers.add("startup.loading", runtime.startup_parts().loading);
  timers.add("startup.mpi", runtime.startup_parts().mpi);
  // listed here; measured when the device starts (during prepare: start_device below)
  add_device_parts(timers, Runtime::StartupParts{});
  const std::string start_time = io::utc_now();
  std::optional<Timers::Scope> step(std::in_place, timers, "deck");
  const RunPlan plan = read_plan(command_line, comm);
  const deck::Deck& deck = plan.deck;
  const std::string& output_path = plan.output_path;
  log_start(runtime, deck.source.file, output_path);
  // what validate checks, before anything is read or allocated: a wrong file name or rank
  // layout ends the run at once, in validate's words
  check_before_work(plan, comm, mpi::size(comm), Reading::headers);
  open_log(plan, comm);
  // The inputs' checksums for the provenance, taken on rank 0 beside the run (a large
  // matrix or point file takes seconds to read again).
  std::future<std::string> input_checksums;
  if (mpi::rank(comm) == 0) {
    std::vector<std::string> inputs = {deck.source.file};
    if (!plan.restart_path.empty()) inputs.push_back(plan.restart_path);
    for (const std::string& file : deck::input_files(deck.source))
      if (std::find(inputs.begin(), inputs.end(), file) == inputs.end()) inputs.push_back(file);
    input_checksums = std::async(std::launch::async, [inputs] { return io::checksums(inputs); });
  }
  const OwnCheckpoints checkpoints(comm, plan.checkpoint_paths(), plan.restart_path);

  RunContext context{comm, timers, runtime.binding(), command_line.restart, deck.output.progress_seconds,
                     deck.output.compression};
  context.overrides = core::read_overrides();
  std::optional<core::TransportChoice> transport;
  context.start_device = [&]() {
    if (!transport) {
      runtime.start_device();
      add_device_parts(timers, runtime.startup_parts());
      transport = log_device(runtime);
    }
    return *transport;
  };
  step.emplace(timers, "prepare");
  std::vector<std::unique_ptr<RunContext>> contexts;
  std::vector<PreparedOne> studies = prepare_studies(plan, context, contexts);
  context.device_ready();  // (every study has started it by now)

  step.emplace(timers, "open_output");
  const bool texts = std::any_of(studies.begin(), studies.end(), [](const PreparedOne& s) { return s.study->writes_texts(); });
  io::OutputFile output(comm, output_path, plan.overwrite,
                        command_line.gathered_io || texts ? io::Mode::gathered : io::Mode::automatic);
  log::info(comm, std::string("writing ") + output.partial_path() + " (" +
                      (output.parallel() ? "parallel HDF5" : "gathered to rank 0") + ")");
  std::string status = "completed";
  int exit_code = kExitOk;
  const PlannedStudy* running = nullptr;  // the study under way
  try {
    io::write_provenance(output, deck.source.file, deck.source.text, deck::resolved_text(deck.source),
                         deck.studies, runtime.binding(), start_time);
    for (std::size_t i = 0; i < studies.size(); ++i) {
      step.emplace(timers, studies[i].name);
      running = &plan.studies[i];
      studies[i].study->run(output);
    }
  } catch (const StudyStopped& e) {
    status = e.what();  // keep what was computed, then report
    exit_code = e.exit_code();
  } catch (const CollectiveError&) {
    output.discard();  // every rank failed the same way: leave nothing half-written
    throw;
  }
  // The studies' device memory and communicators go before the table: freeing them is part
  // of the run (NCCL's teardown took 0.36 s of a 2.1 s two-GPU run, outside the table).
  step.emplace(timers, "release");
  studies.clear();
  step.emplace(timers, "close_output");
  io::write_run_end(output, status, timers, input_checksums.valid() ? input_checksums.get() : std::string());
  output.commit();
  mpi::collective(comm, [&] {  // the files the studies keep beside the output
    if (mpi::rank(comm) == 0)
      for (const PlannedStudy& study : plan.studies) study.plan->after_output(output_path);
  });
  if (exit_code == kExitOk) checkpoints.remove_after_completion();
  step.reset();
  const std::string summary = timers.summary(comm);
  log::block(comm, summary);
  if (mpi::rank(comm) == 0 && !log::quiet()) set_exit_report(timers.steps_seconds());
  log::result(comm, "wrote " + output_path);
  if (exit_code == kExitStopped && running) {
    const std::string launcher = mpi::size(comm) > 1 ? "mpirun -n " + std::to_string(mpi::size(comm)) + " " : "";
    log::result(comm, "to resume: " + launcher + "trident run " + deck.source.file + " --restart " +
                          plan.checkpoint_path(*running) + " --output NEW.h5 (the stopped run's results stay in " +
                          output_path + ")");
  }
  if (exit_code != kExitOk) throw CollectiveError(status, exit_code);
  return kExitOk;
}

}  // namespace trident::app
