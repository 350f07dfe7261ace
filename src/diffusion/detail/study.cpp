#include "diffusion/detail/study.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/comm.hpp"
#include "core/device_memory.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/progress.hpp"
#include "core/signals.hpp"
#include "diffusion/detail/c_field.hpp"
#include "diffusion/detail/checkpoint.hpp"
#include "diffusion/detail/decomposition.hpp"
#include "diffusion/detail/frames.hpp"
#include "diffusion/detail/halo.hpp"
#include "diffusion/detail/start_field.hpp"
#include "diffusion/detail/stencil.hpp"
#include "diffusion/detail/stencil_field.hpp"
#include "diffusion/detail/scheme.hpp"
#include "diffusion/detail/stepper.hpp"
#include "diffusion/detail/study_test_hooks.hpp"
#include "diffusion/detail/trip.hpp"
#include "io/output_file.hpp"

namespace trident::diffusion {

namespace {

constexpr std::int64_t kNeverBad = std::numeric_limits<std::int64_t>::max();
constexpr double kCheckSeconds = 0.5;  // target time between collective checks

// A test's forced trips, else TRIDENT_DIFFUSION_TRIP_STEPS's steps (0: the rule's).
TripShape trips_for(const TripShape& forced, const core::Overrides& overrides) {
  TripShape shape = forced;
  if (shape.steps == 0) shape.steps = overrides.diffusion_trip_steps;
  return shape;
}

// Whether a lone block's trips will read its periodic axes wrapped (Stepper::fold_sides, which
// also asks for 16 cells across each): c's plain update, no neumann or convective side, trips
// of several steps.
bool trips_may_wrap(const DiffusionSettings& s, const Decomposition& d, const TripShape& trips) {
  return d.dims()[0] == 1 && d.dims()[1] == 1 && (s.periodic_x() || s.periodic_y()) && !s.ghosts_follow_edges() &&
         !s.anisotropic() && !s.c_field() && !s.source.present() && steps_per_trip(true, 1, trips.steps) > 1;
}

// What every rank learns at a check: the first non-finite step, a pending stop signal,
// and (from rank 0) how many steps until the next check.
struct CheckResult {
  std::int64_t first_bad;
  int signal;
  std::int64_t next_interval;
};

CheckResult agree(MPI_Comm comm, std::int64_t local_first_bad, std::int64_t interval_from_root) {
  std::int64_t out[3] = {-local_first_bad, signals::pending(), mpi::rank(comm) == 0 ? interval_from_root : 0};
  mpi::max_over_ranks(comm, out, 3);
  return {-out[0], static_cast<int>(out[1]), std::max<std::int64_t>(1, out[2])};
}

// Stops before the fields are allocated when this rank's block cannot fit its device.
template <class T>
bool check_block_fits(const DiffusionSettings& s, const Decomposition& d, int halo, const RunContext& ctx) {
  mpi::collective(ctx.comm, [&] {
    const std::int64_t ny = d.y().size, nx = d.x().size;
    // u and u_next with their halos; the interior copy and, if kept, L(u) (block-shaped); a
    // diffusivity field on u's grid and its faces (field_faces), a source field
    const std::int64_t cells = (ny + 2 * halo) * (nx + 2 * halo);
    const auto face_extents = faces_extents<T>(ny + 2 * halo, nx + 2 * halo);
    const std::int64_t faces = face_extents.first * face_extents.second;
    std::int64_t need = static_cast<std::int64_t>(sizeof(T)) *
                        (2 * cells + (s.laplacian ? 2 : 1) * ny * nx + (s.c_field() ? cells + faces : 0) +
                         (s.source.present() && s.source.from_file ? cells : 0));
    // where the device is the host, the start field's staging (float64 and T) shares it
    if (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                   Kokkos::DefaultExecutionSpace::memory_space>::accessible)
      need += static_cast<std::int64_t>(8 + sizeof(T)) * ny * nx;
    // building the start field takes its scratch while the fields above are allocated
    if (ctx.restart_path.empty()) need += start_scratch_bytes(s.start, s.nx, s.ny, mpi::size(ctx.comm));
    const std::string what = "the " + std::to_string(s.nx) + " x " + std::to_string(s.ny) + " grid in " +
                             core::precision_name(s.precision) + " (a block of " + std::to_string(nx) + " x " +
                             std::to_string(ny) + " cells on each rank)";
    check_device_memory(need, device_free_bytes(), "diffusion.nx, diffusion.ny", what,
                        ctx.binding.device_name.empty() ? "the device" : ctx.binding.device_name);
  });
  return true;
}

// The run's scheme: the edges' rules, the source (a field read here), c_x and c_y.
template <class T>
Scheme<T> scheme_for(const DiffusionSettings& s, const Decomposition& d, int width) {
  Scheme<T> scheme;
  scheme.edges = Edges<T>(s.boundary, s.c_x(), s.c_y(), d, width);
  scheme.source = read_source<T>(s.source, d, width);
  scheme.anisotropic = s.anisotropic();
  scheme.cx = static_cast<T>(s.c_x());
  scheme.cy = static_cast<T>(s.c_y());
  if (s.c_field()) {
    scheme.cf = read_c_field<T>(s, d, width);
    scheme.edges.use_field(scheme.cf);
  }
  return scheme;
}

template <class T>
class Solver : public PreparedStudy {
 public:
  // Settles the layout, checks the memory, allocates and loads the start field (or the
  // checkpoint): every mistake in the deck or the data shows here, before any output.
  Solver(const DiffusionSettings& s, RunContext& ctx, const std::string& checkpoint_path,
         const StudyTestHooks& hooks)
      : s_(s),
        ctx_(ctx),
        checkpoint_path_(checkpoint_path),
        d_(ctx.comm, s.nx, s.ny, s.ranks, {s.periodic_x(), s.periodic_y()}),
        ny_(d_.y().size),
        nx_(d_.x().size),
        halo_width_(halo_width_for(d_, s.halo_width, trips_may_wrap(s, d_, trips_for(hooks.trips, ctx.overrides)))),
        fits_(check_block_fits<T>(s, d_, halo_width_, ctx)),
        u_("trident::diffusion::u", ny_ + 2 * halo_width_, nx_ + 2 * halo_width_),
        next_("trident::diffusion::u_next", ny_ + 2 * halo_width_, nx_ + 2 * halo_width_),
        laplacian_("trident::diffusion::laplacian", s.laplacian ? ny_ : 0, s.laplacian ? nx_ : 0),
        interior_("trident::diffusion::interior", ny_, nx_),
        interior_host_(Kokkos::create_mirror_view(interior_)),
        first_bad_("trident::diffusion::first_bad"),
        scheme_(scheme_for<T>(s, d_, halo_width_)),
        stepper_(d_, ctx.transport, halo_width_, scheme_, trips_for(hooks.trips, ctx.overrides),
                 hooks.time_tiles ? TripTuner::When::always : TripTuner::When::automatic, ctx.overrides.peer_memory) {
    Kokkos::deep_copy(first_bad_, kNeverBad);
    scheme_.edges.set_fixed(u_);
    scheme_.edges.set_fixed(next_);
    if (scheme_.source.kind == Source<T>::Kind::field) stepper_.fill_halo(scheme_.source.field);
    if (scheme_.field()) {  // its halo and ghosts, then every cell's checks
      stepper_.fill_halo(scheme_.cf);
      finish_c_field<T>(scheme_.cf, s, d_, halo_width_);
      stepper_.field_complete();
    }
    if (stepper_.comm() != nullptr) ctx.timers.add("diffusion.device_comm", stepper_.comm()->setup_seconds());
    std::ostringstream line;
    line << "diffusion: " << s.nx << " x " << s.ny << " cells, " << core::precision_name(s.precision) << ", c = " << s.c;
    if (s.anisotropic()) line << " (c_x = " << s.c_x() << ", c_y = " << s.c_y() << ")";
    if (s.c_field()) line << " (a field: " << s.c_file << " dataset " << s.c_dataset << ")";
    line
         << ", " << d_.dims()[0] << " x " << d_.dims()[1] << " blocks (ranks along x by y), halos "
         << stepper_.describe() << ", " << describe_trips(stepper_.steps_per_trip());
    if (s.boundary != std::array<Boundary, 4>{}) line << "; boundary: " << describe(s.boundary);
    if (s.source.present()) line << "; source: " << s.source.describe();
    log::info(ctx.comm, line.str());
    // a checkpoint can be asked for at any step (a stop signal): its place must be usable
    io::check_output_destination(ctx.comm, checkpoint_path_, /*overwrite=*/true);
    first_ = load_start();
  }

