#include "diffusion/detail/frames.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "core/comm.hpp"
#include "core/device_memory.hpp"
#include "core/host_memory.hpp"
#include "core/log.hpp"
#include "diffusion/detail/start_file.hpp"
#include "io/h5_handle.hpp"

namespace trident::diffusion {

namespace {

constexpr int kBlockTag = 7302;

// Places a rows x columns block (row-major, on the device) at (y, x) of a field of width nx.
template <class T>
void place_block(const Kokkos::DefaultExecutionSpace& space, const T* block, std::int64_t y, std::int64_t x,
                 std::int64_t rows, std::int64_t columns, T* field, std::int64_t nx) {
  Kokkos::parallel_for(
      "trident::diffusion::place_block",
      Kokkos::MDRangePolicy<Kokkos::Rank<2>, Kokkos::IndexType<std::int64_t>>(space, {0, 0}, {rows, columns}),
      KOKKOS_LAMBDA(const std::int64_t j, const std::int64_t i) { field[(y + j) * nx + x + i] = block[j * columns + i]; });
}

std::string gib(double bytes) {
  char text[32];
  if (bytes >= 1024.0 * 1024.0 * 1024.0) std::snprintf(text, sizeof text, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  else std::snprintf(text, sizeof text, "%.2f MiB", bytes / (1024.0 * 1024.0));
  return text;
}

// The centres of n cells along one axis: origin + i * size.
std::vector<double> cell_centres(std::int64_t n, double origin, double size) {
  std::vector<double> centres(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) centres[static_cast<std::size_t>(i)] = origin + static_cast<double>(i) * size;
  return centres;
}

// /diffusion/x and /diffusion/y, and what each /diffusion dataset is for netCDF and CF
// readers: frames on (time, y, x), time in seconds (dt's unit), x and y in metres (dx's and
// dy's); u's unit is `field_units` ("" where the start file's dataset names none).
void describe_frames(io::OutputFile& file, const DiffusionSettings& s, const std::string& field_units) {
  file.write_array<double>("/diffusion/x", cell_centres(s.nx, s.origin[0], s.dx));
  file.write_array<double>("/diffusion/y", cell_centres(s.ny, s.origin[1], s.dy));
  file.describe("/diffusion/x", {"x"}, "x of the cell centres (origin[0] + i dx)", s.length_unit);
  file.describe_text("/diffusion/x", "axis", "X");
  file.describe("/diffusion/y", {"y"}, "y of the cell centres (origin[1] + j dy)", s.length_unit);
  file.describe_text("/diffusion/y", "axis", "Y");
  file.describe("/diffusion/time", {"time"}, "time of the frame (step dt)", s.time_unit, "time");
  file.describe_text("/diffusion/time", "axis", "T");
  file.describe("/diffusion/step", {"time"}, "step of the frame", "1");
  file.describe("/diffusion/field", {"time", "y", "x"}, "u, the diffused field", field_units);
  file.describe_text("/diffusion/field", "coordinates", "step");  // each frame's step beside its time
  if (s.laplacian) {
    // With dx != dy (diffusion.D) the frames keep the operator the step applied instead.
    file.describe("/diffusion/laplacian", {"time", "y", "x"},
                  s.c_field()       ? "A(u) = the sum over the 4 faces of c_ij (u - u_j), what a step subtracts"
                  : s.anisotropic() ? "A(u) = c_x (2 u - west - east) + c_y (2 u - south - north), what a step subtracts"
                                    : "L(u) = 4 u - the sum of its 4 neighbours",
                  field_units);
    file.describe_text("/diffusion/laplacian", "coordinates", "step");
  }
}

}  // namespace

bool frame_due(std::int64_t s, std::int64_t first, std::int64_t last, std::int64_t output_every) {
  return s == first || s == last || (output_every > 0 && s % output_every == 0);
}

std::vector<std::uint64_t> frame_chunk(std::uint64_t ny, std::uint64_t nx, std::uint64_t value_bytes) {
  const std::uint64_t row = nx * value_bytes;
  if (row > kFrameChunkBytes) return {1, 1, kFrameChunkBytes / value_bytes};
  return {1, std::min(ny, kFrameChunkBytes / row), nx};
}

template <class T>
FrameWriter<T>::FrameWriter(io::OutputFile& file, const DiffusionSettings& s, const Decomposition& d,
                            RunContext& context, transport::DeviceComm* device_comm, bool force_device_gather)
    : file_(file), settings_(s), d_(d), timers_(context.timers), fields_(s.laplacian ? 2 : 1),
      device_comm_(device_comm), force_device_gather_(force_device_gather) {
  const auto ny = static_cast<std::uint64_t>(s.ny), nx = static_cast<std::uint64_t>(s.nx);
  // One chunk per frame: a frame goes to the file in one write, and a reader takes one
  // frame in one read. Compression (shuffle + deflate) works chunk by chunk.
  const std::vector<std::uint64_t> chunk = frame_chunk(ny, nx, sizeof(T));
  file_.create_group("/diffusion");
  file_.create_dataset<T>("/diffusion/field", {0, ny, nx}, {0, ny, nx}, chunk, context.compression);
  if (s.laplacian)
    file_.create_dataset<T>("/diffusion/laplacian", {0, ny, nx}, {0, ny, nx}, chunk, context.compression);
  file_.create_dataset<std::int64_t>("/diffusion/step", {0}, {0}, {256});
  file_.create_dataset<double>("/diffusion/time", {0}, {0}, {256});
  file_.attribute("/diffusion", "nx", s.nx);
  file_.attribute("/diffusion", "ny", s.ny);
  file_.attribute("/diffusion", "steps", s.steps);
  file_.attribute("/diffusion", "c", s.c);
  if (s.c_field()) file_.attribute("/diffusion", "c_field", "file " + s.c_file + " dataset " + s.c_dataset);
  if (s.D > 0) {  // the physical units' diffusivity and the diffusion numbers it gives
    file_.attribute("/diffusion", "D", s.D);
    file_.attribute("/diffusion", "D_units", s.length_unit + "^2/" + s.time_unit);
    file_.attribute("/diffusion", "c_x", s.c_x());
    file_.attribute("/diffusion", "c_y", s.c_y());
  }
  file_.attribute("/diffusion", "dt", s.dt);
  // The grid's physical place (the centre of cell (0, 0) and the cell sizes), which the XDMF shows.
  file_.attribute("/diffusion", "dx", s.dx);
  file_.attribute("/diffusion", "dy", s.dy);
  file_.attribute("/diffusion", "origin", std::vector<double>{s.origin[0], s.origin[1]});
  file_.attribute("/diffusion", "precision", std::string(core::precision_name(s.precision)));
  file_.attribute("/diffusion", "start", std::string(start_kind_name(s.start.kind)));
  file_.attribute("/diffusion", "boundary", describe(s.boundary));
  file_.attribute("/diffusion", "source", s.source.describe());
  file_.attribute("/diffusion", "ranks_x", static_cast<std::int64_t>(d.dims()[0]));
  file_.attribute("/diffusion", "ranks_y", static_cast<std::int64_t>(d.dims()[1]));
  file_.attribute("/diffusion", "compression", static_cast<std::int64_t>(context.compression));
  // A start file's unit is u's, and L(u)'s (4u - the neighbours' sum has u's unit); the
  // generated starts are dimensionless.
  std::string units = "1";
  if (s.start.kind == StartField::Kind::file) {
    const MPI_Comm comm = file_.comm();
    units = mpi::broadcast(comm, mpi::rank(comm) == 0 ? start_file_units(s.start) : "", 0);
  }
  describe_frames(file_, s, units);
  path_ = choose_path(context);
}

template <class T>
FramePath FrameWriter<T>::choose_path(RunContext& context) {
  const MPI_Comm comm = file_.comm();
  const bool root = mpi::rank(comm) == 0;
  const double frame_bytes = static_cast<double>(fields_) * static_cast<double>(settings_.nx) *
                             static_cast<double>(settings_.ny) * sizeof(T);
  int path = static_cast<int>(FramePath::by_block);
  std::string why;
  if (root) {
    const std::int64_t measured = context.host_memory_bytes > 0 ? context.host_memory_bytes : host_memory_available();
    const double budget = 0.5 * static_cast<double>(measured);
    const int thread_level = mpi::thread_level();
    const std::string memory = " (host memory available: " + gib(static_cast<double>(measured)) + ")";
    if (file_.parallel()) {
      why = "each rank writes its block with collective MPI-IO (parallel HDF5) from the thread that does all "
            "MPI, before the stepping goes on";
    } else if (2 * frame_bytes <= budget && thread_level >= MPI_THREAD_FUNNELED) {
      path = static_cast<int>(FramePath::background);
      why = "rank 0 gathers each frame into one of 2 page-locked buffers of " + gib(frame_bytes) +
            "; a writer thread writes it while the stepping goes on" + memory;
    } else if (frame_bytes <= budget) {
      path = static_cast<int>(FramePath::whole_frame);
      why = "rank 0 gathers each frame into one page-locked buffer of " + gib(frame_bytes) +
            " and writes it before the stepping goes on (" +
            (thread_level < MPI_THREAD_FUNNELED ? std::string("MPI gave no MPI_THREAD_FUNNELED")
                                                : "2 buffers would take more than half of the host memory available") +
            ")" + memory;
    } else {
      why = "rank 0 writes each rank's block as it arrives (a whole frame, " + gib(frame_bytes) +
            ", would take more than half of the host memory available)" + memory;
    }
  }
  // Gathering on rank 0's device: only where that spares the copies through host memory
  // (or the test hook asks for it) and the device has room.
  const bool may_gather_on_device = path != static_cast<int>(FramePath::by_block) && mpi::size(comm) > 1 &&
                                    device_comm_ != nullptr &&
                                    (device_comm_->device_to_device() || force_device_gather_);
  int on_device = 0;
  if (root && may_gather_on_device) {
    on_device = device_gather_fits(frame_bytes);
    why += on_device ? "; the blocks are gathered on rank 0's device through " +
                           std::string(device_comm_->peer_exchanges()
                                           ? "peer memory"
                                           : core::transport_name(device_comm_->transport())) +
                           ", one copy to the host a frame"
                     : "; the blocks go through host memory (rank 0's device has no room for a frame)";
  }
  int decided[2] = {path, on_device};
  mpi::broadcast(comm, decided, 2);
  log::info(comm, "diffusion: frames: " + why);
  const auto chosen = static_cast<FramePath>(decided[0]);
  gather_on_device_ = decided[1] != 0;

  // Rank 0 learns every rank's block once; it places them in the frame as they arrive.
  const std::int64_t mine[4] = {d_.y().offset, d_.y().size, d_.x().offset, d_.x().size};
  if (chosen != FramePath::by_block) {
    if (root) blocks_.resize(4 * static_cast<std::size_t>(mpi::size(comm)));
    mpi::gather(comm, mine, 4, blocks_.data());
  }
  const bool own_block_in_place = root && chosen != FramePath::by_block && d_.x().size == settings_.nx;
  if (!own_block_in_place && !gather_on_device_)
    block_ = HostBuffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::frame_block"),
                        static_cast<std::size_t>(fields_ * d_.y().size * d_.x().size));
  if (root && chosen != FramePath::by_block) {
    const std::size_t frame_values = static_cast<std::size_t>(fields_ * settings_.ny * settings_.nx);
    frames_buffers_.resize(chosen == FramePath::background ? 2 : 1);
    for (HostBuffer& b : frames_buffers_)
      b = HostBuffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::frame"), frame_values);
    if (gather_on_device_) {
      // Where each other rank's block of a field lands: in place in the field when blocks
      // span the grid's width, else one after the other in incoming_.
      const bool whole_rows = d_.dims()[0] == 1;
      std::size_t at = 0;
      for (std::size_t r = 1; 4 * r < blocks_.size(); ++r) {
        const auto count = static_cast<std::size_t>(blocks_[4 * r + 1] * blocks_[4 * r + 3]);
        const auto in_place = static_cast<std::size_t>(blocks_[4 * r] * settings_.nx);
        device_receives_.push_back({static_cast<int>(r), whole_rows ? in_place : at, count, kBlockTag});
        at += count;
      }
      incoming_values_ = whole_rows ? 0 : at;
    } else {
      std::int64_t widest_narrow_block = 0;
      for (std::size_t r = 1; 4 * r < blocks_.size(); ++r)
        if (blocks_[4 * r + 3] != settings_.nx)
          widest_narrow_block = std::max(widest_narrow_block, blocks_[4 * r + 1] * blocks_[4 * r + 3]);
      receive_.resize(static_cast<std::size_t>(widest_narrow_block));
    }
  }
  if (gather_on_device_ && device_comm_->peer_exchanges()) open_window(device_comm_->mpi_comm());
  if (root && gather_on_device_ && window_ == nullptr) {
    device_frame_ = DeviceBuffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::device_frame"),
                                 static_cast<std::size_t>(fields_ * settings_.ny * settings_.nx));
    incoming_ = DeviceBuffer(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trident::diffusion::incoming_blocks"),
                             incoming_values_);
  }
  return chosen;
}

