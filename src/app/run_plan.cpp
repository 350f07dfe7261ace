// The run's plan and its checks before work, shared by `run` and `validate` (app/run_plan.hpp).
#include "app/run_plan.hpp"

#include <algorithm>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "diffusion/decomposition.hpp"
#include "diffusion/halo.hpp"
#include "diffusion/start_file.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "io/paths.hpp"
#include "knn/points.hpp"
#include "ridge/matrix_market.hpp"
#include "ridge/problem.hpp"

namespace trident::app {

namespace {

// The study a checkpoint belongs to, by what it holds: diffusion's /field, knn's
// /knn/done, ridge's /ridge/done.
std::string checkpoint_study(const std::string& path) {
  const io::InputFile file(path, "checkpoint (--restart)");
  if (file.has("/field")) return "diffusion";
  if (file.has("/knn/done")) return "knn";
  if (file.has("/ridge/done")) return "ridge";
  throw InputError(path + ": not a trident checkpoint (it holds none of /field, /knn/done, /ridge/done)");
}

bool has_study(const deck::Deck& deck, const std::string& study) {
  return study == "diffusion" ? bool(deck.diffusion) : study == "knn" ? bool(deck.knn) : bool(deck.ridge);
}

// A checkpoint may be written at any step (a stop signal): its place must be usable.
void check_checkpoint_place(const RunPlan& plan, const std::string& study) {
  io::check_output_destination(MPI_COMM_SELF, plan.checkpoint_path(study), /*overwrite=*/true);
}

// The order of diffusion's prepare: the blocks, the halo's depth, the checkpoint's place,
// the start file (not read on a restart).
void check_diffusion(const RunPlan& plan, int ranks) {
  const deck::DiffusionSettings& s = *plan.deck.diffusion;
  int dims[2] = {0, 0};  // MPI's order: ranks along y, along x
  try {
    diffusion::block_layout(ranks, s.nx, s.ny, s.ranks, dims);
  } catch (const InputError& e) {  // located at the key that chose the layout
    throw InputError(plan.deck.source.at(s.ranks[0] > 0 ? "diffusion.ranks" : "diffusion.nx") + e.what());
  }
  try {
    diffusion::halo_width_for({dims[1], dims[0]}, s.nx, s.ny, s.halo_width, s.periodic_x() || s.periodic_y());
  } catch (const InputError& e) {
    throw InputError(plan.deck.source.at("diffusion.halo_width") + e.what());
  }
  check_checkpoint_place(plan, "diffusion");
  if (s.start.kind == "file" && plan.restart_study != "diffusion") diffusion::check_start_file(s.start, s.nx, s.ny);
  if (s.source.from_file) diffusion::check_start_file(s.source.as_file(), s.nx, s.ny, diffusion::kSourceFileRole);
  if (s.c_field()) {
    deck::StartField c;
    c.kind = "file";
    c.file = s.c_file;
    c.dataset = s.c_dataset;
    diffusion::check_start_file(c, s.nx, s.ny, "diffusivity file (diffusion.c.file)");
  }
}

// The order of knn's prepare: the references counted and k checked against them, the
// observations counted, the checkpoint's place. False where `reading` leaves the rest to
// the study (a CSV's rows are counted by reading it through).
bool check_knn(const RunPlan& plan, Reading reading) {
  const deck::KnnSettings& s = *plan.deck.knn;
  for (const deck::PointSource* points : {&s.references, &s.observations}) {
    if (points->kind == "csv" && reading == Reading::headers) return false;
    if (points->kind == "generate") continue;
    const std::int64_t count = knn::count_points(*points);
    if (points == &s.references) deck::check_k(s, count);
  }
  check_checkpoint_place(plan, "knn");
  return true;
}

// The order of ridge's prepare: the matrix's shape, the λ groups against the ranks, b
// against the matrix's rows, the prior and the weights (their lengths and values), the
// checkpoint's place. A Matrix Market file is read to its
// size line; an HDF5 matrix's row offsets only with headers_and_counts (else false: the
// study reads them first thing).
bool check_ridge(const RunPlan& plan, int ranks, Reading reading) {
  const deck::RidgeSettings& s = *plan.deck.ridge;
  using Kind = deck::RidgeMatrixSettings::Kind;
  std::int64_t rows = s.matrix.rows, columns = s.matrix.columns;
  if (s.matrix.kind == Kind::matrix_market) {
    const auto header = ridge::read_matrix_market_header(s.matrix.file);
    rows = header.rows;
    columns = header.columns;
  }
  if (s.matrix.kind == Kind::hdf5) {
    if (reading == Reading::headers) return false;
    const ridge::MatrixRows matrix(s.matrix, MPI_COMM_SELF);
    rows = matrix.rows();
    columns = matrix.columns();
  }
  deck::check_lambda_groups(s, ranks);
  ridge::check_rhs(s.rhs, rows);
  ridge::check_prior_and_weights(s, rows, columns);
  check_checkpoint_place(plan, "ridge");
  return true;
}

}  // namespace

std::string RunPlan::checkpoint_path(const std::string& study) const {
  if (study == "diffusion" && deck.diffusion && !deck.diffusion->checkpoint_file.empty())
    return deck.diffusion->checkpoint_file;
  return io::default_checkpoint_path(output_path);
}

std::vector<std::string> RunPlan::checkpoint_paths() const {
  std::vector<std::string> paths;
  for (const char* study : {"diffusion", "knn", "ridge"}) {
    const std::string path = checkpoint_path(study);
    if (has_study(deck, study) && std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
  }
  return paths;
}

RunPlan read_plan(const CommandLine& command_line, MPI_Comm comm) {
  RunPlan plan;
  mpi::collective(comm, [&] {
    plan.deck = deck::read_deck(command_line.deck);
    plan.output_path = command_line.output.empty() ? plan.deck.output.file : command_line.output;
    plan.overwrite = command_line.overwrite || plan.deck.output.overwrite;
    const deck::Source& source = plan.deck.source;
    if (!command_line.output.empty())
      source.resolve({"output.file", deck::yaml_scalar(plan.output_path) + "  # --output", false, "--output"});
    if (command_line.overwrite) source.resolve({"output.overwrite", "true  # --overwrite", false, "--overwrite"});
    if (plan.deck.output.log) {
      plan.log_path = plan.deck.output.log_file.empty() ? io::log_path_for(plan.output_path) : plan.deck.output.log_file;
      if (plan.deck.output.log_file.empty()) source.resolve({"output.log", deck::yaml_scalar(plan.log_path), true, ""});
    }
    plan.restart_path = command_line.restart;
    if (plan.restart_path.empty()) return;
    plan.restart_study = checkpoint_study(plan.restart_path);
    if (!has_study(plan.deck, plan.restart_study))
      throw InputError("--restart " + plan.restart_path + ": the checkpoint is a " + plan.restart_study +
                       " checkpoint, but the deck has no " + plan.restart_study + " section");
  });
  return plan;
}

void check_before_work(const RunPlan& plan, MPI_Comm comm, int ranks, Reading reading) {
  io::check_output_destination(comm, plan.output_path, plan.overwrite);
  if (!plan.log_path.empty()) io::check_log_destination(comm, plan.log_path);
  mpi::collective(comm, [&] {
    if (mpi::rank(comm) != 0) return;  // rank 0 reads the headers for the job
    const deck::Deck& deck = plan.deck;
    if (deck.diffusion) check_diffusion(plan, ranks);
    if (deck.knn && !check_knn(plan, reading)) return;
    if (deck.ridge) check_ridge(plan, ranks, reading);
  });
}

}  // namespace trident::app
