#pragma once
// The slice pipeline of a device batch: how many slices a batch is cut into and where
// they start, the execution space instances their kernels run on, and their copies
// between host and device. On CUDA the copies of a pipelined batch run on queues of their
// own (transport::SideStream) ordered against the kernels by transport::QueueMark, so that slice c's
// rows travel while slice c + 1 is screened.
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "transport/side_stream.hpp"
#include "knn/detail/list_choice.hpp"
#include "knn/detail/screen_kernels.hpp"
#include "knn/detail/search_profile.hpp"

namespace trident::core {
class DeviceBuffers;  // core/device_buffers.hpp
}

namespace trident::knn {

// Whether the search runs on a CUDA device: there batches are pipelined by size and their
// copies overlap the kernels.
#if defined(KOKKOS_ENABLE_CUDA)
constexpr bool kOnCuda = std::is_same<ExecSpace, Kokkos::Cuda>::value;
#else
constexpr bool kOnCuda = false;
#endif

constexpr std::size_t kMaxSliceSpaces = 8;  // instances a batch's slices run on at most

// Slices of a batch of `n` observations whose screen runs `threads` threads: 1 unless
// `allowed`; `forced` (SearchOptions::slices) when it is set; on CUDA enough for each
// slice's screen to fill the device several times over; elsewhere 1, but slices of
// 16384 for observations ordered by place.
int slice_count(int n, std::int64_t threads, bool allowed, int forced, bool ordered_by_place);

// Where the slices of a batch of `n` rows start (and, last, n): `slices` equal ones, the
// first and the last of them cut into smaller pieces when there are several.
std::vector<int> slice_starts(int n, int slices);

// Where the kernels of each of `pieces` slices run: with register lists, instances of
// falling priority kept in `buffers`; else the default instance.
std::vector<ExecSpace> slice_spaces(core::DeviceBuffers& buffers, std::size_t pieces, ListChoice lists);

// The copies of one batch between host and device. With `overlap` on CUDA, uploads run on
// one side queue and downloads on another, each download after the kernels queued so far
// on its slice's instance; elsewhere, and without `overlap`, each copy completes before
// the call returns.
class SliceTransfers {
 public:
  explicit SliceTransfers(bool overlap);
  SliceTransfers(const SliceTransfers&) = delete;
  SliceTransfers& operator=(const SliceTransfers&) = delete;

  // Host to device; kernels launched on `space` after this call see the data.
  void upload(const ExecSpace& space, void* device, const void* host, std::size_t bytes);
  // Device to host once the kernels launched on `space` so far are done; complete after
  // finish().
  void download(const ExecSpace& space, void* host, const void* device, std::size_t bytes);
  // Waits for every copy; returns, for each download, when its data were ready and when
  // it had arrived (ms after the first upload; empty without overlap).
  std::vector<SearchProfile::SliceTimes> finish();

 private:
  struct Download {
    transport::QueueMark ready, done;
  };
  std::optional<transport::SideStream> up_, down_;  // (set only when overlapping)
  std::optional<transport::QueueMark> start_;       // the first upload's
  std::vector<transport::QueueMark> uploaded_;      // each upload's end, kept until finish()
  std::vector<Download> downloads_;
};

}  // namespace trident::knn