// Collective: where the halos go through peer memory, the frame is gathered through it too
// (transport::PeerWindow; NCCL would cost the job its set-up): rank 0's device_frame_ and
// incoming_ are one buffer the others map, and each rank learns where its block of the first
// field lands. Where no window opens, the gather stays with exchange().
template <class T>
void FrameWriter<T>::open_window(MPI_Comm comm) {
  const bool root = mpi::rank(comm) == 0;
  const auto frame_values = static_cast<std::size_t>(fields_ * settings_.ny * settings_.nx);
  const std::size_t incoming = incoming_values_;
  std::string why_not;
  window_ = transport::PeerWindow::open(comm, 0, (frame_values + incoming) * sizeof(T), why_not);
  if (window_ == nullptr) {
    log::detail(comm, "diffusion: frames: no gather through peer memory (" + why_not + ")");
    return;
  }
  std::vector<unsigned long long> offsets(static_cast<std::size_t>(mpi::size(comm)));
  if (root) {
    T* base = reinterpret_cast<T*>(window_->data());
    device_frame_ = DeviceBuffer(base, frame_values);
    incoming_ = DeviceBuffer(base + frame_values, incoming);
    for (std::size_t r = 1; r < offsets.size(); ++r)
      offsets[r] = device_receives_[r - 1].offset + (d_.dims()[0] == 1 ? 0 : frame_values);
  }
  unsigned long long mine = 0;
  mpi::scatter(comm, offsets.data(), 1, &mine);
  window_offset_ = mine;
}

