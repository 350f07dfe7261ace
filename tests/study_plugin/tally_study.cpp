// The tally study (tally_study.hpp): its section read and range-checked, a check before work
// against the job's ranks, and a run that writes its group.
#include "tally_study.hpp"

#include <cstdint>
#include <vector>

#include "core/balanced_split.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "deck/reader.hpp"
#include "io/output_file.hpp"

namespace trident::tally {

namespace {

struct Settings {
  std::int64_t count = 0;
  double offset = 0;
  std::string count_at;  // "FILE:LINE:COL: " of tally.count
};

class TallyRun : public PreparedStudy {
 public:
  TallyRun(const Settings& settings, const RunContext& context) : settings_(settings), comm_(context.comm) {}

  void run(io::OutputFile& output) override {
    const auto [first, count] = core::balanced_part(settings_.count, mpi::size(comm_), mpi::rank(comm_));
    std::vector<double> values(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) values[i] = settings_.offset + double(first + i) * double(first + i);
    output.create_group("/tally");
    output.create_dataset<double>("/tally/values", {std::uint64_t(settings_.count)});
    output.write_slab("/tally/values", {std::uint64_t(first)}, {std::uint64_t(count)}, values.data());
    output.describe("/tally/values", {"index"}, "offset plus the index squared", "1");
  }

 private:
  Settings settings_;
  MPI_Comm comm_;
};

class TallyPlan : public StudyPlan {
 public:
  explicit TallyPlan(const deck::Section& top) {
    const deck::Section s = top.section("tally", {"count", "offset"});
    settings_.count = s.integer("count", deck::at_least(1));
    settings_.offset = s.real("offset", deck::any(), 0.0);
    settings_.count_at = top.source().at("tally.count");
  }

  std::string summary() const override { return "tally (" + std::to_string(settings_.count) + " values)"; }

  // Every rank writes at least one value.
  bool check_before_work(const WorkChecks& checks) const override {
    if (settings_.count < checks.ranks)
      throw InputError(settings_.count_at + "tally.count: expected at least the number of ranks (" +
                       std::to_string(checks.ranks) + "), got " + std::to_string(settings_.count));
    return true;
  }

  std::unique_ptr<PreparedStudy> prepare(RunContext& context, const std::string&) const override {
    context.device_ready();
    return std::make_unique<TallyRun>(settings_, context);
  }

 private:
  Settings settings_;
};

std::unique_ptr<StudyPlan> read(const deck::Section& top) { return std::make_unique<TallyPlan>(top); }

}  // namespace

Study study() { return {"tally", "/tally/done", &read}; }

}  // namespace trident::tally
