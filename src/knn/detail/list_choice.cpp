// The list choice (list_choice.hpp): register buckets, the longest list each screen takes
// on each back end, and the places of the starting bound.
#include "knn/detail/list_choice.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <optional>
#include <type_traits>

#include "knn/detail/buffer_kernels.hpp"

namespace trident::knn {

namespace {

// Register-list lengths K (the screen launch compiles one register screen for each:
// screen_launch.hpp; which of them the automatic choice uses: longest_register_list).
constexpr int kBuckets[] = {2, 4, 8, 12, 20, 32, 40, 48, 64, 80};

// The longest register list of screening precision T: on GPUs 48 in float32 and 20 in
// float64, longer lists going to the buffer screen, whose buffers in global memory beat
// the register lists beyond (float64 lists of 40 and more also spill registers). On host
// back ends 32: there the any-k screen is faster beyond. `long_lists` (forced register
// lists, or the test hook) lifts it to 80 in float32 and 64 in float64 everywhere.
// (docs/history/knn.md: the measurements.)
template <class T>
constexpr int longest_register_list(bool long_lists) {
  constexpr bool f64 = std::is_same<T, double>::value;
  return long_lists ? (f64 ? 64 : 80) : kSelectLanes == 1 ? 32 : f64 ? 20 : 48;
}

// The longest list that the automatic choice keeps in buffers (buffer_kernels.hpp) where
// no register bucket holds it: on GPUs 80 (k up to 64; beyond, the any-k screen is
// faster). None on host back ends: the any-k screen, one thread a list, is the same
// scheme without staging.
constexpr int longest_buffer_list() {
  return kSelectLanes == 1 ? 0 : 80;
}

// Whether the buffer screen can hold lists of kc: on GPUs in global memory (scratch
// level 1, one buffer for every thread the device runs at once) within 2 GiB.
template <class T>
bool buffers_fit(int kc) {
  using Screen = BufferScreen<T, kSelectLanes>;
  if (kSelectLanes == 1) return true;
  const auto threads = static_cast<std::size_t>(ExecSpace().concurrency());
  return threads * Screen::capacity_for(kc) * sizeof(Candidate<T>) <= (std::size_t(2) << 30);
}

// The shortest register bucket that holds `wanted` entries, if one up to `longest` does.
std::optional<int> register_bucket(int wanted, int longest) {
  for (int b : kBuckets) {
    if (b >= wanted && b <= longest) return b;
  }
  return std::nullopt;
}

// A pass that keeps `wanted` entries: in registers while a bucket up to
// `longest_registers` holds them, else max(wanted, least) but at most n_refs entries, in
// buffers up to `longest_buffers` entries where `fit`, else in the any-k screen; a forced
// kind first where it can hold them (registers beyond the longest bucket give way to the
// any-k screen, buffers that do not fit to the automatic choice).
ListChoice choose_lists(int wanted, int least, std::int64_t n_refs, std::optional<ListKind> forced,
                        int longest_registers, int longest_buffers, bool (*fit)(int)) {
  const int whole = static_cast<int>(std::min<std::int64_t>(std::max(wanted, least), n_refs));
  if (forced == ListKind::select) return {whole, ListKind::select};
  if (forced == ListKind::buffers && fit(whole)) return {whole, ListKind::buffers};
  if (const std::optional<int> bucket = register_bucket(wanted, longest_registers)) {
    return {*bucket, ListKind::registers};
  }
  if (forced != ListKind::registers && whole <= longest_buffers && fit(whole)) {
    return {whole, ListKind::buffers};
  }
  return {whole, ListKind::select};
}

}  // namespace

template <class T>
ListChoice lists_for(int wanted, int least, std::int64_t n_refs, const SearchOptions& options,
                     const SearchTestHooks& hooks) {
  const std::optional<ListKind> forced = options.forced_lists;
  const bool long_lists = hooks.long_register_lists || forced == ListKind::registers;
  return choose_lists(wanted, least, n_refs, forced, longest_register_list<T>(long_lists), longest_buffer_list(),
                      buffers_fit<T>);
}

template ListChoice lists_for<float>(int, int, std::int64_t, const SearchOptions&, const SearchTestHooks&);
template ListChoice lists_for<double>(int, int, std::int64_t, const SearchOptions&, const SearchTestHooks&);

// Lists of 20 and more (shorter ones insert too seldom to pay for the bound), from at
// most n_obs / 32 places and at least 4096: making a bound (a screen of the places, then
// the host's sort of their keys) costs a millisecond or two, which a search of fewer
// observations would not win back; and only when every reference or nearly is one (at
// most Kc / 4 apart in index order): sparser places sit too far from most observations
// for a bound that helps. options.list_bound on makes every reference a place, at any
// size; off, none.
std::int64_t bound_places(std::int64_t n_obs, std::int64_t n_refs, int kc, const SearchOptions& options) {
  if (options.list_bound != core::Switch::automatic) return options.list_bound == core::Switch::on ? n_refs : 0;
  const std::int64_t most = std::min(n_refs, n_obs / 32);
  if (kc < 20 || most < 4096) return 0;
  return (n_refs + most - 1) / most <= kc / 4 ? most : 0;
}

}  // namespace trident::knn