// On rank 0: the frame, and with blocks narrower than the grid one field's incoming blocks,
// in at most half of the device's free memory.
template <class T>
bool FrameWriter<T>::device_gather_fits(double frame_bytes) const {
  const double need = frame_bytes + (d_.dims()[0] > 1 ? frame_bytes / fields_ : 0.0);
  const std::int64_t free = device_free_bytes();
  return free > 0 && need <= 0.5 * static_cast<double>(free);
}

template <class T>
void FrameWriter<T>::copy_out(const DeviceBlock& from, T* to, std::int64_t rows, std::int64_t columns) {
  Kokkos::deep_copy(HostBlock(to, static_cast<std::size_t>(rows), static_cast<std::size_t>(columns)), from);
}

// Rank 0 fills `frame` (field, then Laplacian, each ny x nx); the other ranks send.
template <class T>
void FrameWriter<T>::collect_frame(T* frame, const DeviceBlock& field, const DeviceBlock& laplacian) {
  const MPI_Comm comm = file_.comm();
  const std::int64_t nx = settings_.nx, frame_values = settings_.ny * nx;
  const std::int64_t rows = d_.y().size, columns = d_.x().size, block_values = rows * columns;
  const DeviceBlock* from[2] = {&field, &laplacian};
  if (mpi::rank(comm) != 0) {
    for (int f = 0; f < fields_; ++f) {  // one message (or 1 GiB pieces) for each field
      copy_out(*from[f], block_.data() + f * block_values, rows, columns);
      mpi::send_bytes(comm, block_.data() + f * block_values, static_cast<std::uint64_t>(block_values) * sizeof(T), 0,
                      kBlockTag);
    }
    return;
  }
  // places a rows x columns block at (y, x) of each field of the frame
  const auto place = [&](const T* block, std::int64_t y, std::int64_t x, std::int64_t r, std::int64_t c, int f) {
    for (std::int64_t j = 0; j < r; ++j)
      std::memcpy(frame + f * frame_values + (y + j) * nx + x, block + j * c, static_cast<std::size_t>(c) * sizeof(T));
  };
  for (int f = 0; f < fields_; ++f) {
    if (columns == nx) {
      copy_out(*from[f], frame + f * frame_values + d_.y().offset * nx, rows, columns);
    } else {
      copy_out(*from[f], block_.data(), rows, columns);
      place(block_.data(), d_.y().offset, d_.x().offset, rows, columns, f);
    }
  }
  for (std::size_t r = 1; 4 * r < blocks_.size(); ++r) {
    const std::int64_t y = blocks_[4 * r], ry = blocks_[4 * r + 1], x = blocks_[4 * r + 2], rx = blocks_[4 * r + 3];
    const int source = static_cast<int>(r);
    if (rx == nx) {  // full rows: straight into place, one message for each field
      for (int f = 0; f < fields_; ++f)
        mpi::receive_bytes(comm, frame + f * frame_values + y * nx, static_cast<std::uint64_t>(ry * rx) * sizeof(T),
                           source, kBlockTag);
    } else {
      for (int f = 0; f < fields_; ++f) {
        mpi::receive_bytes(comm, receive_.data(), static_cast<std::uint64_t>(ry * rx) * sizeof(T), source, kBlockTag);
        place(receive_.data(), y, x, ry, rx, f);
      }
    }
  }
}

