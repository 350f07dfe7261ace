#pragma once
// What the distance-query tests share around their decks: bit-for-bit comparison of
// distances, a deck's point source read back as test points, and CSV point files written
// for a deck.
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "clusters.hpp"
#include "core/comm.hpp"
#include "knn/detail/points.hpp"
#include "support/test_support.hpp"

namespace trident::knn::test {

inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// Every point of `source`, as the study reads it.
inline std::vector<Point> points(const knn::PointSource& source) {
  const auto ll = read_points(source, 0, count_points(source));
  std::vector<Point> p;
  for (std::size_t i = 0; i < ll.size(); i += 2) p.push_back({ll[i], ll[i + 1]});
  return p;
}

// obs.csv and refs.csv in a scratch folder named `name`, and the deck lines that name them.
inline std::string csv_points(const std::string& name, const std::vector<Point>& obs, const std::vector<Point>& refs) {
  const std::string folder = trident::test::scratch_folder(MPI_COMM_WORLD, name);
  if (mpi::rank(MPI_COMM_WORLD) == 0) {
    trident::test::write_text(folder + "/obs.csv", csv_text(obs));
    trident::test::write_text(folder + "/refs.csv", csv_text(refs));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return "  observations: {csv: {file: " + folder + "/obs.csv, latitude: lat, longitude: lon}}\n"
         "  references: {csv: {file: " + folder + "/refs.csv, latitude: lat, longitude: lon}}\n";
}

}  // namespace trident::knn::test
