// An oracle apart from the code under test: a serial loop of the scheme written here, with
// the kernels' order of operations in the run's precision,
//   L(u) = 4u - (((west + east) + south) + north),   u <- u - c L(u),   zero outside the grid,
// against whole runs bit for bit (every frame's field and Laplacian): every trip depth (1 to
// kMaxTripSteps steps per trip through memory, forced as the GPU rule picks them, with the
// rule's tiles and with small ones, chained on a device), float32 and float64, random start
// fields, frames at several step counts, on 1 to 4 ranks. The suite's other comparisons set
// the code against itself (trips against single steps, many ranks against one); a kernel whose
// c, order of sums or precision drifted by an ulp everywhere would pass those and fails here.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>

#include "diffusion/detail/trip.hpp"
#include "harness.hpp"
#include "support/test_support.hpp"

namespace trident {
namespace {

using core::Precision;

template <class T>
using Field = Kokkos::View<T**, Kokkos::LayoutRight>;  // (ny, nx), no halo

template <class T>
KOKKOS_INLINE_FUNCTION T value_at(const Field<T>& u, int j, int i) {
  const bool outside = j < 0 || i < 0 || j >= static_cast<int>(u.extent(0)) || i >= static_cast<int>(u.extent(1));
  return outside ? T(0) : u(j, i);
}

// One step of the scheme, cell after cell in one thread: next <- u - c L(u), and L(u) (what a
// frame at this step holds). It runs in the default execution space rather than on the host
// so that a device compiler treats its arithmetic as it treats the kernels' (it contracts
// u - c * l into a fused multiply-add there, where a host compiler without FMA does not).
template <class T>
void serial_step(const Field<T>& u, const Field<T>& next, const Field<T>& laplacian, T c) {
  const int ny = static_cast<int>(u.extent(0)), nx = static_cast<int>(u.extent(1));
  Kokkos::parallel_for(
      "trident::test::serial_reference_step", Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, 1),
      KOKKOS_LAMBDA(const int) {
        for (int j = 0; j < ny; ++j)
          for (int i = 0; i < nx; ++i) {
            const T centre = u(j, i);
            const T west = value_at(u, j, i - 1), east = value_at(u, j, i + 1);
            const T south = value_at(u, j - 1, i), north = value_at(u, j + 1, i);
            const T l = T(4) * centre - (((west + east) + south) + north);
            laplacian(j, i) = l;
            next(j, i) = centre - c * l;
          }
      });
  Kokkos::fence();
}

// Random values in [-1, 1] that the precision holds exactly (so the start field is the same
// numbers in the file, in the run and here).
template <class T>
std::vector<double> random_field(long nx, long ny, unsigned seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<double> u(static_cast<std::size_t>(nx * ny));
  for (double& v : u) v = static_cast<double>(static_cast<T>(value(random)));
  return u;
}

// Cells of `got` (frame f of a run's frames, as double) that are not the bits of `want`.
template <class T>
long mismatches(const std::vector<double>& got, std::size_t f, const Field<T>& want, const std::string& what,
                std::string& first) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), want);
  const long ny = static_cast<long>(want.extent(0)), nx = static_cast<long>(want.extent(1));
  long count = 0;
  for (long j = 0; j < ny; ++j)
    for (long i = 0; i < nx; ++i) {
      const double expected = static_cast<double>(host(j, i));
      const double value = got[f * static_cast<std::size_t>(nx * ny) + static_cast<std::size_t>(j * nx + i)];
      if (std::memcmp(&expected, &value, sizeof(double)) == 0) continue;
      if (count++ == 0 && first.empty()) {
        std::ostringstream text;
        text.precision(17);
        text << what << " frame " << f << " cell (" << j << ", " << i << "): " << value << ", the loop gives "
             << expected;
        first = text.str();
      }
    }
  return count;
}