// The same as collect_frame, through rank 0's device: each field's blocks travel to rank 0
// in one exchange (into place when blocks span the grid's width, else into incoming_ and
// placed by a kernel), and rank 0 copies the frame to `frame` once.
template <class T>
void FrameWriter<T>::collect_frame_on_device(T* frame, const DeviceBlock& field, const DeviceBlock& laplacian) {
  using Piece = transport::DeviceComm::Piece;
  const Kokkos::DefaultExecutionSpace space;
  const std::int64_t nx = settings_.nx, frame_values = settings_.ny * nx;
  const auto block_values = static_cast<std::size_t>(d_.y().size * d_.x().size);
  const bool whole_rows = d_.dims()[0] == 1;
  const DeviceBlock* from[2] = {&field, &laplacian};
  // Through the window, field f's blocks land at window_offset_ (+ the field's place when
  // they go into place); put_all returns once all have.
  const auto window_bytes = [&](int f) { return (window_offset_ + (whole_rows ? f * frame_values : 0)) * sizeof(T); };
  if (device_comm_->rank() != 0) {
    for (int f = 0; f < fields_; ++f) {
      if (window_ != nullptr) window_->put_all(space, from[f]->data(), block_values * sizeof(T), window_bytes(f));
      else device_comm_->exchange<T>(space, from[f]->data(), block_values, {Piece{0, 0, block_values, kBlockTag}},
                                     nullptr, 0, {});
    }
    space.fence();  // the caller may change the block once append returns
    return;
  }
  for (int f = 0; f < fields_; ++f) {
    T* field_start = device_frame_.data() + f * frame_values;
    T* into = whole_rows ? field_start : incoming_.data();
    if (window_ != nullptr) window_->put_all(space, nullptr, 0, 0);  // after the last field's placing
    else device_comm_->exchange<T>(space, nullptr, 0, {}, into,
                                   whole_rows ? static_cast<std::size_t>(frame_values) : incoming_.extent(0),
                                   device_receives_);
    place_block(space, from[f]->data(), d_.y().offset, d_.x().offset, d_.y().size, d_.x().size, field_start, nx);
    if (!whole_rows)
      for (std::size_t r = 1; 4 * r < blocks_.size(); ++r)
        place_block(space, incoming_.data() + device_receives_[r - 1].offset, blocks_[4 * r], blocks_[4 * r + 2],
                    blocks_[4 * r + 1], blocks_[4 * r + 3], field_start, nx);
  }
  Kokkos::deep_copy(space, Kokkos::View<T*, PinnedHostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                               frame, device_frame_.extent(0)),
                    device_frame_);
  space.fence();
}

