#include "knn/detail/study.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>

#include "core/comm.hpp"
#include "core/device_buffers.hpp"
#include "core/device_memory.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/progress.hpp"
#include "core/signals.hpp"
#include "io/output_file.hpp"
#include "io/paths.hpp"
#include "knn/detail/checkpoint.hpp"
#include "knn/detail/row_finish.hpp"
#include "knn/detail/id_output.hpp"
#include "knn/detail/inputs.hpp"
#include "knn/detail/index/index_search.hpp"
#include "knn/detail/list_bound.hpp"
#include "knn/detail/observation_vectors.hpp"
#include "knn/detail/output_rows.hpp"
#include "knn/detail/point_ids.hpp"
#include "knn/detail/points.hpp"
#include "knn/detail/rounds.hpp"
#include "knn/detail/run_method.hpp"
#include "knn/detail/search.hpp"
#include "knn/detail/study_test_hooks.hpp"
#include "knn/detail/within_study.hpp"

namespace trident::knn {

namespace {

// One rank's share of the study: its contiguous chunk of observations and how their search went
// (the rows are the ChunkRows the rounds fill).
struct ChunkResult {
  std::int64_t n_observations = 0, n_references = 0;
  std::int64_t first = 0, count = 0;  // this rank's observations
  std::vector<double> lat_lon;        // count x 2, degrees
  SearchProfile stats;
  KnnMethod method = KnnMethod::brute;  // the search knn.method took: brute or index
  double index_build_seconds = 0.0;  // this rank's build of the index (part of stats.search_seconds)
  std::int64_t rows_done_before = 0;  // every rank's rows done before this run's search (a restart)
};

std::string figure(double v, const char* format) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

// The deck's settings, and the TRIDENT_KNN_* overrides.
SearchOptions search_options(const KnnSettings& settings, const core::Overrides& overrides) {
  SearchOptions options;
  options.k = static_cast<int>(settings.search_k());
  options.radius = settings.radius;
  options.precision = settings.precision;
  options.batch_size = settings.batch_size;
  options.tile_size = settings.tile_size;
  return with_overrides(options, overrides);
}

// The result's header from the inputs; the observations' coordinates move into it.
ChunkResult chunk_header(KnnInputs& in) {
  ChunkResult r;
  r.n_observations = in.n_observations;
  r.n_references = in.n_references;
  r.first = in.first;
  r.count = in.count;
  r.lat_lon = std::move(in.lat_lon);
  return r;
}

// Warm-up on a few observations: CUDA loads a kernel's module at its first launch
// (milliseconds each), which would otherwise weigh on the timing of small problems. With
// options.device_buffers, the device arrays of the search's largest round are allocated
// here too, once, like the page-locking of the result rows.
void warm_up(const Vec4<double>* observations, std::int64_t count, const std::vector<Vec4<double>>& references,
             const SearchOptions& options) {
  const std::int64_t warm = std::min<std::int64_t>(count, 256);
  if (warm > 0) nearest(observations, warm, references, options);
  reserve_search(largest_round(count, static_cast<std::int64_t>(references.size()), options), references, options);
}

}  // namespace

namespace {

// The rows not yet written (`rows`), the attributes and the log's lines. `done`: this rank's
// rows finished (1) or not (0), written as /knn/done when the search stopped early; empty
// when it completed.
void write_result(const KnnSettings& settings, const ChunkResult& r, MPI_Comm comm, io::OutputFile& out,
                  OutputRows& rows, const std::vector<std::uint8_t>& done, const RowFinish& finish);

// The points read and checked (and, on restart, the finished rows loaded) before the
// output exists; run() searches the rows left in rounds and writes /knn, or, stopped by a
// signal, writes a checkpoint and the rows so far.
class KnnStudy : public PreparedStudy {
 public:
  KnnStudy(const KnnSettings& settings, RunContext& context, std::string checkpoint_path,
           const StudyTestHooks& hooks)
      : settings_(settings), context_(context), checkpoint_path_(std::move(checkpoint_path)), hooks_(hooks) {
    std::optional<Timers::Scope> timer(std::in_place, context.timers, "knn.read");
    inputs_ = read_inputs(settings, context.comm, context.binding.host.empty() ? "the host" : context.binding.host);
    // a stop signal may come at any round: the checkpoint's place must be usable
    io::check_output_destination(context.comm, checkpoint_path_, /*overwrite=*/true);
    if (!context.restart_path.empty()) {
      const std::vector<std::string> digests = point_file_digests(context.comm, settings);
      mpi::collective(context.comm, [&] {
        rows_ = read_checkpoint(context.restart_path, settings, inputs_.n_observations, inputs_.n_references,
                                inputs_.first, inputs_.count, digests);
      });
      finish_ = std::make_unique<RowFinish>(settings, inputs_.count);
      finish_->use_radii(inputs_.radii);
      if (finish_->own_rows()) {  // the checkpoint holds the output's rows; the search's are wider
        std::swap(finish_->rows(), rows_.neighbours);
        allocate_rows(rows_.neighbours, static_cast<std::size_t>(inputs_.count * settings.search_k()));
      }
      finish_->restored(rows_);
      const double done = mpi::sum_over_ranks(
          context.comm, static_cast<double>(std::count(rows_.done.begin(), rows_.done.end(), 1)));
      log::info(context.comm, "knn: restarting from " + context.restart_path + ": " + figure(done, "%.0f") + " of " +
                                  std::to_string(inputs_.n_observations) + " observations already searched");
    } else {
      rows_.first = inputs_.first;
      rows_.count = inputs_.count;
      rows_.done.assign(static_cast<std::size_t>(inputs_.count), 0);
      // huge pages before the first touch: the rows are 12 bytes a neighbour (3.2 GB at
      // k = 16 on 2^24 observations), too many pages to touch one by one
      allocate_rows(rows_.neighbours, static_cast<std::size_t>(inputs_.count * settings.search_k()));
      finish_ = std::make_unique<RowFinish>(settings, inputs_.count);
      finish_->use_radii(inputs_.radii);
    }
    // the points are read: the device now, whose context the driver made meanwhile (its
    // wait is startup.device's)
    context.device_ready(timer, "knn.read");
    // knn.method, with the device memory the index takes checked, before the output exists
    method_ = choose_logged_run_method(settings, inputs_, context.comm, context.binding.device_name);
  }

