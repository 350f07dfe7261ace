// The knn study as app's table sees it (core/study.hpp): its section read, its checks before
// work in the order of prepare_study, and its summary.
#include "deck/reader.hpp"
#include "io/output_file.hpp"
#include "knn/knn.hpp"
#include "knn/detail/points.hpp"

namespace trident::knn {

namespace {

class KnnPlan : public StudyPlan {
 public:
  explicit KnnPlan(const deck::Section& top) : settings_(parse_knn(top)) {}

  std::string summary() const override {
    return "knn (k = " + settings_.k_text() + ", observations " + settings_.observations.describe() +
           ", references " + settings_.references.describe() + ")";
  }

  // The order of prepare: the references counted and k checked against them, the
  // observations counted, the checkpoint's place. A CSV's rows are counted by reading it
  // through: left to the study unless checks.read_counts.
  bool check_before_work(const WorkChecks& checks) const override {
    for (const PointSource* points : {&settings_.references, &settings_.observations}) {
      if (points->kind == PointSource::Kind::csv && !checks.read_counts) return false;
      if (points->kind == PointSource::Kind::generate) continue;
      const std::int64_t count = count_points(*points);
      if (points == &settings_.references) check_k(settings_, count);
    }
    io::check_output_destination(MPI_COMM_SELF, checks.checkpoint_path, /*overwrite=*/true);
    return true;
  }

  std::unique_ptr<PreparedStudy> prepare(RunContext& context, const std::string& checkpoint_path) const override {
    return prepare_study(settings_, context, checkpoint_path);
  }

 private:
  KnnSettings settings_;
};

std::unique_ptr<StudyPlan> read(const deck::Section& top) { return std::make_unique<KnnPlan>(top); }

}  // namespace

Study study() { return {"knn", "/knn/done", &read}; }

}  // namespace trident::knn