// On rank 0, which holds the file: one write per dataset. Calls no MPI (the writer thread).
template <class T>
void FrameWriter<T>::write_frame_here(const T* frame, std::int64_t step, std::uint64_t index) {
  // A thread-safe HDF5 build keeps an error stack per thread: silence this one's too (the
  // failure reaches the user as one RunError, not HDF5's trace)
  io::silence_hdf5_errors();
  const auto ny = static_cast<std::uint64_t>(settings_.ny), nx = static_cast<std::uint64_t>(settings_.nx);
  file_.extend_and_write_here<T>("/diffusion/field", {index + 1, ny, nx}, {index, 0, 0}, {1, ny, nx}, frame);
  if (settings_.laplacian)
    file_.extend_and_write_here<T>("/diffusion/laplacian", {index + 1, ny, nx}, {index, 0, 0}, {1, ny, nx},
                                   frame + ny * nx);
  const double time = static_cast<double>(step) * settings_.dt;
  file_.extend_and_write_here<std::int64_t>("/diffusion/step", {index + 1}, {index}, {1}, &step);
  file_.extend_and_write_here<double>("/diffusion/time", {index + 1}, {index}, {1}, &time);
}

template <class T>
void FrameWriter<T>::append(std::int64_t step, const DeviceBlock& field, const DeviceBlock& laplacian) {
  if (path_ == FramePath::by_block) {
    append_by_block(step, field, laplacian);
    ++frames_;
    return;
  }
  const auto index = static_cast<std::uint64_t>(frames_);
  const bool root = mpi::rank(file_.comm()) == 0;
  // background: this frame fills the buffer that the write before last used (waited for)
  T* frame = root ? frames_buffers_[index % frames_buffers_.size()].data() : nullptr;
  if (gather_on_device_)
    collect_frame_on_device(frame, field, laplacian);
  else
    collect_frame(frame, field, laplacian);
  if (path_ == FramePath::background) {
    file_.rethrow_agreed(writer_.wait());  // the previous frame's write
    if (root) writer_.start([this, frame, step, index] { write_frame_here(frame, step, index); });
  } else {
    std::exception_ptr failure;
    try {
      if (root) write_frame_here(frame, step, index);
    } catch (...) {
      failure = std::current_exception();
    }
    file_.rethrow_agreed(failure);
  }
  ++frames_;
}