  void run(io::OutputFile& output) override {
    const std::int64_t first = first_;
    FrameWriter<T> frames(output, s_, d_, ctx_, stepper_.comm());
    output_path_ = output.path();
    // The output this run continues, for the XDMF that shows both as one series.
    if (!earlier_output_.empty()) output.attribute("/diffusion", "earlier_output", earlier_output_);
    Progress progress(ctx_.comm, "diffusion", first, s_.steps, ctx_.progress_seconds);
    std::int64_t interval = 1, next_check = first;
    double last_check_time = wall_seconds();
    std::int64_t last_check_step = first;
    stepping_since_ = wall_seconds();
    for (std::int64_t step = first;;) {
      const bool frame = frame_due(step, first, s_.steps, s_.output_every);
      const bool checkpoint = checkpoint_due(step, first);
      const bool last = step == s_.steps;
      if (frame || checkpoint || last || step >= next_check) {
        std::int64_t bad = kNeverBad;
        account_stepping();
        Kokkos::deep_copy(bad, first_bad_);
        // Rank 0 spaces checks about kCheckSeconds apart from the measured step rate.
        const double now = wall_seconds();
        const double per_step = (now - last_check_time) / static_cast<double>(std::max<std::int64_t>(1, step - last_check_step));
        const std::int64_t proposal =
            step == last_check_step ? 1 : std::clamp<std::int64_t>(static_cast<std::int64_t>(kCheckSeconds / std::max(per_step, 1e-9)), 1, 100000);
        const CheckResult agreed = agree(ctx_.comm, bad, proposal);
        interval = agreed.next_interval;
        next_check = step + interval;
        last_check_time = now;
        last_check_step = step;
        if (agreed.first_bad <= step) stop_non_finite(agreed.first_bad, frames);
        progress.update(step);
        if (checkpoint) save_checkpoint(step, frames);
        if (agreed.signal != 0 && !last) stop_on_signal(step, agreed.signal, frames);
        stepping_since_ = wall_seconds();  // the checks, checkpoints and progress are not stepping
      }
      if (last) {
        if (frame) write_final_frame(step, frames);
        break;
      }
      if (frame) {  // u_ and, computed by this step, L(u_)
        stepper_.advance(u_, next_, laplacian_, static_cast<T>(s_.c_x()), step, first_bad_);
        account_stepping();
        write_frame(step, frames);
        stepping_since_ = wall_seconds();
        std::swap(u_, next_);
        ++step;
        continue;
      }
      // Trips of several steps end at the next step that needs the field (a frame, a
      // checkpoint, a check or the last step); no L(u) is kept, none is written.
      step += stepper_.advance_span(u_, next_, static_cast<T>(s_.c_x()), step, first_bad_,
                                    next_stop(step, next_check) - step);
    }
    {
      auto t = ctx_.timers.scope("diffusion.output");
      frames.finish();
    }
    log::info(ctx_.comm, progress.line(s_.steps) + "; " + std::to_string(frames.frames()) + " frames written");
    const std::string tiles = stepper_.describe_tiles();
    if (!tiles.empty())
      log::info(ctx_.comm, "diffusion: tiles of the trips: " + tiles);
  }

