#include "knn/detail/within_study.hpp"

#include <algorithm>
#include <cstdio>
#include <future>
#include <new>
#include <optional>
#include <utility>

#include "core/comm.hpp"
#include "core/device_memory.hpp"
#include "core/error.hpp"
#include "core/host_threads.hpp"
#include "core/log.hpp"
#include "core/progress.hpp"
#include "core/signals.hpp"
#include "io/paths.hpp"
#include "io/reserve_huge.hpp"
#include "knn/detail/checkpoint.hpp"
#include "knn/detail/id_output.hpp"
#include "knn/detail/inputs.hpp"
#include "knn/detail/match.hpp"
#include "knn/detail/observation_vectors.hpp"
#include "knn/detail/output_rows.hpp"
#include "knn/detail/points.hpp"
#include "knn/detail/rounds.hpp"
#include "knn/detail/row_list.hpp"
#include "knn/detail/run_method.hpp"
#include "knn/detail/within_rows.hpp"

namespace trident::knn {

namespace {

std::string figure(double v, const char* format) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

// Rows a round (a stop waits for the round under way): the deck's batch; else on host back
// ends 16384 (about a second of host work on 2^15 references); on device back ends 65536
// first, then as many as hold about kDeviceRoundEntries entries at the mean row of the rounds
// so far (between 65536 and 2^22 rows): a device needs millions of threads at once, and a
// round's arrays take 12 bytes an entry on the host and on the device, twice there (a round's
// entries still travel while the next is filled). The brute force
// (`brute_references` > 0) takes at most 2^36 pairs a round (as the k-nearest rounds do), and
// never fewer than 16384 rows. On a device the rows left for the last round are halved twice
// (1/2, 1/4, 1/4 of them), as the k-nearest search's last slice is, where they hold more than
// kDeviceTailEntries entries at the mean row: the last round's entries travel with nothing left
// to run beside them, and a round costs a few milliseconds more than its rows. The rows do not
// depend on the rounds.
constexpr std::int64_t kHostRoundRows = 16384, kDeviceRoundRows = 65536, kDeviceRoundMostRows = 4194304;
constexpr double kDeviceRoundEntries = 67108864.0;  // 2^26: 768 MiB of entries
constexpr double kDeviceBrutePairs = 68719476736.0;  // 2^36
constexpr double kDeviceTailEntries = 16777216.0;  // 2^24: 192 MiB of entries, about 10 ms of download

// The most rows round_rows gives a round: all it gives where the deck sets a batch or the
// back end is the host's.
std::int64_t most_round_rows(const KnnSettings& settings) {
  if (settings.batch_size > 0) return settings.batch_size;
  return kOnDevice ? kDeviceRoundMostRows : kHostRoundRows;
}

std::int64_t round_rows(const KnnSettings& settings, std::int64_t rows_so_far, double entries_so_far,
                        std::int64_t brute_references, std::int64_t rows_left) {
  if (settings.batch_size > 0 || !kOnDevice) return most_round_rows(settings);
  const double mean = rows_so_far > 0 ? std::max(1.0, entries_so_far / static_cast<double>(rows_so_far)) : 0.0;
  std::int64_t rows = kDeviceRoundRows;
  if (rows_so_far > 0)
    rows = std::clamp(static_cast<std::int64_t>(kDeviceRoundEntries / mean), kDeviceRoundRows, kDeviceRoundMostRows);
  if (brute_references > 0)
    rows = std::min(rows, std::max(kHostRoundRows, static_cast<std::int64_t>(kDeviceBrutePairs / static_cast<double>(brute_references))));
  if (rows_left <= rows && rows_left > rows / 4 && rows_left >= 2 * kDeviceRoundRows &&
      static_cast<double>(rows_left) * mean > kDeviceTailEntries)
    return rows_left / 2;
  return rows;
}

// Bytes of host memory for the rounds' entries (WithinSearch::use_arena), made before the
// search (page-locked on a GPU, as the k-nearest rows are locked before theirs; in huge pages
// everywhere, which the kernel copies into the output file several times faster than small
// pages): the warm-up's mean row times the rows left, and a sixth more (a round's arrays are
// sized a sixteenth over its expected entries), at most half the host's free memory shared by
// its ranks (`host_ranks`). None below 64 MiB, where the copies cost little.
std::size_t arena_bytes(std::int64_t warm_rows, std::int64_t warm_entries, std::int64_t rows_left, int host_ranks) {
  if (warm_rows <= 0 || rows_left <= 0) return 0;
  const double mean = static_cast<double>(warm_entries) / static_cast<double>(warm_rows);
  const double entries = mean * static_cast<double>(rows_left) * (1.0 + 1.0 / 6) + 65536.0;
  const double bytes = std::min(entries * static_cast<double>(sizeof(NeighbourIndex) + sizeof(double)),
                                0.5 * static_cast<double>(host_free_bytes()) / std::max(1, host_ranks));
  return bytes >= 67108864.0 ? static_cast<std::size_t>(bytes) : 0;
}

void write_checkpoint_file(MPI_Comm comm, const std::string& path, const KnnSettings& settings,
                           std::int64_t n_observations, std::int64_t n_references, const WithinRows& rows) {
  io::OutputFile file(comm, path, /*overwrite=*/true);
  file.create_group("/knn");
  file.create_dataset<std::uint8_t>("/knn/done", {static_cast<std::uint64_t>(n_observations)});
  file.write_slab("/knn/done", {static_cast<std::uint64_t>(rows.first())}, {static_cast<std::uint64_t>(rows.count())},
                  rows.done().data());
  rows.write(file, n_observations);
  write_checkpoint_settings(file, comm, settings, n_observations, n_references);
  file.commit();
}

// The ragged rows of k: all for netCDF readers: the entries on a dimension of their own.
void describe_ragged(io::OutputFile& out) {
  out.describe("/knn/offsets", {"observation_bound"},
               "start of each observation's neighbours in /knn/indices and /knn/distances (observation i's "
               "at offsets[i] to offsets[i + 1] - 1), and their end last",
               "1");
  out.describe("/knn/indices", {"pair"},
               "index of the neighbour in the reference set (0-based), each observation's nearest first", "1");
  out.describe("/knn/distances", {"pair"}, "great-circle distance to the neighbour", "m");
}

class WithinStudy : public PreparedStudy {
 public:
  WithinStudy(const KnnSettings& settings, RunContext& context, std::string checkpoint_path)
      : settings_(settings), context_(context), checkpoint_path_(std::move(checkpoint_path)) {
    std::optional<Timers::Scope> timer(std::in_place, context.timers, "knn.read");
    inputs_ = read_inputs(settings, context.comm, context.binding.host.empty() ? "the host" : context.binding.host);
    io::check_output_destination(context.comm, checkpoint_path_, /*overwrite=*/true);
    rows_ = std::make_unique<WithinRows>(inputs_.first, inputs_.count, settings.rows == KnnRows::count);
    if (!context.restart_path.empty()) {
      const std::vector<std::string> digests = point_file_digests(context.comm, settings);
      mpi::collective(context.comm, [&] {
        const io::InputFile file(context.restart_path, "checkpoint (--restart)");
        check_checkpoint_settings(file, context.restart_path, settings, inputs_.n_observations,
                                  inputs_.n_references, digests);
        const auto f = static_cast<std::uint64_t>(inputs_.first), c = static_cast<std::uint64_t>(inputs_.count);
        const std::vector<std::int32_t> done = file.read<std::int32_t>("/knn/done", {f}, {c});
        std::vector<std::uint8_t> flags(done.size());
        for (std::size_t i = 0; i < done.size(); ++i) flags[i] = done[i] != 0 ? 1 : 0;
        rows_->read(file, context.restart_path, inputs_.n_observations, flags);
      });
      const double done = mpi::sum_over_ranks(context.comm, static_cast<double>(rows_->done_rows()));
      log::info(context.comm, "knn: restarting from " + context.restart_path + ": " + figure(done, "%.0f") + " of " +
                                  std::to_string(inputs_.n_observations) + " observations already searched");
    }
    context.device_ready(timer, "knn.read");
    method_ = choose_logged_run_method(settings, inputs_, context.comm, context.binding.device_name);
  }

