// Deep halos, overlap and the transports: every rank count, block layout, halo width and
// transport gives the one-rank run's bits, through restarts in the middle of a w-step
// block and non-finite stops; the stencil's edge strips cover exactly what the whole-box
// kernel computes.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <random>

#include "transport/device_comm.hpp"
#include "core/error.hpp"
#include "diffusion/detail/decomposition.hpp"
#include "diffusion/detail/halo.hpp"
#include "diffusion/detail/stencil.hpp"
#include "harness.hpp"
#include "support/test_support.hpp"

namespace trident {
namespace {

using test::bitwise_equal;
using core::Precision;

// test::run_diffusion with a chosen transport (host staging runs on the CPU too: its
// copies go to plain host memory there).
test::DiffusionOutput run_through(MPI_Comm comm, const diffusion::DiffusionSettings& s, const std::string& path,
                                  const core::TransportChoice& transport, const std::string& restart = "") {
  static const DeviceBinding binding{};
  Timers timers;
  {
    io::OutputFile output(comm, path, true);
    RunContext context{comm, timers, binding, restart, 0.0};
    context.transport = transport;
    diffusion::run_study(s, context, output, path + ".checkpoint.h5");
    output.commit();
  }
  return test::read_diffusion(path);
}

// "chosen": what a run would take (NCCL on a GPU build with a GPU a rank), "mpi": MPI
// alone (host staging where MPI is not GPU-aware), "host_staging": forced.
core::TransportChoice transport_named(const std::string& name) {
  if (name == "host_staging") return {core::Transport::host_staging, "test"};
  if (name == "chosen") return core::choose_transport(MPI_COMM_WORLD, test::this_rank_binding());
  return core::mpi_transport();
}

diffusion::DiffusionSettings uneven(long halo_width) {
  diffusion::DiffusionSettings s;
  s.nx = 37;  // uneven blocks on 2, 3 and 4 ranks; the smallest side is at least 7
  s.ny = 29;
  s.steps = 90;
  s.laplacian = true;
  s.output_every = 7;  // frames in the middle of w-step blocks
  s.start.seed = 3;
  s.halo_width = halo_width;
  return s;
}


class MpiDiffusionHalos
    : public testing::TestWithParam<std::tuple<long, std::string, Precision, std::string>> {};

TEST_P(MpiDiffusionHalos, EveryFrameIsBitwiseIdenticalToOneRank) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const auto [width, shape, precision, transport] = GetParam();
  const std::string folder = test::scratch_folder(
      comm, "halos_" + std::to_string(width) + "_" + shape + "_" + core::precision_name(precision) + "_" + transport);
  diffusion::DiffusionSettings s = uneven(width);
  s.precision = precision;
  s.ranks = test::layout(shape, mpi::size(comm));
  const auto many = run_through(comm, s, folder + "/many.h5", transport_named(transport));
  if (mpi::rank(comm) == 0) {
    diffusion::DiffusionSettings alone = s;
    alone.ranks = {0, 0};
    const auto one = run_through(MPI_COMM_SELF, alone, folder + "/one.h5", core::mpi_transport());
    ASSERT_EQ(many.steps, one.steps);
    EXPECT_EQ(many.steps.size(), 14u);  // 0, 7, ..., 84 and 90
    EXPECT_TRUE(bitwise_equal(many.field, one.field));
    EXPECT_TRUE(bitwise_equal(many.laplacian, one.laplacian));
  }
  MPI_Barrier(comm);
}

INSTANTIATE_TEST_SUITE_P(
    WidthsLayoutsTransports, MpiDiffusionHalos,
    testing::Combine(testing::Values(1L, 2L, 5L, 0L), testing::Values("auto", "rows", "columns"),
                     testing::Values(Precision::float32), testing::Values("chosen", "mpi", "host_staging")),
    [](const auto& info) {
      return "w" + std::to_string(std::get<0>(info.param)) + "_" + std::get<1>(info.param) + "_" +
             core::precision_name(std::get<2>(info.param)) + "_" + std::get<3>(info.param);
    });

INSTANTIATE_TEST_SUITE_P(
    Float64, MpiDiffusionHalos,
    testing::Combine(testing::Values(2L, 5L), testing::Values("auto"), testing::Values(Precision::float64),
                     testing::Values("mpi")),
    [](const auto& info) { return "w" + std::to_string(std::get<0>(info.param)) + "_float64"; });

// A deep halo against the plain float64 loop (an independent reference, not the code
// under test on one rank).
TEST(MpiDiffusionHalosReference, DeepHaloMatchesASerialFloat64Loop) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "halos_reference");
  const long nx = 23, ny = 31, steps = 13;
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<double> u0(static_cast<std::size_t>(nx * ny));
  for (double& v : u0) v = value(random);
  test::write_start_file(comm, folder + "/u0.h5", u0, nx, ny);
  diffusion::DiffusionSettings s = test::from_file(nx, ny, steps, folder + "/u0.h5");
  s.precision = Precision::float64;
  s.c = 0.21;
  s.halo_width = 5;
  const auto out = run_through(comm, s, folder + "/out.h5", transport_named("chosen"));
  EXPECT_LT(test::max_abs_difference(out.last_field(), test::reference_steps(u0, nx, ny, 0.21, steps)), 1e-14);
}