 private:
  bool checkpoint_due(std::int64_t step, std::int64_t first) const {
    return s_.checkpoint_every > 0 && step > first && step % s_.checkpoint_every == 0;
  }

  // The first step after `step` at which the loop needs the field: a frame, a checkpoint,
  // the collective check or the last step.
  std::int64_t next_stop(std::int64_t step, std::int64_t next_check) const {
    const auto next_multiple = [step](std::int64_t every) { return (step / every + 1) * every; };
    std::int64_t stop = std::min(s_.steps, std::max(next_check, step + 1));
    if (s_.output_every > 0) stop = std::min(stop, next_multiple(s_.output_every));
    if (s_.checkpoint_every > 0) stop = std::min(stop, next_multiple(s_.checkpoint_every));
    return stop;
  }

  // Loads the start field or the checkpoint; returns the first step. Rejects a
  // non-finite start field (a bad start file) as a stop at step 0.
  std::int64_t load_start() {
    auto t = ctx_.timers.scope("diffusion.start_field");
    std::int64_t first = 0;
    mpi::collective(ctx_.comm, [&] {
      if (!ctx_.restart_path.empty()) {
        first = checkpoint_step(ctx_.restart_path, s_);
        earlier_output_ = checkpoint_output(ctx_.restart_path);
        const std::vector<T> block = read_checkpoint_block<T>(ctx_.restart_path, d_);
        std::copy(block.begin(), block.end(), interior_host_.data());
        Kokkos::deep_copy(interior_, interior_host_);
        return;
      }
      fill_start_block<T>(d_.cart(), s_.start, s_.nx, s_.ny, d_.x(), d_.y(), interior_);
    });
    if (!ctx_.restart_path.empty())
      log::info(ctx_.comm, "diffusion: restarting from " + ctx_.restart_path + " at step " + std::to_string(first));
    const bool any_bad = mpi::max_over_ranks(ctx_.comm, any_not_finite<T>(interior_) ? 1.0 : 0.0) > 0;
    if (any_bad) {  // thrown on every rank alike
      throw InputError("diffusion: the field is not finite (NaN or infinite) at step " + std::to_string(first) +
                       " (the " + (ctx_.restart_path.empty() ? "start field" : "checkpoint") +
                       "); check diffusion.start; nothing was computed");
    }
    load_interior<T>(interior_, u_);
    return first;
  }

