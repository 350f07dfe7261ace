// Rank-count invariance, restart, non-finite fields, bad start files and the XDMF file.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "diffusion/detail/xdmf.hpp"
#include "harness.hpp"
#include "support/test_support.hpp"

namespace trident {
namespace {

using test::bitwise_equal;
using test::run_diffusion;
using core::Precision;

diffusion::DiffusionSettings uneven(Precision precision) {
  diffusion::DiffusionSettings s;
  s.nx = 37;  // odd sizes: uneven blocks on 2, 3 and 4 ranks
  s.ny = 29;
  s.steps = 90;
  s.precision = precision;
  s.laplacian = true;
  s.output_every = 30;
  s.start.seed = 5;
  return s;
}

// The same run on all ranks and on rank 0 alone gives bit-identical frames.
class MpiDiffusionRanks : public testing::TestWithParam<std::tuple<Precision, io::Mode>> {};

TEST_P(MpiDiffusionRanks, EveryFrameIsBitwiseIdenticalToOneRank) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const auto [precision, mode] = GetParam();
  const std::string folder = test::scratch_folder(comm, std::string("ranks_") + core::precision_name(precision));
  const diffusion::DiffusionSettings s = uneven(precision);
  const auto many = run_diffusion(comm, s, folder + "/many.h5", "", mode);
  if (mpi::rank(comm) == 0) {
    const auto one = run_diffusion(MPI_COMM_SELF, s, folder + "/one.h5");
    EXPECT_TRUE(bitwise_equal(many.field, one.field));
    EXPECT_TRUE(bitwise_equal(many.laplacian, one.laplacian));
    EXPECT_EQ(many.steps, one.steps);
  }
  MPI_Barrier(comm);
}

INSTANTIATE_TEST_SUITE_P(
    PrecisionsAndModes, MpiDiffusionRanks,
    testing::Combine(testing::Values(Precision::float32, Precision::float64),
                     testing::Values(io::Mode::automatic, io::Mode::gathered)),
    [](const auto& info) {
      return core::precision_name(std::get<0>(info.param)) +
             std::string(std::get<1>(info.param) == io::Mode::gathered ? "_gathered" : "_parallel");
    });

TEST(MpiDiffusionRanks, ExplicitBlockLayoutsAgree) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int n = mpi::size(comm);
  const std::string folder = test::scratch_folder(comm, "layouts");
  diffusion::DiffusionSettings rows = uneven(Precision::float32), columns = uneven(Precision::float32);
  rows.ranks = {1, n};
  columns.ranks = {n, 1};
  const auto a = run_diffusion(comm, rows, folder + "/rows.h5");
  const auto b = run_diffusion(comm, columns, folder + "/columns.h5");
  EXPECT_TRUE(bitwise_equal(a.field, b.field));
}

TEST(MpiDiffusionRestart, ContinuesBitForBit) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "restart");
  diffusion::DiffusionSettings s = uneven(Precision::float32);
  s.checkpoint_every = 35;  // checkpoints at 35 and 70; the newest stays
  const auto full = run_diffusion(comm, s, folder + "/full.h5");
  const std::string checkpoint = folder + "/full.h5.checkpoint.h5";
  const io::InputFile saved(checkpoint, "checkpoint");
  EXPECT_EQ(saved.integer_attribute("/", "step"), 70);
  const auto resumed = run_diffusion(comm, s, folder + "/resumed.h5", checkpoint);
  EXPECT_EQ(resumed.steps, (std::vector<std::int64_t>{70, 90}));
  EXPECT_TRUE(bitwise_equal(resumed.last_field(), full.last_field()));
  EXPECT_TRUE(bitwise_equal(resumed.last_laplacian(), full.last_laplacian()));
}

