// Ridge checkpoints written and read (checkpoint.hpp), with the fingerprint of the problem
// they belong to, and the solution rows that outputs and checkpoints hold, each written by
// the rank that computed it.
#include "ridge/detail/checkpoint.hpp"

#include <algorithm>
#include <utility>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/runtime.hpp"
#include "io/exact_text.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "io/sha256.hpp"

namespace trident::ridge {

namespace {

// What a restart must share with the run that wrote the checkpoint, as (deck key, value)
// pairs: the same matrix, right-hand side, λ list and solver give each λ the same result.
std::vector<std::pair<std::string, std::string>> fingerprint(const ridge::RidgeSettings& s, const Problem& p) {
  const auto& m = s.matrix;
  std::string matrix;
  switch (m.kind) {
    case ridge::RidgeMatrixSettings::Kind::generate:
      matrix = "generate(rows=" + std::to_string(m.rows) + ", columns=" + std::to_string(m.columns) +
               ", density=" + io::exact_text(m.density) + ", seed=" + std::to_string(m.seed) + ")";
      break;
    case ridge::RidgeMatrixSettings::Kind::matrix_market: matrix = "matrix_market(" + m.file + ")"; break;
    case ridge::RidgeMatrixSettings::Kind::hdf5: matrix = "hdf5(" + m.file + ", " + m.group + ")"; break;
  }
  const auto& r = s.rhs;
  const std::string rhs = r.kind == ridge::RidgeRhsSettings::Kind::generate
                              ? "generate(mean=" + io::exact_text(r.mean) + ", std=" + io::exact_text(r.std) +
                                    ", seed=" + std::to_string(r.seed) + ")"
                              : "hdf5(" + r.file + ", " + r.dataset + ")";
  std::string lambdas;
  for (double l : s.lambdas) lambdas += (lambdas.empty() ? "" : ", ") + io::exact_text(l);
  return {{"ridge.matrix", matrix},
          {"ridge.matrix (its shape and nonzeros)", std::to_string(p.rows()) + " x " + std::to_string(p.columns()) +
                                                        ", " + std::to_string(p.nonzeros()) + " nonzeros"},
          {"ridge.rhs", rhs},
          {"ridge.lambdas", "[" + lambdas + "]"},
          {"ridge.solver.atol", io::exact_text(s.solver.atol)},
          {"ridge.solver.btol", io::exact_text(s.solver.btol)},
          {"ridge.solver.conlim", io::exact_text(s.solver.conlim)},
          {"ridge.solver.max_iterations", std::to_string(s.solver.max_iterations)},
          {"ridge.solver.kernels", ridge::kernels_name(s.solver.kernels)},
          {"ridge.precision", core::precision_name(s.precision)},
          {"ridge.keep_solutions", s.keep_solutions ? "true" : "false"},
          {"ridge.refine_corner", std::to_string(s.refine_corner)},
          {"ridge.refine_discrepancy", std::to_string(s.refine_discrepancy)},
          {"ridge.noise_level", io::exact_text(s.noise_level)},
          {"ridge.tau", io::exact_text(s.tau)},
          {"ridge.prior", s.prior.given() ? "hdf5(" + s.prior.file + ", " + s.prior.dataset + ")" : "none"},
          {"ridge.weights", s.weights.given() ? "hdf5(" + s.weights.file + ", " + s.weights.dataset + ")" : "none"}};
}

// The input files' contents, which the fingerprint's names and sizes do not show (a right-
// hand side edited in place): (key, sha256) pairs, taken on rank 0. Collective.
std::vector<std::pair<std::string, std::string>> contents(MPI_Comm comm, const ridge::RidgeSettings& s) {
  const bool matrix_file = s.matrix.kind != ridge::RidgeMatrixSettings::Kind::generate;
  const bool rhs_file = s.rhs.kind != ridge::RidgeRhsSettings::Kind::generate;
  const std::vector<std::string> digests = io::sha256_on_root(
      comm, {matrix_file ? s.matrix.file : "", rhs_file ? s.rhs.file : "", s.prior.file, s.weights.file});
  std::vector<std::pair<std::string, std::string>> out;
  if (matrix_file) out.emplace_back("ridge.matrix (its file's sha256)", digests[0]);
  if (rhs_file) out.emplace_back("ridge.rhs (its file's sha256)", digests[1]);
  if (s.prior.given()) out.emplace_back("ridge.prior (its file's sha256)", digests[2]);
  if (s.weights.given()) out.emplace_back("ridge.weights (its file's sha256)", digests[3]);
  return out;
}

template <class T, class F>
std::vector<T> column(const std::vector<LambdaOutcome>& outcomes, F field) {
  std::vector<T> out;
  for (const auto& o : outcomes) out.push_back(static_cast<T>(field(o)));
  return out;
}

}  // namespace

void write_solution_rows(MPI_Comm comm, io::OutputFile& out, const std::string& dataset, const GatheredSweep& curve,
                         std::uint64_t columns, const std::vector<double>& shift) {
  const std::vector<double> all = curve.lambdas();
  out.create_dataset<double>(dataset, {all.size(), columns});
  const std::vector<double>& mine = curve.local_lambdas();
  std::int64_t rounds = static_cast<std::int64_t>(mine.size());
  mpi::max_over_ranks(comm, &rounds, 1);
  std::vector<double> shifted;
  for (std::int64_t r = 0; r < rounds; ++r) {  // one row per collective write
    std::uint64_t row = 0, count = 0;
    const double* data = nullptr;
    if (r < static_cast<std::int64_t>(mine.size())) {
      row = static_cast<std::uint64_t>(std::lower_bound(all.begin(), all.end(), mine[r]) - all.begin());
      count = 1;
      data = curve.local_solutions().data() + static_cast<std::size_t>(r) * columns;
      if (!shift.empty()) {
        shifted.assign(data, data + columns);
        for (std::size_t i = 0; i < shifted.size(); ++i) shifted[i] += shift[i];
        data = shifted.data();
      }
    }
    out.write_slab<double>(dataset, {row, 0}, {count, columns}, data);
  }
}

void write_checkpoint(MPI_Comm comm, const std::string& path, const ridge::RidgeSettings& settings,
                      const Problem& problem, const GatheredSweep& finished) {
  const std::vector<LambdaOutcome>& o = finished.outcomes();
  const auto n = static_cast<std::uint64_t>(o.size());
  io::OutputFile file(comm, path, /*overwrite=*/true);
  file.create_group("/ridge");
  file.write_array<double>("/ridge/done", finished.lambdas(), {n});
  file.write_array<std::int64_t>("/ridge/iterations", column<std::int64_t>(o, [](const LambdaOutcome& x) { return x.iterations; }), {n});
  file.write_array<std::int32_t>("/ridge/stop_reason", column<std::int32_t>(o, [](const LambdaOutcome& x) { return x.stop_reason; }), {n});
  file.write_array<double>("/ridge/residual_norm", finished.residual_norms(), {n});
  file.write_array<double>("/ridge/solution_norm", finished.solution_norms(), {n});
  // every finished λ's solution: the rules and /ridge/solution need them after a restart
  write_solution_rows(comm, file, "/ridge/solutions", finished, static_cast<std::uint64_t>(problem.a.columns));
  file.attribute("/", "study", std::string("ridge"));
  file.attribute("/", "trident_version", BuildInfo::trident_version());
  for (const auto& [key, value] : fingerprint(settings, problem)) file.attribute("/ridge", key, value);
  for (const auto& [key, value] : contents(comm, settings)) file.attribute("/ridge", key, value);
  file.commit();
}

GatheredSweep read_checkpoint(MPI_Comm comm, const std::string& path, const ridge::RidgeSettings& settings,
                              const Problem& problem) {
  std::vector<LambdaOutcome> outcomes;
  std::vector<double> local_lambdas, local_solutions;
  const auto digests = contents(comm, settings);
  mpi::collective(comm, [&] {
    const io::InputFile file(path, "checkpoint (--restart)");
    if (!file.has("/ridge/done")) throw InputError(path + ": not a trident ridge checkpoint (no /ridge/done)");
    for (const auto& [key, value] : fingerprint(settings, problem)) {
      const std::string in_file = file.string_attribute("/ridge", key);
      if (in_file != value)
        throw InputError(path + ": the checkpoint was written with " + key + " = " + in_file +
                         ", but the deck has " + value + "; restart with the deck that wrote it");
    }
    for (const auto& [key, value] : digests) {
      if (!file.has_attribute("/ridge", key)) continue;  // a checkpoint of an earlier trident
      const std::string in_file = file.string_attribute("/ridge", key);
      if (in_file != value)
        throw InputError(path + ": the checkpoint was written with " + key + " = " + in_file + ", but the file now has " +
                         value + ": it changed since; restart with the file that wrote it");
    }
    const std::vector<double> lambdas = file.read<double>("/ridge/done");
    const std::vector<std::int64_t> iterations = file.read<std::int64_t>("/ridge/iterations");
    const std::vector<std::int32_t> reasons = file.read<std::int32_t>("/ridge/stop_reason");
    const std::vector<double> residual = file.read<double>("/ridge/residual_norm");
    const std::vector<double> solution = file.read<double>("/ridge/solution_norm");
    const std::size_t n = lambdas.size();
    if (iterations.size() != n || reasons.size() != n || residual.size() != n || solution.size() != n)
      throw InputError(path + ": the checkpoint's /ridge datasets differ in length (is it damaged?)");
    for (std::size_t j = 0; j < n; ++j) {
      LambdaOutcome o;
      o.lambda = lambdas[j];
      o.iterations = iterations[j];
      o.stop_reason = reasons[j];
      o.residual_norm = residual[j];
      o.solution_norm = solution[j];
      outcomes.push_back(o);
    }
    const auto columns = static_cast<std::uint64_t>(problem.a.columns);
    if (!file.has("/ridge/solutions") || file.dims("/ridge/solutions") != std::vector<std::uint64_t>{n, columns})
      throw InputError(path + ": the checkpoint's /ridge/solutions is not " + std::to_string(n) + " x " +
                       std::to_string(columns) + " (is it damaged?)");
    const auto block = rank_block(n, mpi::size(comm), mpi::rank(comm));
    local_lambdas.assign(lambdas.begin() + static_cast<std::ptrdiff_t>(block.first),
                         lambdas.begin() + static_cast<std::ptrdiff_t>(block.second));
    if (block.second > block.first)
      local_solutions = file.read<double>("/ridge/solutions", {block.first, 0}, {block.second - block.first, columns});
  });
  return GatheredSweep::from_outcomes(std::move(outcomes), std::move(local_lambdas), std::move(local_solutions));
}

}  // namespace trident::ridge