// Checkpoint at step 84, in the middle of a 5-step block (exchanges at 0, 5, ..., 80, 85):
// the resumed run exchanges at once and ends with the same bits, on these ranks and on
// one rank alone.
TEST(MpiDiffusionHalosRestart, ResumesInTheMiddleOfABlockBitForBit) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "halos_restart");
  diffusion::DiffusionSettings s = uneven(5);
  s.checkpoint_every = 12;  // the newest is at 84
  const auto full = run_through(comm, s, folder + "/full.h5", transport_named("chosen"));
  const std::string checkpoint = folder + "/full.h5.checkpoint.h5";
  const auto resumed = run_through(comm, s, folder + "/resumed.h5", transport_named("chosen"), checkpoint);
  ASSERT_EQ(resumed.steps, (std::vector<std::int64_t>{84, 90}));
  EXPECT_TRUE(bitwise_equal(resumed.last_field(), full.last_field()));
  EXPECT_TRUE(bitwise_equal(resumed.last_laplacian(), full.last_laplacian()));
  if (mpi::rank(comm) == 0) {
    const auto alone = run_through(MPI_COMM_SELF, s, folder + "/alone.h5", core::mpi_transport(), checkpoint);
    EXPECT_TRUE(bitwise_equal(alone.last_field(), full.last_field()));
  }
  MPI_Barrier(comm);
}

// A value that overflows at the first step, on the edge between blocks (where it is also
// computed in the neighbours' deep halos): the stop names step 1 on every rank count.
TEST(MpiDiffusionHalosNonFinite, OverflowOnABlockEdgeStopsAtTheSameStep) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "halos_overflow");
  const long nx = 16, ny = 12;
  std::vector<double> u0(static_cast<std::size_t>(nx * ny), 0.5);
  u0[6 * nx + 8] = 3e38;  // x = 8, y = 6: the first cell of the second half along each axis
  test::write_start_file(comm, folder + "/u0.h5", u0, nx, ny);
  diffusion::DiffusionSettings s = test::from_file(nx, ny, 10, folder + "/u0.h5");
  s.halo_width = 3;
  s.output_every = 1;
  test::expect_overflow_at_first_step([&] { run_through(comm, s, folder + "/out.h5", transport_named("chosen")); });
}

// A halo deeper than the smallest block is refused before anything is written; on one
// rank there is no halo and any width is accepted.
TEST(MpiDiffusionHalosInput, TooDeepAHaloIsRefusedNamingTheKey) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int n = mpi::size(comm);
  const std::string folder = test::scratch_folder(comm, "halos_too_deep");
  diffusion::DiffusionSettings s = uneven(0);
  s.ranks = {n, 1};
  s.halo_width = 37 / n + 1;
  if (n == 1) {
    EXPECT_NO_THROW(run_through(comm, s, folder + "/out.h5", core::mpi_transport()));
    return;
  }
  try {
    run_through(comm, s, folder + "/out.h5", core::mpi_transport());
    FAIL() << "a halo deeper than a block was accepted";
  } catch (const CollectiveError& e) {
    EXPECT_EQ(e.exit_code(), kExitBadInput);
    EXPECT_EQ(std::string(e.what()),
              "diffusion.halo_width: expected at most " + std::to_string(37 / n) + ", the smallest block's side (" +
                  std::to_string(n) + " x 1 blocks of the 37 x 29 grid), got " + std::to_string(37 / n + 1) +
                  "; a halo comes from the adjacent block alone");
  }
}

// With no diffusion.halo_width the halo is 64 cells deep, or the smallest block's side
// when that is less (one rank's check, as validate makes it for another job size).
TEST(DiffusionHalos, TheDefaultWidthIs64OrTheSmallestBlocksSide) {
  EXPECT_EQ(diffusion::halo_width_for({2, 2}, 8192, 8192, 0), 64);
  EXPECT_EQ(diffusion::halo_width_for({4, 1}, 2000, 2000, 0), 64);
  EXPECT_EQ(diffusion::halo_width_for({2, 2}, 100, 90, 0), 45);    // blocks of 50 x 45
  EXPECT_EQ(diffusion::halo_width_for({8, 1}, 300, 2000, 0), 37);  // 300 / 8: blocks of 37 and 38 columns
  EXPECT_EQ(diffusion::halo_width_for({2, 2}, 8192, 8192, 16), 16);
}

