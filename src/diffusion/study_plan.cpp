// The diffusion study as app's table sees it (core/study.hpp): its section read, its checks
// before work in the order of prepare_study, its summary and its XDMF beside the output.
#include <sstream>

#include "core/error.hpp"
#include "deck/reader.hpp"
#include "diffusion/detail/decomposition.hpp"
#include "diffusion/diffusion.hpp"
#include "diffusion/detail/halo.hpp"
#include "diffusion/detail/start_file.hpp"
#include "diffusion/detail/xdmf.hpp"
#include "io/output_file.hpp"

namespace trident::diffusion {

namespace {

class DiffusionPlan : public StudyPlan {
 public:
  explicit DiffusionPlan(const deck::Section& top)
      : settings_(parse_diffusion(top)),
        ranks_at_(top.source().at(settings_.ranks[0] > 0 ? "diffusion.ranks" : "diffusion.nx")),
        halo_width_at_(top.source().at("diffusion.halo_width")) {}

  std::string summary() const override {
    std::ostringstream s;
    s << "diffusion (" << settings_.nx << " x " << settings_.ny << " cells, " << settings_.steps << " steps, "
      << core::precision_name(settings_.precision) << ")";
    return s.str();
  }

  std::string checkpoint_file() const override { return settings_.checkpoint_file; }

  // The order of prepare: the blocks, the halo's depth, the checkpoint's place, the start
  // file (not read on a restart).
  bool check_before_work(const WorkChecks& checks) const override {
    int dims[2] = {0, 0};  // MPI's order: ranks along y, along x
    try {
      block_layout(checks.ranks, settings_.nx, settings_.ny, settings_.ranks, dims);
    } catch (const InputError& e) {  // located at the key that chose the layout
      throw InputError(ranks_at_ + e.what());
    }
    try {
      halo_width_for({dims[1], dims[0]}, settings_.nx, settings_.ny, settings_.halo_width,
                     settings_.periodic_x() || settings_.periodic_y());
    } catch (const InputError& e) {
      throw InputError(halo_width_at_ + e.what());
    }
    io::check_output_destination(MPI_COMM_SELF, checks.checkpoint_path, /*overwrite=*/true);
    if (settings_.start.kind == StartField::Kind::file && !checks.restarting)
      check_start_file(settings_.start, settings_.nx, settings_.ny);
    if (settings_.source.from_file) check_start_file(settings_.source.as_file(), settings_.nx, settings_.ny, kSourceFileRole);
    if (settings_.c_field()) {
      StartField c;
      c.kind = StartField::Kind::file;
      c.file = settings_.c_file;
      c.dataset = settings_.c_dataset;
      check_start_file(c, settings_.nx, settings_.ny, "diffusivity file (diffusion.c.file)");
    }
    return true;
  }

  bool device_from_start() const override { return true; }

  std::unique_ptr<PreparedStudy> prepare(RunContext& context, const std::string& checkpoint_path) const override {
    return prepare_study(settings_, context, checkpoint_path);
  }

  void after_output(const std::string& output_path) const override { write_xdmf(output_path); }

 private:
  DiffusionSettings settings_;
  std::string ranks_at_, halo_width_at_;  // "FILE:LINE:COL: " of the keys the checks name
};

std::unique_ptr<StudyPlan> read(const deck::Section& top) { return std::make_unique<DiffusionPlan>(top); }

}  // namespace

Study study() { return {"diffusion", "/field", &read}; }

}  // namespace trident::diffusion
