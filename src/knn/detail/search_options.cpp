// The search options the TRIDENT_KNN_* overrides (core/overrides.hpp) set.
#include "knn/detail/search_options.hpp"

#include "core/error.hpp"

namespace trident::knn {

std::optional<ListKind> list_kind_named(const std::string& value) {
  if (value == "auto") return std::nullopt;
  if (value == "registers") return ListKind::registers;
  if (value == "buffers") return ListKind::buffers;
  if (value == "select") return ListKind::select;
  throw RunError("knn: no list kind '" + value + "' (core::Overrides checks TRIDENT_KNN_LISTS)");
}

SearchOptions with_overrides(SearchOptions options, const core::Overrides& overrides) {
  options.forced_lists = list_kind_named(overrides.knn_lists);
  options.slices = overrides.knn_slices;
  options.list_bound = overrides.knn_list_bound;
  return options;
}

}  // namespace trident::knn