  bool writes_texts() const override { return knn::writes_texts(inputs_); }

  void run(io::OutputFile& output) override {
    ChunkResult r = chunk_header(inputs_);
    const std::vector<Vec4<double>> references = std::move(inputs_.references);
    SearchOptions options = search_options(settings_, context_.overrides);
    options.device_buffers = std::make_shared<core::DeviceBuffers>();  // shared by the warm-up and every round
    options.bound_cache = std::make_shared<ListBoundCache>();
    // the observations written from here, the rows after each round (its set-up counted in knn.output)
    const double output_begin = wall_seconds();
    const Neighbours& out_rows = finish_->own_rows() ? finish_->rows() : rows_.neighbours;  // as the output gets them
    OutputRows rows_out(output, r.n_observations, settings_.k, r.first, r.count, r.lat_lon, out_rows);
    const double output_setup = wall_seconds() - output_begin;
    int signal = 0;
    {
      auto timer = context_.timers.scope("knn.total");
      // staged before the index's build, which a set searched against itself then uploads
      // from the same locked vectors
      std::optional<ObservationVectors> observations;
      transport::StagedUpload reference_upload;  // (a set against itself: locked already)
      {
        auto stage = context_.timers.scope("knn.stage");
        if (settings_.self) observations.emplace(references, r.first);
        else observations.emplace(r.lat_lon.data(), r.count);
        if (method_.use_index && !settings_.self) reference_upload.prepare();
      }
      if (method_.use_index) {  // built once here, shared by every round
        {
          auto warm = context_.timers.scope("knn.warm_up");
          mpi::collective(context_.comm, [&] { warm_up_index_build(references); });
        }
        auto build = context_.timers.scope("knn.index_build");
        r.method = KnnMethod::index;
        r.index_build_seconds = build_run_index(references, options, context_.comm, &reference_upload);
      }
      {
        auto warm = context_.timers.scope("knn.warm_up");
        mpi::collective(context_.comm, [&] {
          if (options.index) {
            warm_up_index(observations->data(), r.count, options);
          } else {
            warm_up(observations->data(), r.count, references, options);
          }
        });
      }
      // progress over every rank's rows: one sum over ranks a round (rounds last seconds)
      const double done = mpi::sum_over_ranks(
          context_.comm, static_cast<double>(std::count(rows_.done.begin(), rows_.done.end(), 1)));
      r.rows_done_before = static_cast<std::int64_t>(done);
      Progress progress(context_.comm, "knn: search,", static_cast<std::int64_t>(done), r.n_observations,
                        context_.progress_seconds, "row");
      const auto after_round = [&](std::int64_t rows) {
        finish_->finish(rows_, observations->data(), references);  // before the rows go into the file
        rows_out.after_round(rows_.done);
        if (context_.progress_seconds > 0)
          progress.update(static_cast<std::int64_t>(mpi::sum_over_ranks(context_.comm, static_cast<double>(rows))));
      };
      mpi::collective(context_.comm, [&] {
        signal =
            search_in_rounds(observations->data(), references, options, rows_, context_.comm, r.stats, after_round);
      });
    }
    context_.timers.add("knn.page_lock", r.stats.page_lock_seconds);
    // the index's build is part of the search (and of its set-up in the log's parts): added
    // here, once
    r.stats.search_seconds += r.index_build_seconds;
    r.stats.setup_seconds += r.index_build_seconds;
    if (hooks_.profile) *hooks_.profile = r.stats;
    context_.timers.add("knn.search", r.stats.search_seconds);
    context_.timers.add("knn.output", output_setup);
    // what is left of /knn; `done` only when the search stopped early
    const auto write_output = [&](const std::vector<std::uint8_t>& done) {
      {
        auto timer = context_.timers.scope("knn.output");
        write_result(settings_, r, context_.comm, output, rows_out, done, *finish_);
        write_point_ids(output, inputs_.reference_ids, inputs_.observation_ids,
                        {r.n_observations, r.first, r.count, static_cast<int>(settings_.k),
                         out_rows.indices.data(), done.empty() ? nullptr : &done});
      }
      context_.timers.add("knn.output_behind", rows_out.background_seconds());
    };
    if (signal == 0) {
      write_output({});
      return;
    }
    const double done = mpi::sum_over_ranks(
        context_.comm, static_cast<double>(std::count(rows_.done.begin(), rows_.done.end(), 1)));
    {
      auto timer = context_.timers.scope("knn.checkpoint");
      write_checkpoint(context_.comm, checkpoint_path_, settings_, r.n_observations, r.n_references, rows_, out_rows);
    }
    log::info(context_.comm, "knn: checkpoint written to " + checkpoint_path_);
    write_output(rows_.done);
    throw StudyStopped(std::string("knn: stopped by ") + signals::name(signal) + " after " + figure(done, "%.0f") +
                           " of " + std::to_string(r.n_observations) + " observations; checkpoint " +
                           checkpoint_path_ + " written; resume with --restart " + checkpoint_path_,
                       kExitStopped);
  }

