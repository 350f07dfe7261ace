#pragma once
// The diffusion time series in the output file: /diffusion/field (frames x ny x nx),
// /diffusion/laplacian (when asked), /diffusion/step and /diffusion/time, one frame
// appended at a time so that a run stopped early keeps the frames it wrote.
//
// How a frame reaches the file (chosen once, the same on every rank, and logged):
// - background: rank 0 gathers the whole frame into one of two page-locked host buffers
//   and a writer thread writes it (one HDF5 write per dataset) while the stepping goes
//   on; the next frame fills the other buffer. Needs a gathered file (serial HDF5 or
//   --gathered-io: the writer calls no MPI), MPI_THREAD_FUNNELED, and host memory for two
//   frames (at most half of what is available).
// - whole_frame: the same with one buffer, written before the stepping goes on (memory
//   for one frame only).
// - by_block: each rank's block from its page-locked buffer through OutputFile::write_slab
//   (parallel HDF5: one collective MPI-IO write per dataset, from the thread that does all
//   MPI; or gathered block by block when rank 0 has no room for a frame).
// For the two whole-frame paths on several ranks, the frame is gathered on rank 0's device
// when the halos' communicator moves device memory directly (NCCL, a GPU-aware MPI) and
// rank 0's device has room: the blocks travel GPU to GPU and rank 0 copies the whole frame
// to the host once, as one rank does. Otherwise every rank copies its block to the host
// and sends it by MPI (through host memory, which held the output below the disk's rate:
// docs/history/diffusion.md). The buffers are allocated once. Every frame's values are the
// device's bits, so all paths write the same file contents.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "transport/device_comm.hpp"
#include "transport/peer_window.hpp"
#include "transport/pinned_host_space.hpp"
#include "core/run_context.hpp"
#include "diffusion/settings.hpp"
#include "diffusion/detail/decomposition.hpp"
#include "io/background_writer.hpp"
#include "io/output_file.hpp"

namespace trident::diffusion {

// Whether step `s` of a run over [first, last] gets a frame: its first and last steps and
// every multiple of output_every (0: first and last only).
bool frame_due(std::int64_t s, std::int64_t first, std::int64_t last, std::int64_t output_every);

enum class FramePath { background, whole_frame, by_block };

// Chunk of the frame datasets: one frame (1, ny, nx) when it holds at most kFrameChunkBytes,
// else whole rows (or pieces of one row) under that size (HDF5 caps chunks at 4 GiB).
constexpr std::uint64_t kFrameChunkBytes = 1ull << 30;
std::vector<std::uint64_t> frame_chunk(std::uint64_t ny, std::uint64_t nx, std::uint64_t value_bytes);

template <class T>
class FrameWriter {
 public:
  using DeviceBlock = Kokkos::View<T**, Kokkos::LayoutRight>;

  // `device_comm`: the halos' communicator over d.cart() (null on one rank), through which
  // frames may be gathered on rank 0's device. `force_device_gather` (tests only; the study
  // leaves it off): gather on the device whenever there are several ranks and a whole-frame
  // path, also where the communicator goes through host memory (the CPU build), so that CI
  // runs that path. Collective.
  FrameWriter(io::OutputFile& file, const DiffusionSettings& settings, const Decomposition& d,
              RunContext& context, transport::DeviceComm* device_comm = nullptr, bool force_device_gather = false);
  // Waits for a write in flight; its failure is not reported (call finish() for that).
  ~FrameWriter() = default;
  FrameWriter(const FrameWriter&) = delete;
  FrameWriter& operator=(const FrameWriter&) = delete;

  // Appends one frame: this rank's interior blocks of u and (if kept) L(u), on the device.
  // Collective. When it returns the device views may change: their values are copied out.
  // A failed write of an earlier frame throws CollectiveError on every rank.
  void append(std::int64_t step, const DeviceBlock& field, const DeviceBlock& laplacian);
  // Waits until every frame appended is in the file; a failure throws CollectiveError on
  // every rank. Collective. Call it before anything else touches HDF5 (a checkpoint).
  void finish();
  std::int64_t frames() const { return frames_; }
  FramePath path() const { return path_; }
  bool gathers_on_device() const { return gather_on_device_; }
  bool gathers_through_peer_memory() const { return window_ != nullptr; }

 private:
  using HostBuffer = Kokkos::View<T*, PinnedHostSpace>;
  using HostBlock = Kokkos::View<T**, Kokkos::LayoutRight, PinnedHostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  using DeviceBuffer = Kokkos::View<T*>;

  FramePath choose_path(RunContext& context);
  bool device_gather_fits(double frame_bytes) const;
  void open_window(MPI_Comm comm);
  void copy_out(const DeviceBlock& from, T* to, std::int64_t rows, std::int64_t columns);
  void collect_frame(T* frame, const DeviceBlock& field, const DeviceBlock& laplacian);
  void collect_frame_on_device(T* frame, const DeviceBlock& field, const DeviceBlock& laplacian);
  void write_frame_here(const T* frame, std::int64_t step, std::uint64_t index);
  void append_by_block(std::int64_t step, const DeviceBlock& field, const DeviceBlock& laplacian);

  io::OutputFile& file_;
  const DiffusionSettings& settings_;
  const Decomposition& d_;
  Timers& timers_;
  int fields_;  // 1, or 2 with the Laplacian
  FramePath path_;
  std::vector<std::int64_t> blocks_;  // on rank 0: y offset, rows, x offset, columns of each rank
  HostBuffer block_;                  // this rank's blocks (field, then Laplacian)
  std::vector<HostBuffer> frames_buffers_;  // rank 0, whole-frame paths: 1 or 2 frames
  std::vector<T> receive_;                  // rank 0: a narrower block received before placing
  transport::DeviceComm* device_comm_;
  bool force_device_gather_;
  bool gather_on_device_ = false;
  DeviceBuffer device_frame_;  // rank 0, gathered on the device: the frame (field, then Laplacian)
  DeviceBuffer incoming_;      // rank 0, blocks narrower than the grid: one field's blocks before placing
  std::size_t incoming_values_ = 0;
  std::vector<transport::DeviceComm::Piece> device_receives_;  // rank 0: each other rank's block of a field
  // Where halos go through peer memory (no NCCL): rank 0's device_frame_ and incoming_ in one
  // buffer the other ranks map, and where each rank's block of the first field lands in it.
  std::unique_ptr<transport::PeerWindow> window_;
  std::size_t window_offset_ = 0;
  std::int64_t frames_ = 0;
  double write_seconds_added_ = 0;
  io::BackgroundWriter writer_;  // last: joined before the buffers go
};

}  // namespace trident::diffusion
