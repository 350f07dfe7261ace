#pragma once
// The k-nearest rows as the output gets them, made from the search's rows as each round
// ends: with knn.exclude_self the point's own index is left out of its row (searched with
// one neighbour more, so the row keeps k), and with knn.max_distance each row is cut at the
// distance, the rest padded with index -1 and distance NaN. The search's rows hold the exact
// float64 distances the output gets, so "within" is decided on the written value, and the
// rows are the same bits whatever the method, ranks or rounds that made them.
#include <cstdint>
#include <vector>

#include "knn/settings.hpp"
#include "knn/detail/checkpoint.hpp"
#include "knn/detail/geometry.hpp"

namespace trident::knn {

class RowFinish {
 public:
  // `count` rows of this rank's chunk. Where neither applies, the output's rows are the
  // search's (no copy, finish() does nothing).
  RowFinish(const KnnSettings& settings, std::int64_t count);
  // Each row's own limit (knn.max_distance: {column: NAME}): radii[i] for row i, instead of
  // the deck's one distance; the vector outlives this.
  void use_radii(const std::vector<double>& radii) { radii_ = radii.empty() ? nullptr : radii.data(); }

  // Whether the output's rows are an array of their own (knn.exclude_self: k wide, the
  // search's k + 1); else they are the search's rows.
  bool own_rows() const { return own_; }
  Neighbours& rows() { return rows_; }

  // Marks the rows done in `rows` as finished already (a checkpoint's, which holds the
  // output's rows).
  void restored(const ChunkRows& rows);

  // Finishes the rows of `rows` done since the last call (observations[i]: row i's unit
  // vector; `first`: row 0's observation, its index among the references when the set is
  // searched against itself), into rows() or in place.
  void finish(ChunkRows& rows, const Vec4<double>* observations, const std::vector<Vec4<double>>& references);

  // Entries within the distance in the rows finished so far, and the rows holding fewer than k.
  std::int64_t kept() const { return kept_; }
  std::int64_t short_rows() const { return short_rows_; }

 private:
  // A row again from every reference: those within, in the tie rule's order, the first k
  // (`self`: the index left out, -1 none).
  void search_row(NeighbourIndex* index, double* distance, const Vec4<double>& observation,
                  const std::vector<Vec4<double>>& references, std::int64_t self, double limit) const;

  double max_distance_, radius_;
  const double* radii_ = nullptr;
  int k_, search_k_;
  bool exclude_self_, limited_, own_;
  Neighbours rows_;                    // own_: count x k
  std::vector<std::uint8_t> finished_;  // per row of the chunk
  std::int64_t kept_ = 0, short_rows_ = 0;
};

}  // namespace trident::knn
