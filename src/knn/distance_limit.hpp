#pragma once
// knn.max_distance with k: N: each finished row of the k nearest is cut at the distance, its
// entries beyond it dropped and the row padded with index -1 and distance NaN. The rows hold
// the exact float64 distances the output gets, so "within" is decided on the written value,
// and the cut rows are the same bits whatever the method, ranks or rounds that made them.
#include <cstdint>
#include <vector>

#include "knn/checkpoint.hpp"
#include "knn/geometry.hpp"

namespace trident::knn {

class DistanceLimit {
 public:
  // Rows of k entries, distances radius * angle; `max_distance` infinite: no limit (cut()
  // does nothing).
  DistanceLimit(double max_distance, int k, double radius) : max_distance_(max_distance), k_(k), radius_(radius) {}

  // Cuts the rows of `rows` finished since the last call (observations[i]: row i's unit
  // vector). A row is looked at once; cutting is idempotent anyway, so rows a checkpoint
  // brought back cut may be cut again.
  void cut(ChunkRows& rows, const Vec4<double>* observations, const std::vector<Vec4<double>>& references);

  // Entries within the distance in the rows cut so far, and the rows holding fewer than k.
  std::int64_t kept() const { return kept_; }
  std::int64_t short_rows() const { return short_rows_; }

 private:
  // Row i again from every reference: those within, in the tie rule's order, the first k.
  void search_row(NeighbourIndex* index, double* distance, const Vec4<double>& observation,
                  const std::vector<Vec4<double>>& references) const;

  double max_distance_;
  int k_;
  double radius_;
  std::vector<std::uint8_t> cut_;  // per row of the chunk: already cut
  std::int64_t kept_ = 0, short_rows_ = 0;
};

}  // namespace trident::knn
