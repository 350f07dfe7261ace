#include "knn/detail/inputs.hpp"

#include "core/comm.hpp"
#include "core/device_memory.hpp"
#include "knn/detail/point_radii.hpp"
#include "knn/detail/points.hpp"
#include "knn/detail/search.hpp"

namespace trident::knn {

namespace {

// Ids [first, first + count) of `ids`, of the same kind.
PointIds slice(const PointIds& ids, std::int64_t first, std::int64_t count) {
  if (ids.kind() == PointIds::Kind::integer)
    return PointIds::from_integers(std::vector<std::int64_t>(ids.integers().begin() + first,
                                                             ids.integers().begin() + first + count));
  PointIds out = PointIds::empty(ids.kind());
  if (ids.kind() == PointIds::Kind::text)
    for (std::int64_t i = first; i < first + count; ++i) out.add_text(ids.text_view(i));
  return out;
}

}  // namespace

KnnInputs read_inputs(const KnnSettings& settings, MPI_Comm comm, const std::string& host_name) {
  KnnInputs in;
  // Every rank reads every reference and its own observations; a bad value found by any
  // rank stops all of them with the same message, before the search starts.
  mpi::collective(comm, [&] {
    in.n_references = count_points(settings.references);
    check_k(settings, in.n_references);
    in.n_observations = count_points(settings.observations);
    chunk_of(in.n_observations, mpi::size(comm), mpi::rank(comm), in.first, in.count);
    // host memory held for the whole search: the points as read and as unit vectors, and
    // this rank's result rows (the device works in batches sized to its free memory)
    const std::int64_t point_bytes = 2 * 8 + static_cast<std::int64_t>(sizeof(Vec4<double>));
    // ids, where the deck names them: an int64, or a short text and its offset, each
    const std::int64_t id_bytes = 16;
    const std::int64_t need = in.n_references * (point_bytes + (settings.references.has_ids() ? id_bytes : 0)) +
                              in.count * (point_bytes + (settings.observations.has_ids() ? id_bytes : 0) +
                                          settings.k * (8 + 8));
    const std::string what = std::to_string(in.count) + " observations on each rank with k = " +
                             std::to_string(settings.k) + " (points and result rows) and " +
                             std::to_string(in.n_references) + " references";
    check_device_memory(need, host_free_bytes(), "knn", what, host_name, "host memory");
    if (settings.observations.has_radii())
      in.radii = read_point_radii(settings.observations, in.first, in.count);
    if (!settings.self) {
      in.references = unit_vectors(read_points(settings.references, 0, in.n_references, &in.reference_ids));
      in.lat_lon = read_points(settings.observations, in.first, in.count, &in.observation_ids);
      return;
    }
    // one set against itself: read once, the rank's observations a slice of it
    const std::vector<double> all = read_points(settings.references, 0, in.n_references, &in.reference_ids);
    in.references = unit_vectors(all);
    in.lat_lon.assign(all.begin() + 2 * in.first, all.begin() + 2 * (in.first + in.count));
  });
  settle_ids(in.reference_ids, settings.references, 0, comm);
  if (settings.self) {
    in.observation_ids = slice(in.reference_ids, in.first, in.count);
    return in;
  }
  settle_ids(in.observation_ids, settings.observations, in.first, comm);
  return in;
}

bool writes_texts(const KnnInputs& inputs) {
  return inputs.reference_ids.kind() == PointIds::Kind::text || inputs.observation_ids.kind() == PointIds::Kind::text;
}

}  // namespace trident::knn
