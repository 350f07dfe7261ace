#include "knn/detail/match.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/comm.hpp"
#include "knn/detail/geometry.hpp"

namespace trident::knn {

namespace {

bool tied(double a, double b) { return std::fabs(a - b) <= kTieRelative * std::max(a, b); }

// Each reference's nearest observation among every rank's rows (-1 none): the least
// distance, the end of the tie group it starts (a group may chain through ranks, so each
// step is agreed on by every rank), then the lowest observation index within the group.
std::vector<std::int64_t> nearest_observations(const WithinRows& rows, std::int64_t n_references, MPI_Comm comm) {
  const auto n = static_cast<std::size_t>(n_references);
  const double inf = std::numeric_limits<double>::infinity();
  const auto each_pair = [&](auto&& visit) {
    for (std::int64_t row = 0; row < rows.count(); ++row) {
      if (rows.done()[static_cast<std::size_t>(row)] == 0) continue;
      const NeighbourIndex* index = rows.row_indices(row);
      const double* distance = rows.row_distances(row);
      for (std::int64_t e = 0; e < rows.row_size(row); ++e)
        visit(rows.first() + row, static_cast<std::size_t>(index[e]), distance[e]);
    }
  };
  std::vector<double> upper(n, inf);
  each_pair([&](std::int64_t, std::size_t r, double d) { upper[r] = std::min(upper[r], d); });
  mpi::min_over_ranks(comm, upper.data(), static_cast<int>(n));
  // a distance beyond the group's end and tied with it joins the group (whatever lies between
  // is tied with both); extended here until no pair joins, then agreed on, until no rank moves it
  for (;;) {
    std::vector<double> before = upper;
    for (bool moved = true; moved;) {
      moved = false;
      each_pair([&](std::int64_t, std::size_t r, double d) {
        if (d > upper[r] && tied(upper[r], d)) {
          upper[r] = d;
          moved = true;
        }
      });
    }
    mpi::max_over_ranks(comm, upper.data(), static_cast<int>(n));
    if (upper == before) break;  // the same on every rank: each holds the reduced values
  }
  const std::int64_t none = std::numeric_limits<std::int64_t>::max();
  std::vector<std::int64_t> nearest(n, none);
  each_pair([&](std::int64_t o, std::size_t r, double d) {
    if (d <= upper[r]) nearest[r] = std::min(nearest[r], o);
  });
  mpi::min_over_ranks(comm, nearest.data(), static_cast<int>(n));
  for (std::int64_t& o : nearest) o = o == none ? -1 : o;
  return nearest;
}

}  // namespace

MatchRows match_rows(const WithinRows& rows, std::int64_t n_references, KnnMatch match, bool complete,
                     MPI_Comm comm) {
  MatchRows m;
  const auto count = static_cast<std::size_t>(rows.count());
  m.index.assign(count, -1);
  m.distance.assign(count, std::numeric_limits<double>::quiet_NaN());
  m.within.assign(count, 0);
  m.mutual.assign(count, 0);
  std::int64_t tally[4] = {0, 0, 0, 0};  // matched, unmatched, ambiguous, mutual
  for (std::size_t row = 0; row < count; ++row) {
    if (rows.done()[row] == 0) continue;
    const auto r = static_cast<std::int64_t>(row);
    m.within[row] = rows.row_size(r);
    if (m.within[row] == 0) {
      ++tally[1];
      continue;
    }
    m.index[row] = rows.row_indices(r)[0];
    m.distance[row] = rows.row_distances(r)[0];
    ++tally[0];
    if (m.within[row] > 1) ++tally[2];
  }
  if (match == KnnMatch::mutual && complete) {
    const std::vector<std::int64_t> nearest = nearest_observations(rows, n_references, comm);
    for (std::size_t row = 0; row < count; ++row) {
      if (m.index[row] < 0) continue;
      m.mutual[row] = nearest[static_cast<std::size_t>(m.index[row])] == rows.first() + static_cast<std::int64_t>(row);
      tally[3] += m.mutual[row];
    }
  }
  mpi::sum_over_ranks(comm, tally, 4);
  m.matched = tally[0];
  m.unmatched = tally[1];
  m.ambiguous = tally[2];
  m.mutual_matches = tally[3];
  return m;
}

void write_match(io::OutputFile& out, const MatchRows& m, const WithinRows& rows, std::int64_t n_observations,
                 KnnMatch match, const std::string& distance_unit) {
  const auto n = static_cast<std::uint64_t>(n_observations);
  const auto first = static_cast<std::uint64_t>(rows.first()), count = static_cast<std::uint64_t>(rows.count());
  out.create_dataset<NeighbourIndex>("/knn/indices", {n, 1});
  out.create_dataset<double>("/knn/distances", {n, 1});
  out.create_dataset<std::int64_t>("/knn/counts", {n});
  out.write_slab("/knn/indices", {first, 0}, {count, 1}, m.index.data());
  out.write_slab("/knn/distances", {first, 0}, {count, 1}, m.distance.data());
  out.write_slab("/knn/counts", {first}, {count}, m.within.data());
  out.describe("/knn/indices", {"observation", "neighbour"},
               "index of the matched reference (0-based), the nearest within max_distance; -1: none", "1");
  out.describe("/knn/distances", {"observation", "neighbour"}, "great-circle distance to the matched reference; NaN: none",
               distance_unit);
  out.describe("/knn/counts", {"observation"}, "number of references within max_distance (more than 1: ambiguous)", "1");
  for (const char* name : {"/knn/indices", "/knn/distances", "/knn/counts"})
    out.describe_text(name, "coordinates", "latitude longitude");
  out.attribute("/knn", "match", std::string(match == KnnMatch::best ? "best" : "mutual"));
  out.attribute("/knn", "matched", m.matched);
  out.attribute("/knn", "unmatched", m.unmatched);
  out.attribute("/knn", "ambiguous", m.ambiguous);
  if (match != KnnMatch::mutual) return;
  out.create_dataset<std::uint8_t>("/knn/mutual", {n});
  out.write_slab("/knn/mutual", {first}, {count}, m.mutual.data());
  out.describe("/knn/mutual", {"observation"},
               "whether the observation is its matched reference's own nearest observation within max_distance", "");
  out.describe_flags("/knn/mutual", {0, 1}, "not_mutual mutual");
  out.describe_text("/knn/mutual", "coordinates", "latitude longitude");
  out.attribute("/knn", "mutual_matches", m.mutual_matches);
}

}  // namespace trident::knn