  bool writes_texts() const override { return knn::writes_texts(inputs_); }

  void run(io::OutputFile& output) override {
    const MPI_Comm comm = context_.comm;
    SearchOptions options;
    options.k = 1;
    options.radius = settings_.radius;
    options.precision = settings_.precision;
    double build = 0.0, search_seconds = 0.0;
    int signal = 0;
    {
      auto total = context_.timers.scope("knn.total");
      // the observations' unit vectors staged (page-locked) before the index's build, and the
      // kernels loaded by a search of a few rows before the search, as the k-nearest study does
      std::optional<ObservationVectors> staged;
      transport::StagedUpload reference_upload;  // (a set against itself: locked already)
      {
        auto stage = context_.timers.scope("knn.stage");
        if (settings_.self) staged.emplace(inputs_.references, inputs_.first);
        else staged.emplace(inputs_.lat_lon.data(), inputs_.count);
        if (method_.use_index && !settings_.self) reference_upload.prepare();
      }
      if (method_.use_index) {
        auto timer = context_.timers.scope("knn.index_build");
        build = build_run_index(inputs_.references, options, comm, &reference_upload);
      }
      const Vec4<double>* const vectors = staged->data();
      WithinSearch search(inputs_.references, options.index, settings_.max_distance, settings_.radius);
      const std::int64_t warm_rows = std::min<std::int64_t>(inputs_.count, 256);
      std::int64_t warm_entries = 0;
      {
        auto warm = context_.timers.scope("knn.warm_up");
        const double* const radii = inputs_.radii.empty() ? nullptr : inputs_.radii.data();  // (column radii)
        mpi::collective(comm, [&] { warm_entries = search.warm_up(vectors, warm_rows, radii); });
      }
      if (settings_.rows != KnnRows::count) {
        auto lock = context_.timers.scope("knn.page_lock");
        mpi::collective(comm, [&] {
          const std::size_t bytes = arena_bytes(warm_rows, warm_entries, inputs_.count - rows_->done_rows(),
                                                context_.binding.local_ranks);
          try {
            if (bytes > 0) search.use_arena(std::make_shared<transport::LockedArena>(bytes));
          } catch (const std::bad_alloc&) {  // the rounds' entries then take ordinary memory
          }
        });
      }
      const double start = wall_seconds();
      // every row when none is done (a run that is not a restart: no list), else those not done
      RowList not_done;
      RowSelection todo = RowSelection::all(inputs_.count);
      if (rows_->done_rows() != 0) {
        for (std::int64_t i = 0; i < inputs_.count; ++i)
          if (rows_->done()[static_cast<std::size_t>(i)] == 0) not_done.push_back(i);
        todo = RowSelection(not_done);
      }
      const double done_before = mpi::sum_over_ranks(comm, static_cast<double>(rows_->done_rows()));
      Progress progress(comm, "knn: search,", static_cast<std::int64_t>(done_before), inputs_.n_observations,
                        context_.progress_seconds, "row");
      std::int64_t next = 0;
      // each observation's index among the references, when the set is searched against itself
      core::UninitializedVector<std::int64_t> own;
      if (settings_.exclude_self) {
        own.resize(static_cast<std::size_t>(inputs_.count));
        std::int64_t* const to = own.data();
        const std::int64_t first = inputs_.first;
        core::host_parallel_ranges(inputs_.count, std::int64_t(1) << 18, [to, first](std::int64_t begin, std::int64_t end) {
          for (std::int64_t i = begin; i < end; ++i) to[i] = first + i;
        });
      }
      const bool own_radii = !inputs_.radii.empty();  // knn.max_distance: {column: NAME}
      // a round's observations, own indices and radii: gathered where its rows are not
      // consecutive (a restart), else read in place
      std::vector<Vec4<double>> batch;
      std::vector<std::int64_t> self;
      std::vector<double> limits;
      std::vector<std::int64_t> counts;
      double entries = 0.0;  // the rows' entries (or counts) over the rounds so far
      // A round's rows go into rows_ on a thread of their own while the next round's passes
      // run (the host's writes of a row's place cost about what a light round's count pass
      // does); rows_ is touched only after that thread is done (get() rethrows what failed
      // there; the future waits for it on every way out, an exception's too).
      std::future<void> adding;
      const auto join_adding = [&] {
        if (adding.valid()) adding.get();
      };
      std::int64_t rows_done = rows_->done_rows();
      const std::int64_t brute_references = method_.use_index ? 0 : inputs_.n_references;
      const double rounds_start = wall_seconds();
      for (;;) {
        const std::int64_t n = std::min(todo.size() - next,
                                        round_rows(settings_, next, entries, brute_references, todo.size() - next));
        const RowSelection rows = todo.slice(next, n);
        const Vec4<double>* round_points = nullptr;
        const std::int64_t* round_self = nullptr;
        const double* round_limits = nullptr;
        if (rows.consecutive()) {  // (todo is ascending)
          const auto from = static_cast<std::size_t>(rows[0]);
          round_points = vectors + from;
          if (settings_.exclude_self) round_self = own.data() + from;
          if (own_radii) round_limits = inputs_.radii.data() + from;
        } else {
          batch.clear();
          self.clear();
          limits.clear();
          for (std::int64_t i = 0; i < n; ++i) {
            const std::int64_t r = rows[i];
            batch.push_back(vectors[r]);
            if (own_radii) limits.push_back(inputs_.radii[static_cast<std::size_t>(r)]);
            if (settings_.exclude_self) self.push_back(own[static_cast<std::size_t>(r)]);
          }
          round_points = batch.data();
          if (settings_.exclude_self) round_self = self.data();
          if (own_radii) round_limits = limits.data();
        }
        // the next round's observations (as many as it may take) uploaded beside this one's
        // passes, where they are consecutive
        const RowSelection coming = todo.slice(next + n, std::min(todo.size() - next - n, most_round_rows(settings_)));
        if (coming.consecutive()) search.upload_ahead(vectors + coming[0], coming.size());
        if (settings_.rows == KnnRows::count) {
          counts.clear();
          mpi::collective(comm, [&] {
            search.count(round_points, n, counts, round_self, round_limits);
          });
          rows_->add_counts(rows, counts);
          for (const std::int64_t c : counts) entries += static_cast<double>(c);
        } else {
          RaggedRows found;  // kept by rows_ as it is
          mpi::collective(comm, [&] {
            search.append(round_points, n, found, round_self, round_limits);
            join_adding();  // the last round's rows
          });
          entries += static_cast<double>(found.indices.size());
          adding = std::async(std::launch::async,
                              [this, rows, f = std::move(found)]() mutable { rows_->add(rows, std::move(f)); });
        }
        next += n;
        rows_done += n;
        if (context_.progress_seconds > 0)
          progress.update(static_cast<std::int64_t>(mpi::sum_over_ranks(comm, static_cast<double>(rows_done))));
        // one agreement a round on every rank: a pending signal anywhere, and work left anywhere
        std::int64_t agreed[2] = {signals::pending(), next < todo.size() ? 1 : 0};
        mpi::max_over_ranks(comm, agreed, 2);
        if (agreed[1] == 0) break;
        if (agreed[0] != 0) {
          signal = static_cast<int>(agreed[0]);
          break;
        }
      }
      mpi::collective(comm, [&] {
        join_adding();
        search.finish();  // the last round's rows in place
      });
      const WithinProfile& p = search.profile();
      const double parts =
          p.upload_seconds + p.count_seconds + p.fill_seconds + p.download_seconds + p.host_seconds;
      log::detail(comm, "knn: rank 0 search parts: " + std::to_string(p.rounds) + " round(s), the largest " +
                            std::to_string(p.largest_round) + " rows; set-up " +
                            figure(rounds_start - start, "%.4f") + " s, upload and place order " +
                            figure(p.upload_seconds, "%.4f") + " s, count pass " + figure(p.count_seconds, "%.4f") +
                            " s, fill pass and row order " + figure(p.fill_seconds, "%.4f") + " s, download " +
                            figure(p.download_seconds, "%.4f") + " s, long rows on the host " +
                            figure(p.host_seconds, "%.4f") + " s, between the rounds " +
                            figure(wall_seconds() - rounds_start - parts, "%.4f") + " s");
      search_seconds = wall_seconds() - start + build;  // the index's build is part of the search, once
    }
    context_.timers.add("knn.search", search_seconds);
    const double done = mpi::sum_over_ranks(comm, static_cast<double>(rows_->done_rows()));
    if (signal != 0) {
      auto timer = context_.timers.scope("knn.checkpoint");
      write_checkpoint_file(comm, checkpoint_path_, settings_, inputs_.n_observations, inputs_.n_references, *rows_);
      log::info(comm, "knn: checkpoint written to " + checkpoint_path_);
    }
    {
      auto timer = context_.timers.scope("knn.output");
      write_output(output, signal != 0, search_seconds, build);
    }
    if (signal != 0)
      throw StudyStopped(std::string("knn: stopped by ") + signals::name(signal) + " after " + figure(done, "%.0f") +
                             " of " + std::to_string(inputs_.n_observations) + " observations; checkpoint " +
                             checkpoint_path_ + " written; resume with --restart " + checkpoint_path_,
                         kExitStopped);
  }

