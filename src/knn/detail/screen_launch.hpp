#pragma once
// The screen launches: for the rows of a slice and a tile of references, which screen
// kernel runs (register lists: screen_kernels.hpp, buffers: buffer_kernels.hpp, any-k:
// select_kernels.hpp) with how many threads a team, how many teams, how many reference
// segments and how much team scratch memory; and the threads and segments the callers
// size their slices and lists by.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "knn/detail/buffer_kernels.hpp"
#include "knn/detail/list_choice.hpp"
#include "knn/detail/screen_kernels.hpp"
#include "knn/detail/select_kernels.hpp"

namespace trident::knn {

// References a team stages in scratch memory at a time: 16 KiB.
template <class T>
constexpr std::size_t scratch_points() {
  return std::is_same<T, float>::value ? 1024 : 512;
}

// Teams of 128 an SM that the register screen of lists of K is compiled for (0: as many
// as its registers allow). Float32 lists of 32 to 64 held to one team more than their
// registers allow (a few dozen bytes spilled) screened faster; lists of 20 and less fit
// 5 or 6 teams already; float64 lists bounded the same way screened slower, their hot
// loop waiting on float64 arithmetic (docs/history/knn.md).
template <class T, int K>
constexpr int register_screen_blocks() {
  if (!std::is_same<T, float>::value) return 0;
  return K == 32 ? 5 : K == 40 || K == 48 ? 4 : K == 64 ? 3 : 0;
}

// The team scratch memory (level 0, shared memory on GPUs) a team may have.
inline std::size_t team_scratch_limit() {
  return static_cast<std::size_t>(Kokkos::TeamPolicy<ExecSpace>(1, Kokkos::AUTO).scratch_size_max(0));
}

// Launches a team screen: `obs_per_thread` observations per thread and `segments` teams
// per block of observations (one per reference segment), with `scratch(team_size)` bytes
// of team scratch memory. On GPUs teams of 128 threads, or fewer where their scratch would
// not fit (not Kokkos' team_size_max, which answers 1 for kernels of 100 and more
// registers a thread: one busy lane a warp). Elsewhere the largest team the back end
// allows, capped at 128 (1 on Serial). MinBlocks > 0 compiles the kernel for that many
// teams of 128 an SM (Kokkos::LaunchBounds: a register cap).
template <int MinBlocks = 0, class Functor, class ScratchBytes>
void launch_team(const ExecSpace& space, const std::string& label, Functor f, int n_obs, int obs_per_thread,
                 int segments, ScratchBytes scratch) {
  using Policy = std::conditional_t<MinBlocks == 0, Kokkos::TeamPolicy<ExecSpace>,
                                    Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<128, MinBlocks>>>;
  int team = 1;
  if (kSelectLanes > 1) {
    const std::size_t level0 = team_scratch_limit();
    team = 128;
    while (team > 32 && scratch(team) + 256 > level0) team /= 2;
  } else {
    Policy probe(1, Kokkos::AUTO);  // (the same policy: a probe of another would compile another kernel)
    probe.set_scratch_size(0, Kokkos::PerTeam(scratch(128)));
    team = std::max(1, std::min(128, probe.team_size_max(f, Kokkos::ParallelForTag())));
  }
  const int per_team = team * obs_per_thread;
  const int league = (n_obs + per_team - 1) / per_team * segments;
  Policy policy(space, league, team);
  policy.set_scratch_size(0, Kokkos::PerTeam(scratch(team) + 256));  // 256: alignment of the parts
  Kokkos::parallel_for(label, policy, f);
}

// Team scratch of the threshold screens: `staged` bytes of references in shared memory,
// and `buffers` bytes of candidate buffers beside them (level 0) or in global memory
// (level 1); 256 bytes each for the alignment of the parts.
inline void set_screen_scratch(Kokkos::TeamPolicy<ExecSpace>& policy, int level, std::size_t staged,
                               std::size_t buffers) {
  if (level == 0) {
    policy.set_scratch_size(0, Kokkos::PerTeam(staged + buffers + 256));
  } else {
    policy.set_scratch_size(0, Kokkos::PerTeam(staged + 256));
    policy.set_scratch_size(1, Kokkos::PerTeam(buffers + 256));
  }
}

// Observations per thread of the register screen for lists of kc.
inline int observations_per_thread(int kc) { return kc <= 4 ? 4 : kc <= 12 ? 2 : 1; }

// Observations per lane group of the any-k screen: on a GPU 4 while their candidate
// buffers take at most 12 KiB, else 1 (large k: the buffers would crowd shared memory,
// and compaction, not the chords, is then most of the work); 1 on host backends.
template <class T>
int select_group_observations(int kc) {
  constexpr int V = kSelectLanes;
  if (V == 1) return 1;
  const std::size_t per_list = ScratchCandidates<T>::shmem_size(SelectScreen<T, V, 1>::capacity_for(kc));
  return 4 * per_list <= (12u << 10) ? 4 : 1;
}

// Threads of the screen of n observations: the register screen runs
// observations_per_thread(kc) a thread, the buffer screen one, the any-k screen a lane
// group of kSelectLanes threads per select_group_observations(kc) observations.
template <class T>
std::int64_t screen_threads(int n, ListChoice lists) {
  const int kc = lists.kc;
  if (lists.kind == ListKind::registers) {
    const int per_thread = observations_per_thread(kc);
    return (static_cast<std::int64_t>(n) + per_thread - 1) / per_thread;
  }
  if (lists.kind == ListKind::buffers) return n;
  const int per_group = select_group_observations<T>(kc);
  return (static_cast<std::int64_t>(n) + per_group - 1) / per_group * kSelectLanes;
}

// Segments for a launch of `n` observations, `per_thread` to a thread, over a tile of
// `refs` references: enough (thread, segment) pairs for twice the device's concurrency,
// segments of at least 512 references, at most `limit`; `forced` (a test hook) when set.
inline int segment_count(int n, int per_thread, std::int64_t refs, int limit, int forced) {
  if (forced > 0) return static_cast<int>(std::min<std::int64_t>({forced, refs, limit}));
  const std::int64_t threads = std::max<std::int64_t>(1, (n + per_thread - 1) / per_thread);
  const std::int64_t want = 2 * static_cast<std::int64_t>(ExecSpace().concurrency()) / threads;
  return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>({want, refs / 512, limit})));
}

