// The frame output paths (background thread with two buffers, one whole-frame buffer,
// block by block; gathered through host memory or on rank 0's device; gathered and
// parallel HDF5; compressed or not) write every frame's bits
// as the device holds them, on any rank count and uneven blocks. The values are bit
// patterns of every kind (NaNs with payloads, infinities, subnormals, -0), so any
// conversion, misplaced block or stale buffer shows.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstring>
#include <tuple>

#include "core/comm.hpp"
#include "transport/device_comm.hpp"
#include "core/error.hpp"
#include "core/run_context.hpp"
#include "diffusion/detail/decomposition.hpp"
#include "diffusion/detail/frames.hpp"
#include "io/h5_handle.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "support/test_support.hpp"

namespace trident {
namespace {

using diffusion::FramePath;

// The bits of cell (y, x) of dataset `field` (0 u, 1 L) in frame `frame`.
std::uint32_t pattern(int frame, int field, std::int64_t y, std::int64_t x) {
  std::uint64_t h = static_cast<std::uint64_t>(frame) * 0x9E3779B97F4A7C15ull ^
                    static_cast<std::uint64_t>(field + 1) * 0xBF58476D1CE4E5B9ull ^
                    static_cast<std::uint64_t>(y * 1000003 + x) * 0x94D049BB133111EBull;
  h ^= h >> 31;
  h *= 0xD6E8FEB86659FD39ull;
  h ^= h >> 29;
  return static_cast<std::uint32_t>(h);
}

std::vector<std::uint32_t> read_bits(const std::string& path, const std::string& dataset) {
  io::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  io::Handle d(H5Dopen2(file.get(), dataset.c_str(), H5P_DEFAULT));
  io::Handle space(H5Dget_space(d.get()));
  const auto n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get()));
  std::vector<std::uint32_t> bits(n);
  // read as the stored float32, no conversion: the bits as written
  EXPECT_GE(H5Dread(d.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, bits.data()), 0);
  return bits;
}

int filters_of(const std::string& path, const std::string& dataset) {
  io::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  io::Handle d(H5Dopen2(file.get(), dataset.c_str(), H5P_DEFAULT));
  io::Handle dcpl(H5Dget_create_plist(d.get()));
  return H5Pget_nfilters(dcpl.get());
}

struct Case {
  const char* name;
  io::Mode mode;
  double memory_frames;  // host memory given to the writer, in frames; 0: measured
  int compression;
  FramePath expected;    // with a plain file (gathered, or one rank); a parallel file goes by block
  bool rows = false;     // blocks of whole rows (ranks {1, n}): received straight into place
  bool on_device = false;  // gathered on rank 0's device, forced (chosen anyway where NCCL joins the GPUs)
  bool peers = false;      // the halos' exchanges through peer memory: the gather too, where GPUs map it
};

class MpiFramePaths : public testing::TestWithParam<Case> {};