TEST(MpiDiffusionRestart, MismatchedDeckIsRefused) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "restart_mismatch");
  diffusion::DiffusionSettings s = uneven(Precision::float32);
  s.checkpoint_every = 45;
  run_diffusion(comm, s, folder + "/a.h5");
  diffusion::DiffusionSettings other = s;
  other.nx = 36;
  try {
    run_diffusion(comm, other, folder + "/b.h5", folder + "/a.h5.checkpoint.h5");
    FAIL() << "a checkpoint of another grid was accepted";
  } catch (const CollectiveError& e) {
    EXPECT_EQ(e.exit_code(), kExitBadInput);
    EXPECT_EQ(std::string(e.what()), folder + "/a.h5.checkpoint.h5: the checkpoint was written with diffusion.nx = 37, "
                                              "but the deck has 36; restart with the deck that wrote it");
  }
}

TEST(MpiDiffusionNonFinite, OverflowStopsNamingTheStepAndKeepsEarlierFrames) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "overflow");
  const long nx = 9, ny = 7;
  std::vector<double> u0(static_cast<std::size_t>(nx * ny), 0.0);
  u0[3 * nx + 4] = 3e38;  // finite in float32, but 4u overflows in the first step
  test::write_start_file(comm, folder + "/u0.h5", u0, nx, ny);
  const diffusion::DiffusionSettings s = test::from_file(nx, ny, 10, folder + "/u0.h5");
  test::expect_overflow_at_first_step([&] { run_diffusion(comm, s, folder + "/out.h5"); });
}

// A NaN in the start file is bad input (exit 2), found while the file is read, before
// anything is computed or written (it used to surface as a run failure at step 0).
TEST(MpiDiffusionNonFinite, NaNInTheStartFileIsBadInput) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "nan_start");
  std::vector<double> u0(20, 1.0);
  u0[19] = std::nan("");
  test::write_start_file(comm, folder + "/u0.h5", u0, 5, 4);
  diffusion::DiffusionSettings s = test::from_file(5, 4, 3, folder + "/u0.h5");
  s.precision = Precision::float64;
  try {
    run_diffusion(comm, s, folder + "/out.h5");
    FAIL();
  } catch (const CollectiveError& e) {
    EXPECT_EQ(e.exit_code(), kExitBadInput);
    EXPECT_EQ(std::string(e.what()), folder + "/u0.h5: dataset '/u0': cell (3, 4) is not finite (nan)");
  }
}

TEST(MpiDiffusionStartFile, WrongShapeNamesFileDatasetAndKeys) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "bad_shape");
  test::write_start_file(comm, folder + "/u0.h5", std::vector<double>(12, 0.0), 4, 3);
  const diffusion::DiffusionSettings s = test::from_file(3, 4, 1, folder + "/u0.h5");
  try {
    run_diffusion(comm, s, folder + "/out.h5");
    FAIL();
  } catch (const CollectiveError& e) {
    EXPECT_EQ(e.exit_code(), kExitBadInput);
    EXPECT_EQ(std::string(e.what()), folder + "/u0.h5: dataset '/u0' has shape (3 x 4), expected (ny, nx) = (4, 3) as "
                                              "set by diffusion.ny and diffusion.nx");
  }
}

// `text` as one word of a shell command, whatever its characters.
std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (const char ch : text) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return quoted + "'";
}

// The XDMF read back by an XML parser (tests/diffusion/check_xdmf.py, which checks its
// structure, not its text): a temporal collection of the frames with their times, the 2D mesh,
// the attributes as hyperslabs of the output's datasets, and the output's file name as the
// parser returns it. Returns the checker's exit status (0: all checks passed).

int check_xdmf(const std::string& xdmf, const std::string& h5, long nx, long ny, const std::vector<double>& times,
               bool laplacian, int precision, bool quiet = false) {
  std::ostringstream command;
  command.precision(17);
  command << "/usr/bin/python3 " << shell_quoted(test::source_path("tests/diffusion/check_xdmf.py")) << " "
          << shell_quoted(xdmf) << " --h5 " << shell_quoted(h5) << " --nx " << nx << " --ny " << ny
          << " --precision " << precision << " --attribute u=/diffusion/field";
  if (laplacian) command << " --attribute laplacian=/diffusion/laplacian";
  command << " --times ";
  for (std::size_t f = 0; f < times.size(); ++f) command << (f ? "," : "") << times[f];
  if (quiet) command << " >/dev/null";
  return std::system(command.str().c_str());
}

