#pragma once
// Which lists a pass keeps: how many entries, and in which screen (registers, buffers or
// the any-k screen; ListKind), for the first pass and for the widened passes after it;
// and how many places the first pass's starting bound (list_bound.hpp) comes from.
#include <algorithm>
#include <cstdint>

#include "knn/detail/search_options.hpp"
#include "knn/detail/search_test_hooks.hpp"

namespace trident::knn {

struct ListChoice {
  int kc = 0;  // entries kept per observation
  ListKind kind = ListKind::select;
};

// The lists of a pass in screening precision T (float or double) that keeps `wanted`
// entries: in registers while a register bucket holds them, else max(wanted, least) but
// at most n_refs entries, in buffers where they fit (and are not too long), else in the
// any-k screen. options.forced_lists comes first where it can hold them (forced register
// lists go up to the longest bucket compiled).
template <class T>
ListChoice lists_for(int wanted, int least, std::int64_t n_refs, const SearchOptions& options,
                     const SearchTestHooks& hooks);

// The lists of the first pass: k and a quarter more (at least one more), so that most
// observations prove their answer in it.
template <class T>
ListChoice first_pass_lists(std::int64_t n_refs, const SearchOptions& options, const SearchTestHooks& hooks) {
  return lists_for<T>(options.k + std::max(1, options.k / 4), 0, n_refs, options, hooks);
}

// The lists of a widened pass after a pass with `lists`: four times longer, at least 64
// off the registers, in float64.
inline ListChoice widened_lists(ListChoice lists, std::int64_t n_refs, const SearchOptions& options,
                                const SearchTestHooks& hooks) {
  return lists_for<double>(4 * lists.kc, 64, n_refs, options, hooks);
}

// Places for the first pass's starting bound of a search of n_obs observations over
// n_refs references with lists of kc (0: lists start empty).
std::int64_t bound_places(std::int64_t n_obs, std::int64_t n_refs, int kc, const SearchOptions& options);

}  // namespace trident::knn