// A run of `steps` steps with frames every `every` from a random field, at most `m` steps a
// trip (tiles of `rows` rows when > 0), against the serial loop: each frame's field and
// Laplacian, bit for bit.
template <class T>
void compare_with_serial_loop(const std::string& folder, int m, int rows, long steps, long every, double c,
                              unsigned seed) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const long nx = 45, ny = 38;  // uneven blocks on 2, 3 and 4 ranks, each at least 8 cells a side
  const std::vector<double> u0 = random_field<T>(nx, ny, seed);
  const std::string name = folder + "/m" + std::to_string(m) + "_rows" + std::to_string(rows) + "_steps" +
                           std::to_string(steps);
  test::write_start_file(comm, name + "_u0.h5", u0, nx, ny);
  diffusion::DiffusionSettings s = test::from_file(nx, ny, steps, name + "_u0.h5");
  s.precision = sizeof(T) == 4 ? Precision::float32 : Precision::float64;
  s.c = c;
  s.laplacian = true;
  s.output_every = every;
  s.halo_width = 8;  // a halo deep enough for trips of 8 steps on several ranks
  diffusion::StudyTestHooks hooks;
  hooks.trips = diffusion::TripShape{m, rows > 0 ? 9 : 0, rows};
  const test::DiffusionOutput out = test::run_diffusion(comm, s, name + ".h5", "", io::Mode::automatic, hooks);
  if (mpi::rank(comm) == 0) {
    Field<T> u("u", ny, nx), next("next", ny, nx), laplacian("laplacian", ny, nx);
    const auto host = Kokkos::create_mirror_view(u);
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) host(j, i) = static_cast<T>(u0[static_cast<std::size_t>(j * nx + i)]);
    Kokkos::deep_copy(u, host);
    std::size_t f = 0;
    long bad = 0;
    std::string first;
    for (long step = 0; step <= steps; ++step) {
      serial_step<T>(u, next, laplacian, static_cast<T>(c));  // L(u) at `step`, and u at step + 1
      if (f < out.steps.size() && out.steps[f] == step) {
        bad += mismatches<T>(out.field, f, u, "field", first);
        bad += mismatches<T>(out.laplacian, f, laplacian, "laplacian", first);
        ++f;
      }
      std::swap(u, next);
    }
    EXPECT_EQ(f, out.steps.size());
    EXPECT_EQ(bad, 0) << "m " << m << ", tiles of " << rows << " rows, " << steps << " steps: " << first;
  }
  MPI_Barrier(comm);
}

template <class T>
void every_trip_depth(const std::string& folder, double c) {
  for (int m = 1; m <= diffusion::kMaxTripSteps; ++m)
    for (int rows : {0, 10}) {
      if (m == 1 && rows > 0) continue;  // no trips: the one-step kernel's own tiles
      // frames at 0, 12, 24 and 25: trips between them of up to 11 steps (m and shorter)
      compare_with_serial_loop<T>(folder, m, rows, 25, 12, c, static_cast<unsigned>(100 * m + rows));
      if (rows == 0) compare_with_serial_loop<T>(folder, m, rows, 9, 9, c, static_cast<unsigned>(100 * m + 50));
    }
}

TEST(MpiDiffusionSerialReference, Float32RunsAreTheLoopsBitsAtEveryTripDepth) {
  const std::string folder = test::scratch_folder(MPI_COMM_WORLD, "serial_reference_float32");
  every_trip_depth<float>(folder, 0.2);  // 0.2 is no float: c is rounded to float once, as the loop does
}

TEST(MpiDiffusionSerialReference, Float64RunsAreTheLoopsBitsAtEveryTripDepth) {
  const std::string folder = test::scratch_folder(MPI_COMM_WORLD, "serial_reference_float64");
  every_trip_depth<double>(folder, 0.21);
}

// The run's frames were read back: the comparison sees the run's numbers (a loop that agreed
// with anything would pass the tests above).
TEST(MpiDiffusionSerialReference, TheLoopTellsADifferentCApart) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "serial_reference_other_c");
  const long nx = 45, ny = 38, steps = 3;
  const std::vector<double> u0 = random_field<float>(nx, ny, 3);
  test::write_start_file(comm, folder + "/u0.h5", u0, nx, ny);
  diffusion::DiffusionSettings s = test::from_file(nx, ny, steps, folder + "/u0.h5");
  s.c = 0.2;
  const test::DiffusionOutput out = test::run_diffusion(comm, s, folder + "/out.h5");
  if (mpi::rank(comm) == 0) {
    Field<float> u("u", ny, nx), next("next", ny, nx), laplacian("laplacian", ny, nx);
    const auto host = Kokkos::create_mirror_view(u);
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) host(j, i) = static_cast<float>(u0[static_cast<std::size_t>(j * nx + i)]);
    Kokkos::deep_copy(u, host);
    const float scaled = static_cast<float>(0.2) * (1 + 1e-6f);  // c one part in a million off
    for (long step = 0; step < steps; ++step) {
      serial_step<float>(u, next, laplacian, scaled);
      std::swap(u, next);
    }
    std::string first;
    ASSERT_EQ(out.steps.back(), steps);
    EXPECT_GT(mismatches<float>(out.field, out.steps.size() - 1, u, "field", first), nx * ny / 2);
  }
  MPI_Barrier(comm);
}

}  // namespace
}  // namespace trident