template <class T>
void FrameWriter<T>::append_by_block(std::int64_t step, const DeviceBlock& field, const DeviceBlock& laplacian) {
  const auto n = static_cast<std::uint64_t>(frames_);
  const auto ny = static_cast<std::uint64_t>(settings_.ny), nx = static_cast<std::uint64_t>(settings_.nx);
  const std::int64_t rows = d_.y().size, columns = d_.x().size;
  const std::vector<std::uint64_t> offset{n, static_cast<std::uint64_t>(d_.y().offset),
                                          static_cast<std::uint64_t>(d_.x().offset)};
  const std::vector<std::uint64_t> count{1, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(columns)};
  copy_out(field, block_.data(), rows, columns);
  file_.extend("/diffusion/field", {n + 1, ny, nx});
  file_.write_slab<T>("/diffusion/field", offset, count, block_.data());
  if (settings_.laplacian) {
    T* lap = block_.data() + rows * columns;
    copy_out(laplacian, lap, rows, columns);
    file_.extend("/diffusion/laplacian", {n + 1, ny, nx});
    file_.write_slab<T>("/diffusion/laplacian", offset, count, lap);
  }
  // Step and time: one value each, written by rank 0.
  const std::uint64_t one = mpi::rank(file_.comm()) == 0 ? 1 : 0;
  const double time = static_cast<double>(step) * settings_.dt;
  file_.extend("/diffusion/step", {n + 1});
  file_.write_slab<std::int64_t>("/diffusion/step", {n}, {one}, &step);
  file_.extend("/diffusion/time", {n + 1});
  file_.write_slab<double>("/diffusion/time", {n}, {one}, &time);
}

template <class T>
void FrameWriter<T>::finish() {
  if (path_ != FramePath::background) return;
  const std::exception_ptr failure = writer_.wait();
  // the writer thread's time runs beside the stepping: a part, not a step of the run
  timers_.add("diffusion.output_behind", writer_.seconds() - write_seconds_added_);
  write_seconds_added_ = writer_.seconds();
  file_.rethrow_agreed(failure);
}

template class FrameWriter<float>;
template class FrameWriter<double>;

}  // namespace trident::diffusion
