#pragma once
// What a caller chooses for a search: k, the radius, the screening precision, batch and
// tile sizes, the three benchmark knobs the TRIDENT_KNN_* overrides map to (the study sets
// them from core::Overrides), and the state that searches over the same references share
// (the list bound, the device arrays). Test-only layouts live in search_test_hooks.hpp.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/overrides.hpp"
#include "core/precision.hpp"

namespace trident::core {
class DeviceBuffers;  // core/device_buffers.hpp
}

namespace trident::knn {

struct ListBoundCache;  // list_bound.hpp

// Which screen keeps a pass's lists (list_choice.hpp): sorted lists in registers, candidate
// buffers per observation (buffer_kernels.hpp) or the any-k screen's lane groups
// (select_kernels.hpp).
enum class ListKind { registers, buffers, select };

struct SphereIndex;  // index/sphere_index.hpp

struct SearchOptions {
  int k = 1;
  double radius = 1.0;                // distances are angles times this
  core::Precision precision = core::Precision::float32;  // screening precision: float32 or float64
  std::int64_t batch_size = 0;        // observations per device batch; 0: from free memory
  std::int64_t tile_size = 0;         // references per device tile; 0: all when they fit

  // TRIDENT_KNN_LISTS: the screen of every pass (where it can hold the lists; see
  // list_choice.hpp); nullopt: chosen by list length.
  std::optional<ListKind> forced_lists;
  // TRIDENT_KNN_SLICES: pipeline slices per batch (0: by size, on GPUs only).
  int slices = 0;
  // TRIDENT_KNN_LIST_BOUND: lists start at a bound (list_bound.hpp) from every reference
  // (on), never (off), or by size (automatic).
  core::Switch list_bound = core::Switch::automatic;

  // where searches that share their references (the rounds of rounds.hpp) keep the list
  // bound between them, so that only the first makes it; null: each search makes its own
  std::shared_ptr<ListBoundCache> bound_cache;
  // where searches keep their device arrays between them (the rounds of rounds.hpp, after
  // reserve_search), and the references uploaded by the first; null: each search allocates
  // and frees its own. Share it only between searches of the same references (as
  // bound_cache), which stay where they are in host memory.
  std::shared_ptr<core::DeviceBuffers> device_buffers;
  // the observations come in the order of their places (rounds.hpp): on host back ends a
  // batch is then cut into slices too, each screened around its own centre
  bool ordered_by_place = false;
  // knn.method chose the spatial index (index/cost_model.hpp): searches go through this index
  // of the references (built once by the study, shared by every round); null: brute force
  std::shared_ptr<const SphereIndex> index;
};

// The list kind an override value names (core::Overrides::knn_lists: auto, registers,
// buffers or select, already checked); nullopt for auto.
std::optional<ListKind> list_kind_named(const std::string& value);

// The options of a search as the TRIDENT_KNN_* overrides set them, the rest as given.
SearchOptions with_overrides(SearchOptions options, const core::Overrides& overrides);

}  // namespace trident::knn