  std::vector<T> host_block(const Grid<T>& grid) {
    copy_interior<T>(grid, interior_);
    Kokkos::deep_copy(interior_host_, interior_);
    return std::vector<T>(interior_host_.data(), interior_host_.data() + ny_ * nx_);
  }

  // Charges the time since stepping_since_ to the steps, once the device has done the work
  // queued meanwhile: what the device's queue waited for halos to diffusion.halo, the rest
  // to diffusion.compute (the one-rank run waits for none). Both phases on every rank.
  void account_stepping() {
    Kokkos::fence();
    const double total = wall_seconds() - stepping_since_;
    const double halo = std::min(total, stepper_.take_halo_wait_seconds());
    ctx_.timers.add("diffusion.compute", total - halo);
    ctx_.timers.add("diffusion.halo", halo);
  }

  // The device copies go out before the stepping goes on; the file write may continue
  // in the background (FrameWriter).
  void write_frame(std::int64_t step, FrameWriter<T>& frames) {
    auto t = ctx_.timers.scope("diffusion.output");
    copy_interior<T>(u_, interior_);
    frames.append(step, interior_, laplacian_);  // L(u) is block-shaped already
  }

  void write_final_frame(std::int64_t step, FrameWriter<T>& frames) {
    if (s_.laplacian) stepper_.laplacian_of(u_, laplacian_);
    write_frame(step, frames);
  }