// A name with every character XML reserves, quotes and spaces.
const std::string kAwkwardName = "a&b<c>\"d\" 'e' &amp; f.h5";

TEST(DiffusionXdmf, TheTextParsesAndNamesTheFileWhateverItsCharacters) {
  const std::string folder = test::scratch_folder(MPI_COMM_SELF, "xdmf_text");
  const diffusion::XdmfGrid grid{5, 3, 0.0, 0.0, 1.0, 1.0};
  // both frames of a file of 2, float32
  const auto frames = [](const std::string& file, bool laplacian) {
    return diffusion::XdmfFrames{file, 2, 4, laplacian, {0, 1}, {0.0, 2.5}};
  };
  for (const std::string& name : {std::string("plain.h5"), kAwkwardName}) {
    test::write_text(folder + "/" + name, "");  // the file the XDMF must lead back to
    const std::string xdmf = folder + "/" + name + ".xdmf";
    test::write_text(xdmf, diffusion::xdmf_text(grid, {frames(name, true)}));
    EXPECT_EQ(check_xdmf(xdmf, folder + "/" + name, 5, 3, {0.0, 2.5}, true, 4), 0) << name;
    // the checker fails on a wrong expectation (a time, the mesh, an attribute, the file)
    EXPECT_NE(check_xdmf(xdmf, folder + "/" + name, 5, 3, {0.0, 2.0}, true, 4, true), 0);
    EXPECT_NE(check_xdmf(xdmf, folder + "/" + name, 3, 5, {0.0, 2.5}, true, 4, true), 0);
    EXPECT_NE(check_xdmf(xdmf, folder + "/" + name, 5, 3, {0.0, 2.5}, false, 4, true), 0);
    EXPECT_NE(check_xdmf(xdmf, folder + "/" + name, 5, 3, {0.0, 2.5}, true, 8, true), 0);
    EXPECT_NE(check_xdmf(xdmf, xdmf, 5, 3, {0.0, 2.5}, true, 4, true), 0);
  }
  // Names without reserved characters are written as they are (the text of earlier runs).
  const std::string plain = diffusion::xdmf_text(grid, {frames("plain.h5", false)});
  EXPECT_NE(plain.find(">plain.h5:/diffusion/field</DataItem>"), std::string::npos);
  // and the unescaped awkward name, as written before, is refused by the parser
  std::string raw = plain;
  raw.replace(raw.find("plain.h5"), 8, kAwkwardName);
  test::write_text(folder + "/raw.xdmf", raw);
  EXPECT_NE(check_xdmf(folder + "/raw.xdmf", folder + "/" + kAwkwardName, 5, 3, {0.0, 2.5}, false, 4, true), 0);
}

TEST(MpiDiffusionXdmf, ARunsXdmfParsesWithItsFramesAttributesAndFile) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const std::string folder = test::scratch_folder(comm, "xdmf");
  diffusion::DiffusionSettings s = uneven(Precision::float64);
  s.dt = 0.5;
  run_diffusion(comm, s, folder + "/series.h5");
  diffusion::DiffusionSettings single = uneven(Precision::float32);
  single.laplacian = false;
  single.output_every = 45;
  run_diffusion(comm, single, folder + "/" + kAwkwardName);
  if (mpi::rank(comm) == 0) {
    diffusion::write_xdmf(folder + "/series.h5");
    // steps 0, 30, 60, 90 at dt 0.5
    EXPECT_EQ(check_xdmf(folder + "/series.xdmf", folder + "/series.h5", 37, 29, {0, 15, 30, 45}, true, 8), 0);
    diffusion::write_xdmf(folder + "/" + kAwkwardName);
    const std::string xdmf = folder + "/a&b<c>\"d\" 'e' &amp; f.xdmf";
    EXPECT_EQ(check_xdmf(xdmf, folder + "/" + kAwkwardName, 37, 29, {0, 45, 90}, false, 4), 0);
  }
  MPI_Barrier(comm);
}

}  // namespace
}  // namespace trident