 private:
  void write_output(io::OutputFile& out, bool stopped, double search_seconds, double build) const {
    const MPI_Comm comm = context_.comm;
    const auto n = static_cast<std::uint64_t>(inputs_.n_observations);
    const auto first = static_cast<std::uint64_t>(inputs_.first), count = static_cast<std::uint64_t>(inputs_.count);
    out.create_group("/knn");
    out.create_dataset<double>("/knn/observations", {n, 2});
    out.create_dataset<double>("/knn/latitude", {n});
    out.create_dataset<double>("/knn/longitude", {n});
    const CoordinateColumns columns = coordinate_columns(inputs_.lat_lon, inputs_.count);
    out.write_slab("/knn/observations", {first, 0}, {count, 2}, inputs_.lat_lon.data());
    out.write_slab("/knn/latitude", {first}, {count}, columns.latitude.data());
    out.write_slab("/knn/longitude", {first}, {count}, columns.longitude.data());
    describe_observations(out);
    out.describe_text("/knn/observations", "coordinates", "latitude longitude");
    const bool match = settings_.match != KnnMatch::none;
    if (match) {
      const MatchRows m = match_rows(*rows_, inputs_.n_references, settings_.match, !stopped, comm);
      write_match(out, m, *rows_, inputs_.n_observations, settings_.match, "m");
      // the matches' names, as k: 1 writes them (a row without a match gets the fill)
      write_point_ids(out, inputs_.reference_ids, inputs_.observation_ids,
                      {inputs_.n_observations, inputs_.first, inputs_.count, 1, m.index.data(),
                       stopped ? &rows_->done() : nullptr});
      log_match(m, stopped);
    } else if (settings_.rows == KnnRows::count) {
      rows_->write(out, inputs_.n_observations);
      out.describe("/knn/counts", {"observation"}, "number of references within max_distance", "1");
      out.describe_text("/knn/counts", "coordinates", "latitude longitude");
      // counts name no reference: the observations' ids alone
      write_point_ids(out, PointIds(), inputs_.observation_ids,
                      {inputs_.n_observations, inputs_.first, inputs_.count, 1, nullptr, nullptr});
    } else {
      const WithinRows::Written written =
          rows_->write(out, inputs_.n_observations, inputs_.reference_ids.kind() != PointIds::Kind::none);
      describe_ragged(out);
      write_ragged_point_ids(out, inputs_.reference_ids, inputs_.observation_ids,
                             {inputs_.n_observations, inputs_.first, inputs_.count, 1, nullptr, nullptr},
                             {written.total, written.first, &written.indices});
    }
    if (stopped) {
      out.create_dataset<std::uint8_t>("/knn/done", {n});
      out.describe("/knn/done", {"observation"}, "whether the search finished the observation's row", "");
      out.describe_flags("/knn/done", {0, 1}, "unfinished finished");
      out.write_slab("/knn/done", {first}, {count}, rows_->done().data());
    }
    const double slowest = mpi::max_over_ranks(comm, search_seconds);
    const double pairs = mpi::sum_over_ranks(comm, static_cast<double>(rows_->pairs()));
    const double rows = mpi::sum_over_ranks(comm, static_cast<double>(rows_->done_rows()));
    log::info(comm, "knn: " + std::to_string(inputs_.n_observations) + " observations x " +
                        std::to_string(inputs_.n_references) + " references, every reference within knn.max_distance " +
                        settings_.max_distance_text() +
                        (match                                   ? " (match: " + settings_.match_text() + ")"
                         : settings_.rows == KnnRows::count ? std::string(" (k: count)")
                                                                  : std::string(" (k: all)")));
    log::info(comm, "knn: search " + figure(slowest, "%.4f") + " s (slowest rank), " + figure(pairs, "%.0f") +
                        " neighbours within, " + figure(rows > 0 ? pairs / rows : 0.0, "%.2f") + " a row" +
                        (method_.use_index ? ", through the spatial index" : ", by brute force"));
    out.attribute("/knn", "method", std::string(method_.use_index ? "index" : "brute"));
    out.attribute("/knn", "k", match ? std::string("1") : std::string(settings_.rows == KnnRows::count ? "count" : "all"));
    if (settings_.observations.has_radii()) out.attribute("/knn", "max_distance_column", settings_.observations.radii);
    else out.attribute("/knn", "max_distance", settings_.max_distance);
    out.attribute("/knn", "neighbours_within", static_cast<std::int64_t>(pairs));
    out.attribute("/knn", "radius", settings_.radius);
    out.attribute("/knn", "precision", std::string(core::precision_name(settings_.precision)));
    out.attribute("/knn", "observations", settings_.observations.describe());
    out.attribute("/knn", "references", settings_.references.describe());
    out.attribute("/knn", "observation_count", inputs_.n_observations);
    out.attribute("/knn", "reference_count", inputs_.n_references);
    out.attribute("/knn", "batch_size", settings_.batch_size);
    out.attribute("/knn", "distance", std::string("radius * atan2(|p x q|, p . q) in float64 on unit vectors"));
    out.attribute("/knn", "search_seconds", slowest);
    out.attribute("/knn", "index_build_seconds", mpi::max_over_ranks(comm, build));
  }

  void log_match(const MatchRows& m, bool stopped) const {
    const auto text = [](std::int64_t v) { return std::to_string(v); };
    std::string line = "knn: match " + settings_.match_text() + " within knn.max_distance " +
                       settings_.max_distance_text() + ": " + text(m.matched) + " matched, " + text(m.unmatched) +
                       " unmatched, " + text(m.ambiguous) + " ambiguous (more than one reference within)";
    if (settings_.match == KnnMatch::mutual)
      line += stopped ? "; mutual matches are decided once every row is done"
                      : "; " + text(m.mutual_matches) + " mutual, " + text(m.matched - m.mutual_matches) +
                            " not (the reference has a nearer observation)";
    log::info(context_.comm, line);
  }

  const KnnSettings& settings_;
  RunContext& context_;
  std::string checkpoint_path_;
  KnnInputs inputs_;
  std::unique_ptr<WithinRows> rows_;
  RunMethod method_;
};

}  // namespace

std::unique_ptr<PreparedStudy> prepare_within_study(const KnnSettings& settings, RunContext& context,
                                                    const std::string& checkpoint_path) {
  return std::make_unique<WithinStudy>(settings, context, checkpoint_path);
}

}  // namespace trident::knn
