#pragma once
// The knn study's point sets as read and checked before the output exists: every reference
// (as unit vectors) and this rank's observations, with their ids.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "knn/settings.hpp"
#include "knn/detail/geometry.hpp"
#include "knn/detail/point_ids.hpp"

namespace trident::knn {

// The point sets as read and checked: every reference, and this rank's observations.
struct KnnInputs {
  std::int64_t n_observations = 0, n_references = 0;
  std::int64_t first = 0, count = 0;  // this rank's observations
  std::vector<double> lat_lon;        // count x 2, degrees
  std::vector<Vec4<double>> references;
  // this rank's observations' own search radii (knn.max_distance: {column: NAME}; empty
  // when the deck gives one distance)
  std::vector<double> radii;
  // the names the deck's point sources give (kind none without): every reference's, and
  // this rank's observations'
  PointIds reference_ids, observation_ids;
};

// Counts the point sets, checks k and the host memory the search holds (naming
// `host_name`), then reads and validates the points and their ids. Collective: every rank
// fails together with the lowest failing rank's message.
KnnInputs read_inputs(const KnnSettings& settings, MPI_Comm comm, const std::string& host_name);

// Whether the output holds text ids (variable-length strings, which parallel HDF5 cannot
// write): the point sources name their points by a text column.
bool writes_texts(const KnnInputs& inputs);

}  // namespace trident::knn
