#pragma once
// The names of points (knn.*.csv.id, knn.*.hdf5.ids) as the input gave them: 64-bit
// integers, or UTF-8 texts. They travel beside the points and reach the output as
// /knn/observation_ids and /knn/reference_ids.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "knn/settings.hpp"

namespace trident::knn {

// What a neighbour's id is in a row the search did not finish (a stopped run). netCDF's
// default fill for int64, so netCDF4-python masks it; an input id of this value is refused.
constexpr std::int64_t kIntegerIdFill = -9223372036854775806LL;

class PointIds {
 public:
  enum class Kind { none, integer, text };

  Kind kind() const { return kind_; }
  std::int64_t size() const;
  // kind integer: the ids.
  const std::vector<std::int64_t>& integers() const { return integers_; }
  // kind text: id i, NUL-terminated in the one buffer all ids share.
  const char* text(std::int64_t i) const { return texts_.data() + starts_[static_cast<std::size_t>(i)]; }
  std::string_view text_view(std::int64_t i) const;

  static PointIds empty(Kind kind);  // no ids yet: a rank that holds none of the points
  static PointIds from_integers(std::vector<std::int64_t> ids);
  void add_text(std::string_view id);  // makes the set a text set (as read from a CSV)

  // Whether every text id is an integer written plainly: an optional '-', then digits
  // without a leading zero (0 alone), within int64. Such a set becomes integers without
  // changing what it says ("007" or "+7" stay texts: kept as given).
  bool texts_are_integers() const;
  void texts_to_integers();  // after texts_are_integers() said yes on every rank

  // The bytes of a text set (the ids one after another, each ended by NUL), for sending.
  const std::string& text_bytes() const { return texts_; }
  static PointIds from_text_bytes(std::string bytes);

 private:
  Kind kind_ = Kind::none;
  std::vector<std::int64_t> integers_;
  std::string texts_;
  std::vector<std::uint64_t> starts_;
};

// `text` as an integer id when it is one written plainly (see texts_are_integers).
bool plain_integer(std::string_view text, std::int64_t& value);

// Makes the kind of `ids` (this rank's points of `source`, from point `first`) the same on
// every rank, a rank that holds none included: a CSV column becomes integers when every
// rank's texts are plain integers. Then refuses an integer id equal to kIntegerIdFill
// (InputError naming the file, the point and the deck key, on every rank). Collective.
void settle_ids(PointIds& ids, const PointSource& source, std::int64_t first, MPI_Comm comm);

}  // namespace trident::knn