// Every neighbour, diagonal ones too, is the block that many blocks away, and its
// neighbour the other way is this rank.
TEST(MpiDecomposition, NeighboursInAllEightDirections) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const diffusion::Decomposition d(comm, 37, 29, {0, 0});
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      if (dx == 0 && dy == 0) continue;
      const int peer = d.neighbour(dx, dy);
      const int x = d.coords()[0] + dx, y = d.coords()[1] + dy;
      const bool inside = x >= 0 && y >= 0 && x < d.dims()[0] && y < d.dims()[1];
      ASSERT_EQ(peer != MPI_PROC_NULL, inside) << dx << " " << dy;
      if (!inside) continue;
      int c[2];
      MPI_Cart_coords(d.cart(), peer, 2, c);
      EXPECT_EQ(c[1], x);
      EXPECT_EQ(c[0], y);
    }
  EXPECT_EQ(d.neighbour(-1, 0), d.west());
  EXPECT_EQ(d.neighbour(0, 1), d.north());
  long smallest = 1L << 40;
  for (int px = 0; px < d.dims()[0]; ++px) smallest = std::min<long>(smallest, diffusion::split(37, d.dims()[0], px).size);
  for (int py = 0; py < d.dims()[1]; ++py) smallest = std::min<long>(smallest, diffusion::split(29, d.dims()[1], py).size);
  EXPECT_EQ(d.smallest_block_side(), smallest);
}

// The inside and the edge strips together compute what one kernel over the whole box
// does, bit for bit, and both agree with the formula in float64; cells outside the box
// are left alone. L(u) goes to the block-shaped view, for the box's cells of the block.
TEST(DiffusionStencil, EdgeStripsAndInsideMakeTheWholeBox) {
  using diffusion::Box;
  const int rows = 19, columns = 300, w = 3;  // more columns than one tile
  diffusion::Grid<double> u("u", rows + 2 * w, columns + 2 * w), whole("whole", rows + 2 * w, columns + 2 * w),
      parts("parts", rows + 2 * w, columns + 2 * w), l_whole("lw", rows, columns), l_parts("lp", rows, columns);
  Kokkos::View<std::int64_t> bad("bad");
  Kokkos::deep_copy(bad, 1000);
  auto host = Kokkos::create_mirror_view(u);
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (int j = 0; j < rows + 2 * w; ++j)
    for (int i = 0; i < columns + 2 * w; ++i) host(j, i) = value(random);
  Kokkos::deep_copy(u, host);
  const Kokkos::DefaultExecutionSpace space;
  for (const Box& inner : {Box{3, 21, 4, 301}, Box{5, 6, 2, 300}, Box{0, 0, 0, 0}, Box{1, 24, 1, 305}}) {
    const Box outer{1, 24, 1, 305};
    Kokkos::deep_copy(whole, -7.0);
    Kokkos::deep_copy(parts, -7.0);
    Kokkos::deep_copy(l_whole, -7.0);
    Kokkos::deep_copy(l_parts, -7.0);
    diffusion::step<double>(space, u, whole, l_whole, 0.2, 4, bad, outer);
    diffusion::step<double>(space, u, parts, l_parts, 0.2, 4, bad, inner);
    diffusion::step_ring<double>(space, u, parts, l_parts, 0.2, 4, bad, outer, inner);
    auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), whole);
    auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), parts);
    auto la = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), l_whole);
    auto lb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), l_parts);
    int mismatches = 0, wrong = 0, touched_outside = 0;
    for (int j = 0; j < rows + 2 * w; ++j)
      for (int i = 0; i < columns + 2 * w; ++i) {
        const bool in = j >= outer.y0 && j < outer.y1 && i >= outer.x0 && i < outer.x1;
        if (!in) {
          touched_outside += a(j, i) != -7.0 || b(j, i) != -7.0;
          continue;
        }
        const double l = 4 * host(j, i) - host(j, i - 1) - host(j, i + 1) - host(j - 1, i) - host(j + 1, i);
        mismatches += std::memcmp(&a(j, i), &b(j, i), sizeof(double)) != 0;
        wrong += std::abs(a(j, i) - (host(j, i) - 0.2 * l)) > 1e-14;
        const bool block = j >= w && j < w + rows && i >= w && i < w + columns;
        if (!block) continue;
        mismatches += std::memcmp(&la(j - w, i - w), &lb(j - w, i - w), sizeof(double)) != 0;
        wrong += std::abs(la(j - w, i - w) - l) > 1e-14;
      }
    EXPECT_EQ(mismatches, 0) << inner.y0 << " " << inner.x0;
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(touched_outside, 0);
  }
  std::int64_t first_bad = 0;
  Kokkos::deep_copy(first_bad, bad);
  EXPECT_EQ(first_bad, 1000);
}

}  // namespace
}  // namespace trident