  void save_checkpoint(std::int64_t step, FrameWriter<T>& frames) {
    {
      auto t = ctx_.timers.scope("diffusion.output");
      frames.finish();  // HDF5 from one thread at a time
    }
    auto t = ctx_.timers.scope("diffusion.checkpoint");
    write_checkpoint<T>(ctx_.comm, checkpoint_path_, s_, step, d_, host_block(u_), output_path_);
    log::info(ctx_.comm, "diffusion: checkpoint at step " + std::to_string(step) + " written to " + checkpoint_path_);
  }

  [[noreturn]] void stop_non_finite(std::int64_t bad, FrameWriter<T>& frames) {
    frames.finish();
    const std::int64_t kept = frames.frames();
    throw StudyStopped("diffusion: the field turned non-finite (NaN or infinite) at step " + std::to_string(bad) +
                           "; the output keeps the " + std::to_string(kept) + (kept == 1 ? " frame" : " frames") +
                           " written before it",
                       kExitRunFailure);
  }

  // The state at `step` goes to the checkpoint and, as the last frame, to the output.
  [[noreturn]] void stop_on_signal(std::int64_t step, int signal, FrameWriter<T>& frames) {
    save_checkpoint(step, frames);
    write_final_frame(step, frames);
    frames.finish();
    throw StudyStopped(std::string("diffusion: stopped by ") + signals::name(signal) + " at step " +
                           std::to_string(step) + "; checkpoint " + checkpoint_path_ +
                           " written; resume with --restart " + checkpoint_path_,
                       kExitStopped);
  }

  const DiffusionSettings& s_;
  RunContext& ctx_;
  std::string checkpoint_path_;
  std::string output_path_;     // the run's output, which the checkpoints name
  std::string earlier_output_;  // the output the restart's checkpoint names, or empty
  Decomposition d_;
  std::int64_t ny_, nx_;
  int halo_width_;
  bool fits_;  // checked before the fields below are allocated
  Grid<T> u_, next_;
  Kokkos::View<T**, Kokkos::LayoutRight> laplacian_;  // L(u) on the block (no halo), or empty
  Kokkos::View<T**, Kokkos::LayoutRight> interior_;   // u's block without halo, for frames
  typename Kokkos::View<T**, Kokkos::LayoutRight>::HostMirror interior_host_;
  Kokkos::View<std::int64_t> first_bad_;
  Scheme<T> scheme_;  // made before the stepper, which holds a copy (a source field is shared)
  Stepper<T> stepper_;
  std::int64_t first_ = 0;  // the step the loaded field is at
  double stepping_since_ = 0;  // wall_seconds() when the steps not yet charged to a timer began
};

std::unique_ptr<PreparedStudy> prepare_with(const DiffusionSettings& settings, RunContext& context,
                                            const std::string& checkpoint_path, const StudyTestHooks& hooks) {
  if (settings.precision == core::Precision::float64)
    return std::make_unique<Solver<double>>(settings, context, checkpoint_path, hooks);
  return std::make_unique<Solver<float>>(settings, context, checkpoint_path, hooks);
}

}  // namespace

std::unique_ptr<PreparedStudy> prepare_study(const DiffusionSettings& settings, RunContext& context,
                                             const std::string& checkpoint_path) {
  return prepare_with(settings, context, checkpoint_path, StudyTestHooks{});
}

void run_study(const DiffusionSettings& settings, RunContext& context, io::OutputFile& output,
               const std::string& checkpoint_path) {
  prepare_study(settings, context, checkpoint_path)->run(output);
}

void run_study(const DiffusionSettings& settings, RunContext& context, io::OutputFile& output,
               const std::string& checkpoint_path, const StudyTestHooks& hooks) {
  prepare_with(settings, context, checkpoint_path, hooks)->run(output);
}

}  // namespace trident::diffusion
