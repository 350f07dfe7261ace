#include "knn/detail/checkpoint.hpp"


#include "core/error.hpp"
#include "core/runtime.hpp"
#include "io/exact_text.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "io/sha256.hpp"

namespace trident::knn {

namespace {
const char* const kDigestNames[2] = {"observations_sha256", "references_sha256"};
const char* const kDigestKeys[2] = {"knn.observations (its file's sha256)", "knn.references (its file's sha256)"};
}  // namespace

std::vector<std::string> point_file_digests(MPI_Comm comm, const KnnSettings& s) {
  const auto file = [](const PointSource& p) { return p.kind == PointSource::Kind::generate ? std::string() : p.file; };
  return io::sha256_on_root(comm, {file(s.observations), file(s.references)});
}

void write_checkpoint(MPI_Comm comm, const std::string& path, const KnnSettings& settings,
                      std::int64_t n_observations, std::int64_t n_references, const ChunkRows& rows) {
  write_checkpoint(comm, path, settings, n_observations, n_references, rows, rows.neighbours);
}

void write_checkpoint(MPI_Comm comm, const std::string& path, const KnnSettings& settings,
                      std::int64_t n_observations, std::int64_t n_references, const ChunkRows& rows,
                      const Neighbours& neighbours) {
  const auto n = static_cast<std::uint64_t>(n_observations), k = static_cast<std::uint64_t>(settings.k);
  const auto first = static_cast<std::uint64_t>(rows.first), count = static_cast<std::uint64_t>(rows.count);
  io::OutputFile file(comm, path, /*overwrite=*/true);
  file.create_group("/knn");
  file.create_dataset<std::uint8_t>("/knn/done", {n});
  file.create_dataset<NeighbourIndex>("/knn/indices", {n, k});
  file.create_dataset<double>("/knn/distances", {n, k});
  file.write_slab("/knn/done", {first}, {count}, rows.done.data());
  file.write_slab("/knn/indices", {first, 0}, {count, k}, neighbours.indices.data());
  file.write_slab("/knn/distances", {first, 0}, {count, k}, neighbours.distances.data());
  write_checkpoint_settings(file, comm, settings, n_observations, n_references);
  file.commit();
}

void write_checkpoint_settings(io::OutputFile& file, MPI_Comm comm, const KnnSettings& settings,
                               std::int64_t n_observations, std::int64_t n_references) {
  file.attribute("/", "study", std::string("knn"));
  file.attribute("/", "trident_version", BuildInfo::trident_version());
  file.attribute("/knn", "k", settings.k);
  file.attribute("/knn", "precision", std::string(core::precision_name(settings.precision)));
  file.attribute("/knn", "radius", settings.radius);
  if (settings.observations.has_radii()) file.attribute("/knn", "max_distance_column", settings.observations.radii);
  else if (settings.has_max_distance()) file.attribute("/knn", "max_distance", settings.max_distance);
  if (settings.rows != KnnRows::nearest)
    file.attribute("/knn", "rows", std::string(settings.rows == KnnRows::all ? "all" : "count"));
  if (settings.match != KnnMatch::none) file.attribute("/knn", "match", settings.match_text());
  file.attribute("/knn", "observations", settings.observations.describe());
  file.attribute("/knn", "references", settings.references.describe());
  file.attribute("/knn", "observation_count", n_observations);
  file.attribute("/knn", "reference_count", n_references);
  const std::vector<std::string> digests = point_file_digests(comm, settings);
  for (int i = 0; i < 2; ++i)
    if (!digests[i].empty()) file.attribute("/knn", kDigestNames[i], digests[i]);
}

void check_checkpoint_settings(const io::InputFile& file, const std::string& path, const KnnSettings& s,
                               std::int64_t n_observations, std::int64_t n_references,
                               const std::vector<std::string>& digests) {
  if (!file.has("/knn/done") || ((!file.has("/knn/indices") || !file.has("/knn/distances")) && !file.has("/knn/counts")))
    throw InputError(path + ": not a trident knn checkpoint (no /knn/done, /knn/indices and /knn/distances)");
  const auto mismatch = [&](const std::string& key, const std::string& in_file, const std::string& in_deck) {
    throw InputError(path + ": the checkpoint was written with " + key + " = " + in_file + ", but the deck has " +
                     in_deck + "; restart with the deck that wrote it");
  };
  const std::string rows = file.has_attribute("/knn", "rows") ? file.string_attribute("/knn", "rows") : "nearest";
  const std::string wanted_rows = s.rows == KnnRows::all ? "all" : s.rows == KnnRows::count ? "count" : "nearest";
  const std::int64_t k = file.integer_attribute("/knn", "k");
  if (rows != wanted_rows || k != s.k)
    mismatch("knn.k", rows == "nearest" ? std::to_string(k) : rows, wanted_rows == "nearest" ? std::to_string(s.k) : wanted_rows);
  const std::string match = file.has_attribute("/knn", "match") ? file.string_attribute("/knn", "match") : "none";
  if (match != s.match_text()) mismatch("knn.match", match, s.match_text());
  const std::string precision = file.string_attribute("/knn", "precision"), wanted = core::precision_name(s.precision);
  if (precision != wanted) mismatch("knn.precision", precision, wanted);
  const double radius = file.real_attribute("/knn", "radius");
  if (radius != s.radius) mismatch("knn.radius", io::exact_text(radius), io::exact_text(s.radius));
  // rows cut at a distance are another answer: absent in a checkpoint means none
  const bool limited = file.has_attribute("/knn", "max_distance");
  const double max_distance = limited ? file.real_attribute("/knn", "max_distance") : s.max_distance;
  const std::string column = file.has_attribute("/knn", "max_distance_column")
                                 ? "{column: " + file.string_attribute("/knn", "max_distance_column") + "}"
                                 : "";
  const std::string in_file = !column.empty() ? column : limited ? io::exact_text(max_distance) : "none";
  const std::string in_deck = s.observations.has_radii() ? "{column: " + s.observations.radii + "}"
                              : s.has_max_distance()      ? io::exact_text(s.max_distance)
                                                          : "none";
  if (in_file != in_deck) mismatch("knn.max_distance", in_file, in_deck);
  const std::string observations = file.string_attribute("/knn", "observations");
  if (observations != s.observations.describe())
    mismatch("knn.observations", observations, s.observations.describe());
  const std::string references = file.string_attribute("/knn", "references");
  if (references != s.references.describe()) mismatch("knn.references", references, s.references.describe());
  // the same description with other contents (a CSV file edited since): the sizes still tell
  const std::int64_t n_obs = file.integer_attribute("/knn", "observation_count");
  if (n_obs != n_observations)
    mismatch("knn.observations (its point count)", std::to_string(n_obs), std::to_string(n_observations));
  const std::int64_t n_refs = file.integer_attribute("/knn", "reference_count");
  if (n_refs != n_references)
    mismatch("knn.references (its point count)", std::to_string(n_refs), std::to_string(n_references));
  // the same sizes with other contents (a point moved): the files' digests tell
  for (int i = 0; i < 2; ++i) {
    if (digests[i].empty() || !file.has_attribute("/knn", kDigestNames[i])) continue;  // generated, or an older checkpoint
    const std::string in_file = file.string_attribute("/knn", kDigestNames[i]);
    if (in_file != digests[i])
      throw InputError(path + ": the checkpoint was written with " + kDigestKeys[i] + " = " + in_file +
                       ", but the file now has " + digests[i] + ": it changed since; restart with the file that wrote it");
  }
}

ChunkRows read_checkpoint(const std::string& path, const KnnSettings& s, std::int64_t n_observations,
                          std::int64_t n_references, std::int64_t first, std::int64_t count,
                          const std::vector<std::string>& digests) {
  const io::InputFile file(path, "checkpoint (--restart)");
  check_checkpoint_settings(file, path, s, n_observations, n_references, digests);
  const std::int64_t k = s.k;
  const auto n = static_cast<std::uint64_t>(n_observations), ku = static_cast<std::uint64_t>(k);
  if (file.dims("/knn/done") != std::vector<std::uint64_t>{n} ||
      file.dims("/knn/indices") != std::vector<std::uint64_t>{n, ku} ||
      file.dims("/knn/distances") != std::vector<std::uint64_t>{n, ku})
    throw InputError(path + ": the checkpoint's /knn datasets do not have " + std::to_string(n_observations) +
                     " rows of k = " + std::to_string(k) + " (is it damaged?)");
  ChunkRows rows;
  rows.first = first;
  rows.count = count;
  const auto f = static_cast<std::uint64_t>(first), c = static_cast<std::uint64_t>(count);
  const std::vector<std::int32_t> done = file.read<std::int32_t>("/knn/done", {f}, {c});
  rows.done.assign(done.begin(), done.end());
  for (std::uint8_t& d : rows.done) d = d != 0 ? 1 : 0;
  allocate_rows(rows.neighbours, static_cast<std::size_t>(c * ku));
  // (HDF5 converts the 64-bit indices of checkpoints that earlier builds wrote)
  file.read_into("/knn/indices", {f, 0}, {c, ku}, io::h5_type<NeighbourIndex>(), rows.neighbours.indices.data());
  file.read_into("/knn/distances", {f, 0}, {c, ku}, io::h5_type<double>(), rows.neighbours.distances.data());
  return rows;
}

}  // namespace trident::knn
