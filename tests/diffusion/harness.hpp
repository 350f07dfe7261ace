#pragma once
// Runs the diffusion study in-process on a communicator and reads its output back.
#include <array>
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/run_context.hpp"
#include "diffusion/settings.hpp"
#include "diffusion/detail/study.hpp"
#include "diffusion/detail/study_test_hooks.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"

namespace trident::test {

inline diffusion::DiffusionSettings grid(long nx, long ny, long steps,
                                    core::Precision precision = core::Precision::float32) {
  diffusion::DiffusionSettings s;
  s.nx = nx;
  s.ny = ny;
  s.steps = steps;
  s.precision = precision;
  return s;
}

// Settings whose start field is `path`:/u0.
inline diffusion::DiffusionSettings from_file(long nx, long ny, long steps, const std::string& path) {
  diffusion::DiffusionSettings s = grid(nx, ny, steps);
  s.start.kind = diffusion::StartField::Kind::file;
  s.start.file = path;
  s.start.dataset = "/u0";
  return s;
}

struct DiffusionOutput {
  std::vector<double> field;      // all frames, (frames x ny x nx)
  std::vector<double> laplacian;  // the same, when kept
  std::vector<std::int64_t> steps;
  std::vector<double> times;
  std::vector<double> last_field() const {
    const std::size_t n = field.size() / steps.size();
    return std::vector<double>(field.end() - static_cast<std::ptrdiff_t>(n), field.end());
  }
  std::vector<double> last_laplacian() const {  // when kept: a frame's worth, as the field's
    const std::size_t n = field.size() / steps.size();
    return std::vector<double>(laplacian.end() - static_cast<std::ptrdiff_t>(n), laplacian.end());
  }
};

inline DiffusionOutput read_diffusion(const std::string& path) {
  const io::InputFile in(path, "output file");
  DiffusionOutput out;
  out.field = in.read<double>("/diffusion/field");
  if (in.has("/diffusion/laplacian")) out.laplacian = in.read<double>("/diffusion/laplacian");
  out.steps = in.read<std::int64_t>("/diffusion/step");
  out.times = in.read<double>("/diffusion/time");
  return out;
}

// Runs the study on `comm` into `path` (replacing it) and returns the output, read on
// every rank of `comm`. Exceptions from the study propagate after the file is committed.
inline DiffusionOutput run_diffusion(MPI_Comm comm, const diffusion::DiffusionSettings& settings,
                                     const std::string& path, const std::string& restart = "",
                                     io::Mode mode = io::Mode::automatic,
                                     const diffusion::StudyTestHooks& hooks = {}) {
  static const DeviceBinding binding{};
  Timers timers;
  {
    io::OutputFile output(comm, path, true, mode);
    RunContext context{comm, timers, binding, restart, 0.0};
    diffusion::run_study(settings, context, output, path + ".checkpoint.h5", hooks);
    output.commit();
  }
  return read_diffusion(path);
}

inline bool bitwise_equal(const std::vector<double>& a, const std::vector<double>& b);

// The runs each rule's layout test makes, and what they must show: `s` on `comm` (its trips
// shaped by `hooks`) into FOLDER/many.h5, then again resumed from that run's last checkpoint:
// the resumed run's last frame equals the uninterrupted one's (its L(u) too with
// `resumed_laplacian`); and on rank 0 the run equals one rank's, every frame's field and L(u).
// `one` is read on rank 0 alone.
struct LayoutRuns {
  DiffusionOutput many, resumed, one;
};
inline void check_layout_runs(MPI_Comm comm, const diffusion::DiffusionSettings& s, const std::string& folder,
                              const diffusion::StudyTestHooks& hooks, bool resumed_laplacian, LayoutRuns& runs) {
  runs.many = run_diffusion(comm, s, folder + "/many.h5", "", io::Mode::automatic, hooks);
  runs.resumed = run_diffusion(comm, s, folder + "/resumed.h5", folder + "/many.h5.checkpoint.h5", io::Mode::automatic, hooks);
  EXPECT_TRUE(bitwise_equal(runs.resumed.last_field(), runs.many.last_field()));
  if (resumed_laplacian) EXPECT_TRUE(bitwise_equal(runs.resumed.last_laplacian(), runs.many.last_laplacian()));
  if (mpi::rank(comm) != 0) return;
  diffusion::DiffusionSettings alone = s;
  alone.ranks = {0, 0};
  alone.halo_width = 0;
  runs.one = run_diffusion(MPI_COMM_SELF, alone, folder + "/one.h5");
  ASSERT_EQ(runs.many.steps, runs.one.steps);
  EXPECT_TRUE(bitwise_equal(runs.many.field, runs.one.field));
  EXPECT_TRUE(bitwise_equal(runs.many.laplacian, runs.one.laplacian));
}

// A plain serial float64 reference of the scheme, zero outside the grid.
inline std::vector<double> reference_steps(std::vector<double> u, long nx, long ny, double c, long steps) {
  std::vector<double> next(u.size());
  const auto at = [&](long i, long j) { return (i < 0 || j < 0 || i >= nx || j >= ny) ? 0.0 : u[j * nx + i]; };
  for (long s = 0; s < steps; ++s) {
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) {
        const double l = 4 * at(i, j) - at(i - 1, j) - at(i + 1, j) - at(i, j - 1) - at(i, j + 1);
        next[j * nx + i] = at(i, j) - c * l;
      }
    u.swap(next);
  }
  return u;
}

inline std::vector<double> reference_laplacian(const std::vector<double>& u, long nx, long ny) {
  std::vector<double> l(u.size());
  const auto at = [&](long i, long j) { return (i < 0 || j < 0 || i >= nx || j >= ny) ? 0.0 : u[j * nx + i]; };
  for (long j = 0; j < ny; ++j)
    for (long i = 0; i < nx; ++i)
      l[j * nx + i] = 4 * at(i, j) - at(i - 1, j) - at(i + 1, j) - at(i, j - 1) - at(i, j + 1);
  return l;
}

// diffusion.ranks for a layout name: chosen by MPI ("auto"), all ranks along y ("rows"), all
// along x ("columns").
inline std::array<std::int64_t, 2> layout(const std::string& name, int ranks) {
  if (name == "rows") return {1, ranks};
  if (name == "columns") return {ranks, 1};
  return {0, 0};
}

inline bool bitwise_equal(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

inline double max_abs_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double m = a.size() == b.size() ? 0.0 : INFINITY;
  for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) m = std::max(m, std::abs(a[k] - b[k]));
  return m;
}

inline double max_abs(const std::vector<double>& a) {
  double m = 0;
  for (double v : a) m = std::max(m, std::abs(v));
  return m;
}

// Writes a (ny x nx) start field held on rank 0 to `path`:/u0.
inline void write_start_file(MPI_Comm comm, const std::string& path, const std::vector<double>& u0,
                             long nx, long ny) {
  io::OutputFile file(comm, path, true);
  file.write_array<double>("/u0", u0, {static_cast<std::uint64_t>(ny), static_cast<std::uint64_t>(nx)});
  file.commit();
}

// Runs `run`, whose field overflows in its first step: the run must stop as a run failure
// naming that step, after the start frame was written.
template <class Run>
void expect_overflow_at_first_step(Run run) {
  try {
    run();
    FAIL() << "a run that overflowed went on";
  } catch (const StudyStopped& e) {
    EXPECT_EQ(e.exit_code(), kExitRunFailure);
    EXPECT_EQ(std::string(e.what()),
              "diffusion: the field turned non-finite (NaN or infinite) at step 1; the output keeps the 1 frame "
              "written before it");
  }
}

}  // namespace trident::test