TEST_P(MpiFramePaths, EveryFrameHoldsTheDevicesBits) {
  const Case c = GetParam();
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, std::string("frames_") + c.name);
  diffusion::DiffusionSettings s;
  s.nx = 37;  // uneven blocks on 2, 3 and 4 ranks
  s.ny = 29;
  s.laplacian = true;
  s.dt = 0.5;
  if (c.rows) s.ranks = {1, mpi::size(comm)};
  const diffusion::Decomposition d(comm, s.nx, s.ny, s.ranks);
  const std::int64_t rows = d.y().size, columns = d.x().size;
  Timers timers;
  static const DeviceBinding binding{};
  RunContext context{comm, timers, binding, "", 0.0, c.compression};
  context.host_memory_bytes = static_cast<std::int64_t>(c.memory_frames * 2 * s.nx * s.ny * sizeof(float));
  const std::string path = folder + "/frames.h5";
  const std::vector<std::int64_t> steps{0, 7, 8, 30};
  {
    // NCCL where the ranks drive GPUs of their own (the device gather then needs no forcing)
    transport::DeviceComm device_comm(d.cart(), core::choose_transport(d.cart(), test::this_rank_binding()));
    if (c.peers) device_comm.connect_peer_exchanges(4096);
    io::OutputFile output(comm, path, true, c.mode);
    diffusion::FrameWriter<float> frames(output, s, d, context, &device_comm, /*force_device_gather=*/c.on_device);
    EXPECT_EQ(frames.path(), output.parallel() ? FramePath::by_block : c.expected);
    const bool whole_frame = !output.parallel() && c.expected != FramePath::by_block;
    EXPECT_EQ(frames.gathers_on_device(),
              (c.on_device || device_comm.device_to_device()) && whole_frame && mpi::size(comm) > 1);
    // Where the exchanges go through peer memory, so does a gather on the device.
    EXPECT_EQ(frames.gathers_through_peer_memory(), frames.gathers_on_device() && device_comm.peer_exchanges());
    Kokkos::View<float**, Kokkos::LayoutRight> u("u", rows, columns), l("l", rows, columns);
    auto uh = Kokkos::create_mirror_view(u), lh = Kokkos::create_mirror_view(l);
    for (int f = 0; f < static_cast<int>(steps.size()); ++f) {
      for (std::int64_t j = 0; j < rows; ++j)
        for (std::int64_t i = 0; i < columns; ++i) {
          const std::uint32_t a = pattern(f, 0, d.y().offset + j, d.x().offset + i);
          const std::uint32_t b = pattern(f, 1, d.y().offset + j, d.x().offset + i);
          std::memcpy(&uh(j, i), &a, 4);
          std::memcpy(&lh(j, i), &b, 4);
        }
      Kokkos::deep_copy(u, uh);
      Kokkos::deep_copy(l, lh);
      frames.append(steps[static_cast<std::size_t>(f)], u, l);
    }
    frames.finish();
    EXPECT_EQ(frames.frames(), 4);
    output.commit();
  }
  if (mpi::rank(comm) == 0) {
    const auto u = read_bits(path, "/diffusion/field"), l = read_bits(path, "/diffusion/laplacian");
    ASSERT_EQ(u.size(), steps.size() * static_cast<std::size_t>(s.nx * s.ny));
    ASSERT_EQ(l.size(), u.size());
    std::size_t wrong = 0;
    for (int f = 0; f < 4; ++f)
      for (std::int64_t y = 0; y < s.ny; ++y)
        for (std::int64_t x = 0; x < s.nx; ++x) {
          const std::size_t k = static_cast<std::size_t>((f * s.ny + y) * s.nx + x);
          wrong += u[k] != pattern(f, 0, y, x);
          wrong += l[k] != pattern(f, 1, y, x);
        }
    EXPECT_EQ(wrong, 0u);
    const io::InputFile in(path, "output");
    EXPECT_EQ(in.read<std::int64_t>("/diffusion/step"), steps);
    EXPECT_EQ(in.read<double>("/diffusion/time"), (std::vector<double>{0, 3.5, 4, 15}));
    EXPECT_EQ(in.integer_attribute("/diffusion", "compression"), c.compression);
    // compressed: shuffle and deflate; else no filter
    EXPECT_EQ(filters_of(path, "/diffusion/field"), c.compression > 0 ? 2 : 0);
    EXPECT_EQ(in.dims("/diffusion/field"), (std::vector<std::uint64_t>{4, 29, 37}));
  }
  MPI_Barrier(comm);
}

INSTANTIATE_TEST_SUITE_P(
    Paths, MpiFramePaths,
    testing::Values(Case{"background", io::Mode::gathered, 0, 0, FramePath::background},
                    Case{"background_rows", io::Mode::gathered, 0, 0, FramePath::background, true},
                    Case{"background_on_device", io::Mode::gathered, 0, 0, FramePath::background, false, true},
                    Case{"background_rows_on_device", io::Mode::gathered, 0, 0, FramePath::background, true, true},
                    Case{"whole_frame_on_device", io::Mode::gathered, 3, 0, FramePath::whole_frame, false, true},
                    Case{"by_block_not_on_device", io::Mode::gathered, 1, 0, FramePath::by_block, false, true},
                    Case{"automatic_on_device", io::Mode::automatic, 0, 0, FramePath::background, false, true},
                    Case{"background_peers", io::Mode::gathered, 0, 0, FramePath::background, false, true, true},
                    Case{"whole_frame_rows_peers", io::Mode::gathered, 3, 0, FramePath::whole_frame, true, true, true},
                    Case{"whole_frame", io::Mode::gathered, 3, 0, FramePath::whole_frame},
                    Case{"whole_frame_rows", io::Mode::gathered, 3, 0, FramePath::whole_frame, true},
                    Case{"by_block_gathered", io::Mode::gathered, 1, 0, FramePath::by_block},
                    Case{"parallel", io::Mode::automatic, 0, 0, FramePath::background},
                    Case{"background_compressed", io::Mode::gathered, 0, 4, FramePath::background},
                    Case{"by_block_compressed", io::Mode::gathered, 1, 6, FramePath::by_block},
                    Case{"parallel_compressed", io::Mode::automatic, 0, 1, FramePath::background}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(FrameChunks, OneFramePerChunkUpToAGibibyte) {
  EXPECT_EQ(diffusion::frame_chunk(8192, 8192, 4), (std::vector<std::uint64_t>{1, 8192, 8192}));
  EXPECT_EQ(diffusion::frame_chunk(65536, 65536, 8), (std::vector<std::uint64_t>{1, 2048, 65536}));
  EXPECT_EQ(diffusion::frame_chunk(3, 1ull << 28, 8), (std::vector<std::uint64_t>{1, 1, 1ull << 27}));
}

}  // namespace
}  // namespace trident