// The most segments a batch of nb rows over tiles of `tile` references uses: register
// lists get that many columns each.
inline int max_segments(int nb, std::int64_t tile, int forced) {
  return forced > 0 ? forced : std::max(1, std::min(64, segment_count(nb, 4, tile, 64, forced)));
}

// The screen of one tile on one execution space instance.
template <class T>
class ScreenLaunch {
 public:
  // `forced_segments`: SearchTestHooks::segments (0: by size).
  ScreenLaunch(const ExecSpace& space, int forced_segments) : space_(space), forced_segments_(forced_segments) {}

  // Screens references [offset, offset + m) (tile-relative m, global offset) into the
  // lists of rows [first_obs, first_obs + n); returns the number of reference segments it
  // used (their lists wait in the extra columns of `best` for MergeSegments).
  int run(const ScreenFrame<T>& frame, const ListValues<T>& best, const ListIndices& best_index, int first_obs, int n,
          int offset, int m, ListChoice lists) const {
    const int kc = lists.kc;
    const int stage = static_cast<int>(scratch_points<T>());
    if (lists.kind == ListKind::select) {
      select(frame, best, best_index, first_obs, n, offset, m, stage, kc);
      return 1;
    }
    if (lists.kind == ListKind::buffers) {
      buffers(frame, best, best_index, first_obs, n, offset, m, kc);
      return 1;
    }
    const int limit = static_cast<int>(best.extent(1)) / kc;
    // (list length K, observations per thread P, buffer interval F)
    switch (kc) {
      case 2: return registers<2, 4, 0>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      case 4: return registers<4, 4, 0>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      case 8: return registers<8, 2, 8>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      case 12: return registers<12, 2, 8>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      case 20: return registers<20, 1, 16>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      case 32: return registers<32, 1, 16>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      case 40: return registers<40, 1, 16>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      case 48: return registers<48, 1, 16>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      case 64: return registers<64, 1, 16>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      case 80: return registers<80, 1, 16>(frame, best, best_index, first_obs, n, offset, m, stage, limit);
      default: throw RunError("knn: no register screen for lists of " + std::to_string(kc));
    }
  }

