// The ridge study as app's table sees it (core/study.hpp): its section read, its checks
// before work in the order of prepare_study, and its summary.
#include "deck/reader.hpp"
#include "io/output_file.hpp"
#include "ridge/detail/matrix_market.hpp"
#include "ridge/detail/matrix_rows.hpp"
#include "ridge/detail/problem.hpp"
#include "ridge/ridge.hpp"

namespace trident::ridge {

namespace {

class RidgePlan : public StudyPlan {
 public:
  explicit RidgePlan(const deck::Section& top) : settings_(ridge::parse_ridge(top)) {}

  std::string summary() const override {
    return "ridge (" + std::to_string(settings_.lambdas.size()) + " lambda values, " +
           core::precision_name(settings_.precision) + ", " + ridge::kernels_name(settings_.solver.kernels) +
           " kernels)";
  }

  // The order of prepare: the matrix's shape, the λ groups against the ranks, b against the
  // matrix's rows, the prior and the weights (their lengths and values), the checkpoint's
  // place. A Matrix Market file is read to its size line; an HDF5 matrix's row offsets only
  // with checks.read_counts (else the study reads them first thing).
  bool check_before_work(const WorkChecks& checks) const override {
    using Kind = ridge::RidgeMatrixSettings::Kind;
    std::int64_t rows = settings_.matrix.rows, columns = settings_.matrix.columns;
    if (settings_.matrix.kind == Kind::matrix_market) {
      const auto header = read_matrix_market_header(settings_.matrix.file);
      rows = header.rows;
      columns = header.columns;
    }
    if (settings_.matrix.kind == Kind::hdf5) {
      if (!checks.read_counts) return false;
      const MatrixRows matrix(settings_.matrix, MPI_COMM_SELF);
      rows = matrix.rows();
      columns = matrix.columns();
    }
    ridge::check_lambda_groups(settings_, checks.ranks);
    check_rhs(settings_.rhs, rows);
    check_prior_and_weights(settings_, rows, columns);
    io::check_output_destination(MPI_COMM_SELF, checks.checkpoint_path, /*overwrite=*/true);
    return true;
  }

  std::unique_ptr<PreparedStudy> prepare(RunContext& context, const std::string& checkpoint_path) const override {
    return prepare_study(settings_, context, checkpoint_path);
  }

 private:
  ridge::RidgeSettings settings_;
};

std::unique_ptr<StudyPlan> read(const deck::Section& top) { return std::make_unique<RidgePlan>(top); }

}  // namespace

Study study() { return {"ridge", "/ridge/done", &read}; }

}  // namespace trident::ridge
