// The `validate` command: every check `run` makes before it works (app/run_plan.hpp), for a
// job of --ranks N ranks, then one line saying what the deck would run. Writes nothing.
#include <sstream>

#include "app/commands.hpp"
#include "app/run_plan.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/log.hpp"

namespace trident::app {

int validate_command(const CommandLine& command_line, const Runtime& runtime) {
  const MPI_Comm comm = runtime.comm();
  const RunPlan plan = read_plan(command_line, comm);
  const int ranks = command_line.ranks > 0 ? command_line.ranks : mpi::size(comm);
  check_before_work(plan, comm, ranks, Reading::headers_and_counts);
  const deck::Deck& deck = plan.deck;
  std::ostringstream s;
  s << deck.source.file << ": valid for " << ranks << (ranks == 1 ? " rank" : " ranks") << "; studies:";
  if (deck.diffusion)
    s << " diffusion (" << deck.diffusion->nx << " x " << deck.diffusion->ny << " cells, "
      << deck.diffusion->steps << " steps, " << core::precision_name(deck.diffusion->precision) << ")";
  if (deck.knn)
    s << " knn (k = " << deck.knn->k_text() << ", observations " << deck.knn->observations.describe()
      << ", references " << deck.knn->references.describe() << ")";
  if (deck.ridge)
    s << " ridge (" << deck.ridge->lambdas.size() << " lambda values, "
      << core::precision_name(deck.ridge->precision) << ", "
      << deck::kernels_name(deck.ridge->solver.kernels) << " kernels)";
  s << "; output " << plan.output_path;
  if (!plan.restart_study.empty()) s << "; " << plan.restart_study << " resumes from " << plan.restart_path;
  log::result(comm, s.str());
  return kExitOk;
}

}  // namespace trident::app