 private:
  // The any-k screen, select_group_observations(kc) observations to a lane group.
  void select(const ScreenFrame<T>& frame, const ListValues<T>& best, const ListIndices& best_index, int first_obs,
              int n, int offset, int m, int stage, int kc) const {
    if constexpr (kSelectLanes > 1) {  // (host backends: no instance with 4)
      if (select_group_observations<T>(kc) == 4) {
        select_with<4>(frame, best, best_index, first_obs, n, offset, m, stage, kc);
        return;
      }
    }
    select_with<1>(frame, best, best_index, first_obs, n, offset, m, stage, kc);
  }

  // Lane groups of kSelectLanes with M observations each; on a GPU as many groups per team
  // (at most 8) as keep the team's shared memory within 80 KiB (several teams per SM); when
  // fewer than 4 would fit, the buffers go to scratch level 1 (global memory, cached) and
  // teams have 8 groups, so that a staged block of references serves 8 M observations.
  template <int M>
  void select_with(const ScreenFrame<T>& frame, const ListValues<T>& best, const ListIndices& best_index,
                   int first_obs, int n, int offset, int m, int stage, int kc) const {
    constexpr int V = kSelectLanes;
    using Screen = SelectScreen<T, V, M>;
    const int capacity = Screen::capacity_for(kc);
    const std::size_t per_group = ScratchCandidates<T>::shmem_size(static_cast<std::size_t>(M) * capacity);
    const std::size_t staged = ScratchPoints<T>::shmem_size(stage);
    const std::size_t level0 = team_scratch_limit();
    int groups = 1, level = staged + per_group + 512 <= level0 ? 0 : 1;
    if (V > 1) {
      const std::size_t budget = std::min<std::size_t>(level0, 80u << 10);
      const std::size_t fit = budget > staged + 512 ? (budget - staged - 512) / per_group : 0;
      groups = static_cast<int>(std::min<std::size_t>(8, fit));
      level = groups < 4 ? 1 : 0;
      if (level == 1) groups = 8;
    }
    Screen f{frame, best, best_index, n, m, offset, stage, kc, capacity, first_obs, level};
    const int per_team = groups * M;
    Kokkos::TeamPolicy<ExecSpace> policy(space_, (n + per_team - 1) / per_team, groups * V);
    set_screen_scratch(policy, level, staged, groups * per_group);
    Kokkos::parallel_for("trident::knn::screen_select", policy, f);
  }

  // The buffer screen: a thread per observation. On GPUs its buffers go to global memory
  // (scratch level 1, cached in L1) in teams of 128: shared memory would have held the
  // buffers of small teams only, few warps an SM, and screened slower at every list
  // length measured (docs/history/knn.md).
  static constexpr int kBufferStage = 256;  // staged references
  struct BufferPlacement {
    int team = 1, level = 0;
  };
  static BufferPlacement buffer_placement() {
    return kSelectLanes == 1 ? BufferPlacement{1, 0} : BufferPlacement{128, 1};
  }
  void buffers(const ScreenFrame<T>& frame, const ListValues<T>& best, const ListIndices& best_index, int first_obs,
               int n, int offset, int m, int kc) const {
    using Screen = BufferScreen<T, kSelectLanes>;
    const int capacity = Screen::capacity_for(kc);
    const BufferPlacement place = buffer_placement();
    Screen f{frame, best, best_index, n, m, offset, kBufferStage, kc, capacity, first_obs, place.level};
    Kokkos::TeamPolicy<ExecSpace> policy(space_, (n + place.team - 1) / place.team, place.team);
    set_screen_scratch(policy, place.level, ScratchPoints<T>::shmem_size(kBufferStage),
                       ScratchCandidates<T>::shmem_size(static_cast<std::size_t>(place.team) * capacity));
    Kokkos::parallel_for("trident::knn::screen_buffers", policy, f);
  }

  template <int K, int P, int F>
  int registers(const ScreenFrame<T>& frame, const ListValues<T>& best, const ListIndices& best_index, int first_obs,
                int n, int offset, int m, int stage, int limit) const {
    using Screen = RegisterScreen<T, K, P, F>;
    const int segments = segment_count(n, P, m, limit, forced_segments_);
    Screen f{frame, best, best_index, n, m, offset, stage, segments, first_obs};
    launch_team<register_screen_blocks<T, K>()>(space_, "trident::knn::screen_registers_k" + std::to_string(K), f, n, P,
                                                 segments,
                                                 [stage](int team) { return Screen::scratch_bytes(team, stage); });
    return segments;
  }

  ExecSpace space_;
  int forced_segments_;
};

}  // namespace trident::knn
