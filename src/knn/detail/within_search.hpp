#pragma once
// The search for every reference within a distance (k: all): ragged rows, nearest first,
// ties (1e-12 relative, chained) by index as in the k-nearest rows. The references stay on
// the device for every round, as a plain copy (brute force) or through the spatial index.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/uninitialized_vector.hpp"
#include "knn/detail/geometry.hpp"
#include "knn/detail/result_rows.hpp"
#include "transport/locked_arena.hpp"

namespace trident::knn {

struct SphereIndex;

// Rows one after another: row i's entries at [offsets[i], offsets[i + 1]) of the arrays
// (offsets has rows + 1 entries, from 0). The entries are left uninitialized by a resize, and
// come from WithinSearch's locked arena where it has one (use_arena).
struct RaggedRows {
  core::UninitializedVector<std::int64_t> offsets{0};  // (filled by a download too)
  transport::ArenaVector<NeighbourIndex> indices;  // (filled by a download: not zeroed first)
  transport::ArenaVector<double> distances;
  std::int64_t rows() const { return static_cast<std::int64_t>(offsets.size()) - 1; }
};

// Where a search's time went, summed over its rounds (each part ends at a fence): the
// observations' upload (what was not uploaded ahead) and place order, the count pass (with
// the offsets' download), the fill pass and the device's row order, the time spent waiting
// for the rows' downloads (which run beside the next round's passes), and the host's order
// of long rows (beside them too).
struct WithinProfile {
  std::int64_t rounds = 0, largest_round = 0, rows = 0, entries = 0;
  double upload_seconds = 0, count_seconds = 0, fill_seconds = 0, download_seconds = 0, host_seconds = 0;
};

class WithinSearch {
 public:
  // The references (unit vectors) on the device, or `index` built over them (then used).
  WithinSearch(const std::vector<Vec4<double>>& references, std::shared_ptr<const SphereIndex> index,
               double max_distance, double radius);
  ~WithinSearch();

  // Appends the rows of `count` observations (unit vectors) to `rows`: their offsets at once,
  // their entries once the next append() or finish() returns (`rows` must stay put until
  // then; its arrays are not moved by a later append to other rows); `self`, when given,
  // holds each observation's own index among the references, left out of its row. The
  // observations are searched in the order of their places on the device (their cube keys),
  // and the rows come back whole; the rows do not depend on the order they are given in.
  // `limits`, when given, holds each observation's own distance (else the one given here).
  void append(const Vec4<double>* observations, std::int64_t count, RaggedRows& rows,
              const std::int64_t* self = nullptr, const double* limits = nullptr) const;
  // Appends how many references lie within the distance of each observation to `counts`
  // (the count pass alone: k: count), less the point itself where `self` is given as in
  // append.
  void count(const Vec4<double>* observations, std::int64_t count, std::vector<std::int64_t>& counts,
             const std::int64_t* self = nullptr, const double* limits = nullptr) const;
  // The next round's observations, or a prefix of them (`count` at most what the next round
  // may take): the next append() or count() uploads them beside its own passes, and the round
  // after takes them from there where its observations begin at `observations` (and are no
  // more). Those host points must stay put until then; page-locked, the upload is the link's
  // alone. A hint only: a round given other points uploads its own.
  void upload_ahead(const Vec4<double>* observations, std::int64_t count) const;
  // Waits until the rows of the last append() are in place (rethrowing what failed there).
  void finish() const;
  // Loads the kernels (and allocates the download's buffers) by a search of `count`
  // observations (their own distances `limits` where given, as in append), whose rows and
  // times are left out of profile(); returns the entries their rows hold.
  std::int64_t warm_up(const Vec4<double>* observations, std::int64_t count, const double* limits = nullptr) const;
  // The rounds' entries from here on made in `arena` (page-locked host memory made before
  // the search) where they fit there: they then come straight from the device, with no
  // staging and no host copy; those that do not fit take ordinary memory, as without one.
  void use_arena(std::shared_ptr<transport::LockedArena> arena) { arena_ = std::move(arena); }
  // The rounds so far.
  const WithinProfile& profile() const { return profile_; }

 private:
  struct Device;
  std::unique_ptr<Device> device_;
  // Entries a row the count pass keeps (0: none), from the mean row of the rounds so far:
  // 32 where most rows fit (a mean of 6 to 24, and the first round), 16 below, none above.
  int kept_slots() const;

  double max_distance_, radius_;
  std::shared_ptr<transport::LockedArena> arena_;
  mutable WithinProfile profile_;
};

}  // namespace trident::knn