 private:
  const KnnSettings& settings_;
  RunContext& context_;
  std::string checkpoint_path_;
  KnnInputs inputs_;
  ChunkRows rows_;
  RunMethod method_;  // knn.method's choice, made before the output exists
  StudyTestHooks hooks_;
  std::unique_ptr<RowFinish> finish_;  // the output's rows from the search's
};

}  // namespace

std::unique_ptr<PreparedStudy> prepare_study(const KnnSettings& settings, RunContext& context,
                                             const std::string& checkpoint_path, const StudyTestHooks& hooks) {
  if (settings.rows != KnnRows::nearest) return prepare_within_study(settings, context, checkpoint_path);
  return std::make_unique<KnnStudy>(settings, context, checkpoint_path, hooks);
}

std::unique_ptr<PreparedStudy> prepare_study(const KnnSettings& settings, RunContext& context,
                                             const std::string& checkpoint_path) {
  return prepare_study(settings, context, checkpoint_path, StudyTestHooks{});
}

void run_study(const KnnSettings& settings, RunContext& context, io::OutputFile& output) {
  prepare_study(settings, context, io::default_checkpoint_path(output.path()))->run(output);
}

namespace {

void write_result(const KnnSettings& settings, const ChunkResult& r, MPI_Comm comm, io::OutputFile& out,
                  OutputRows& rows, const std::vector<std::uint8_t>& done, const RowFinish& finish) {
  const double slowest = mpi::max_over_ranks(comm, r.stats.search_seconds);
  // the pairs this run searched: a stopped run's rows done, less those a restart began with
  // (collective on every rank: a rank without rows has an empty `done` even when stopped)
  const bool stopped = mpi::max_over_ranks(comm, done.empty() ? 0.0 : 1.0) > 0;
  const double done_here = static_cast<double>(std::count(done.begin(), done.end(), 1));
  const double rows_done = stopped ? mpi::sum_over_ranks(comm, done_here) : static_cast<double>(r.n_observations);
  const double pairs = (rows_done - static_cast<double>(r.rows_done_before)) * static_cast<double>(r.n_references);
  const double widened = mpi::sum_over_ranks(comm, static_cast<double>(r.stats.widened));
  const double build = mpi::max_over_ranks(comm, r.index_build_seconds);
  const double leaves_a_row =
      r.stats.index_rows > 0 ? static_cast<double>(r.stats.index_leaves) / static_cast<double>(r.stats.index_rows) : 0.0;
  log::info(comm, "knn: " + std::to_string(r.n_observations) + " observations x " +
                      std::to_string(r.n_references) + " references, k = " +
                      std::to_string(settings.k) + ", " + core::precision_name(settings.precision) + " screening");
  log::info(comm, "knn: search " + figure(slowest, "%.4f") + " s (slowest rank), " +
                      figure(pairs / slowest, "%.4g") + " pairs/s, " + figure(widened, "%.0f") +
                      " observations needed a longer list, " +
                      (r.method == KnnMethod::index
                           ? "through the spatial index (built in " + figure(build, "%.4f") + " s, slowest rank; " +
                                 figure(leaves_a_row, "%.1f") + " leaves screened a row on rank 0), "
                           : std::to_string(r.stats.tiles) + " reference tile(s), ") +
                      std::to_string(r.stats.batches) + " batch(es) on rank 0" +
                      (r.stats.reordered_rows > 0
                           ? ", where a round searched over 1 % again and the " +
                                 std::to_string(r.stats.reordered_rows) + " rows left were ordered by place"
                           : std::string()));
  log::detail(comm, "knn: rank 0 search parts: upload " + figure(r.stats.upload_seconds, "%.4f") +
                      " s, screen " + figure(r.stats.screen_seconds, "%.4f") + " s, settle " +
                      figure(r.stats.settle_seconds, "%.4f") + " s, download " +
                      figure(r.stats.download_seconds, "%.4f") + " s, widened " +
                      figure(r.stats.widened_seconds, "%.4f") + " s, setup " +
                      figure(r.stats.setup_seconds, "%.4f") + " s, device arrays " +
                      figure(r.stats.arrays_seconds, "%.4f") + " s" +
                      (r.stats.bound_places > 0
                           ? " (lists started at a bound from " + std::to_string(r.stats.bound_places) +
                                 " places, " +
                                 (r.stats.bounds_made > 0 ? "made " + std::to_string(r.stats.bounds_made) + " time(s))"
                                                          : "made before the search)")
                           : std::string()) +
                      ", other " +
                      figure(r.stats.search_seconds - r.stats.upload_seconds - r.stats.screen_seconds -
                                 r.stats.settle_seconds - r.stats.download_seconds -
                                 r.stats.widened_seconds - r.stats.setup_seconds - r.stats.arrays_seconds,
                             "%.4f") + " s" +
                      (r.stats.pipelined_slices > 0
                           ? " (" + std::to_string(r.stats.pipelined_slices) +
                                 " slices: screen includes their upload and settle, download is what "
                                 "ran past the last kernel)"
                           : std::string()) +
                      (r.stats.first_round_seconds > 0
                           ? "; the first round " + figure(r.stats.first_round_seconds, "%.4f") + " s of it"
                           : std::string()) +
                      (r.stats.screen_seconds > 0  // rank 0 may have had nothing left to search after a restart
                           ? "; screen alone " +
                                 figure(static_cast<double>(r.count) * static_cast<double>(r.n_references) /
                                            r.stats.screen_seconds, "%.4g") + " pairs/s"
                           : std::string()));
  if (!r.stats.slice_times.empty()) {
    std::string ready, downloaded;
    for (const SearchProfile::SliceTimes& c : r.stats.slice_times) {
      ready += (ready.empty() ? "" : " ") + figure(c.ready_ms, "%.1f");
      downloaded += (downloaded.empty() ? "" : " ") + figure(c.downloaded_ms, "%.1f");
    }
    log::detail(comm, "knn: rank 0 slices of its largest batch (" + std::to_string(r.stats.slice_times_rows) +
                        " rows), ms after its first upload: rows ready " + ready + "; downloaded " + downloaded);
  }

  const auto n = static_cast<std::uint64_t>(r.n_observations);
  rows.finish();
  const double early = mpi::sum_over_ranks(comm, static_cast<double>(rows.rows_written_early()));
  if (rows.straight())
    log::detail(comm, "knn: " + figure(early, "%.0f") + " of " + std::to_string(r.n_observations) +
                          " rows written into the file as their rounds ended (and every observation from the "
                          "search's start), on a thread of their own");
  out.attribute("/knn", "method", std::string(method_name(r.method)));
  if (mpi::max_over_ranks(comm, done.empty() ? 0.0 : 1.0) > 0) {  // stopped early: which rows hold results
    out.create_dataset<std::uint8_t>("/knn/done", {n});
    out.describe("/knn/done", {"observation"}, "whether the search finished the observation's row", "");
    out.describe_flags("/knn/done", {0, 1}, "unfinished finished");
    out.write_slab("/knn/done", {static_cast<std::uint64_t>(r.first)}, {static_cast<std::uint64_t>(r.count)},
                   done.data());
  }
  out.attribute("/knn", "k", static_cast<std::int64_t>(settings.k));
  out.attribute("/knn", "radius", settings.radius);
  out.attribute("/knn", "precision", std::string(core::precision_name(settings.precision)));
  out.attribute("/knn", "observations", settings.observations.describe());
  out.attribute("/knn", "references", settings.references.describe());
  out.attribute("/knn", "observation_count", r.n_observations);
  out.attribute("/knn", "reference_count", r.n_references);
  out.attribute("/knn", "batch_size", settings.batch_size);
  out.attribute("/knn", "tile_size", settings.tile_size);
  out.attribute("/knn", "distance", std::string("radius * atan2(|p x q|, p . q) in float64 on unit vectors"));
  out.attribute("/knn", "search_seconds", slowest);
  out.attribute("/knn", "index_build_seconds", build);  // part of search_seconds; 0 for the brute force
  out.attribute("/knn", "pairs_per_second", pairs / slowest);
  if (settings.has_max_distance()) {
    const double kept = mpi::sum_over_ranks(comm, static_cast<double>(finish.kept()));
    const double short_rows = mpi::sum_over_ranks(comm, static_cast<double>(finish.short_rows()));
    log::info(comm, "knn: within knn.max_distance " + settings.max_distance_text() + ": " +
                        figure(kept, "%.0f") + " neighbours; " + figure(short_rows, "%.0f") +
                        " rows hold fewer than k = " + std::to_string(settings.k) +
                        " (padded with index -1, distance NaN)");
    if (settings.observations.has_radii()) out.attribute("/knn", "max_distance_column", settings.observations.radii);
    else out.attribute("/knn", "max_distance", settings.max_distance);
    out.attribute("/knn", "neighbours_within", static_cast<std::int64_t>(kept));
  }
}

}  // namespace

}  // namespace trident::knn
