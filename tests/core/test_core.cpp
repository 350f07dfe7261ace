// Core helpers: device choice, collective error agreement, timers, log levels, progress lines.
#include <gtest/gtest.h>

#include <cstdio>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/progress.hpp"
#include "core/runtime.hpp"
#include "core/timers.hpp"

namespace trident {
namespace {

TEST(DeviceChoice, OneVisibleDeviceOrLocalRankModuloCount) {
  EXPECT_EQ(choose_device(0, 0), -1);
  EXPECT_EQ(choose_device(5, 1), 0);   // SLURM --gpus-per-task: the one it gave
  EXPECT_EQ(choose_device(0, 4), 0);
  EXPECT_EQ(choose_device(5, 4), 1);
  EXPECT_EQ(choose_device(7, 2), 1);
}

TEST(MpiCollective, AFailureOnOneRankIsThrownOnAll) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int last = mpi::size(comm) - 1;
  try {
    mpi::collective(comm, [&] {
      if (mpi::rank(comm) == last) throw InputError("file.csv: row 3, column lat: expected a number");
    });
    FAIL() << "no error on rank " << mpi::rank(comm);
  } catch (const CollectiveError& e) {
    EXPECT_EQ(e.exit_code(), kExitBadInput);
    EXPECT_EQ(std::string(e.what()), "file.csv: row 3, column lat: expected a number");
  }
  EXPECT_NO_THROW(mpi::collective(comm, [] {}));
}

// The ranks from the middle up fail (rank 0 on one rank), each with its own message and, by
// its parity, its own exit code; the ranks below them do not fail. Every rank throws the
// lowest failing rank's message and code: on 2 ranks rank 1's bad input, on 3 rank 1's
// (rank 2's run failure loses), on 4 rank 2's run failure (rank 3's bad input loses).
TEST(MpiCollective, TheLowestFailingRankSpeaks) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const int me = mpi::rank(comm), lowest = mpi::size(comm) / 2;
  try {
    mpi::collective(comm, [&] {
      if (me < lowest) return;
      const std::string message = "rank " + std::to_string(me) + " failed";
      if (me % 2 == 1) throw InputError(message);
      throw RunError(message);
    });
    FAIL() << "no error on rank " << me;
  } catch (const CollectiveError& e) {
    EXPECT_EQ(std::string(e.what()), "rank " + std::to_string(lowest) + " failed") << "on rank " << me;
    EXPECT_EQ(e.exit_code(), lowest % 2 == 1 ? kExitBadInput : kExitRunFailure) << "on rank " << me;
  }
  // A CollectiveError thrown inside (a nested collective step) keeps its own exit code.
  try {
    mpi::collective(comm, [&] {
      if (me == lowest) throw CollectiveError("stopped at rank " + std::to_string(me), 75);
      if (me > lowest) throw InputError("later rank " + std::to_string(me));
    });
    FAIL() << "no error on rank " << me;
  } catch (const CollectiveError& e) {
    EXPECT_EQ(std::string(e.what()), "stopped at rank " + std::to_string(lowest));
    EXPECT_EQ(e.exit_code(), 75);
  }
}

TEST(MpiGather, StringsArriveInRankOrder) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const auto all = mpi::gather_strings(comm, std::string(static_cast<std::size_t>(mpi::rank(comm)), 'r'));
  if (mpi::rank(comm) == 0) {
    ASSERT_EQ(all.size(), static_cast<std::size_t>(mpi::size(comm)));
    for (std::size_t r = 0; r < all.size(); ++r) EXPECT_EQ(all[r], std::string(r, 'r'));
  } else {
    EXPECT_TRUE(all.empty());
  }
}

TEST(MpiTimers, SummaryNamesTheSlowestRank) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  Timers timers;
  timers.add("phase", 1.0 + mpi::rank(comm));
  const std::string summary = timers.summary(comm);
  const int slowest = mpi::size(comm) - 1;
  EXPECT_NE(summary.find("phase"), std::string::npos);
  char max_text[32];
  std::snprintf(max_text, sizeof max_text, "%9.3f  %d\n", 1.0 + slowest, slowest);
  EXPECT_NE(summary.find(max_text), std::string::npos) << summary;
}

TEST(MpiTimers, SummaryListsPhasesInRunOrderAndAddsUpTheSteps) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  Timers timers;
  timers.add("startup", 1.0);
  { auto open = timers.scope("work"); }  // a step listed when it opens, before its parts
  timers.add("work.part", 5.0);          // a part: inside a step, not added again
  timers.add("work", 2.0);
  timers.add("close", 0.25);
  const std::string summary = timers.summary(comm);
  const auto at = [&](const std::string& text) { return summary.find(text); };
  ASSERT_NE(at("\n  startup "), std::string::npos) << summary;
  EXPECT_LT(at("\n  startup "), at("\n  work "));
  EXPECT_LT(at("\n  work "), at("\n    part "));  // indented under its step, without its name
  EXPECT_LT(at("\n    part "), at("\n  close "));
  EXPECT_EQ(at("work.part"), std::string::npos) << summary;
  EXPECT_NE(at("its steps (the phases not indented) account for 3.25"), std::string::npos) << summary;
  EXPECT_NE(at("  whole run so far "), std::string::npos) << summary;
}

// A part keeps its whole name under a step of another name (knn.read is timed inside the
// run's "prepare"), and every part shows its whole name with --verbose, as the output's
// /timings and Kokkos Tools name it.
TEST(MpiTimers, PartsOfAnotherStepAndVerboseTablesShowWholeNames) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  Timers timers;
  timers.add("prepare", 1.0);
  timers.add("knn.read", 0.5);
  timers.add("knn", 2.0);
  timers.add("knn.search", 1.5);
  const std::string plain = timers.summary(comm);
  EXPECT_NE(plain.find("\n    knn.read "), std::string::npos) << plain;
  EXPECT_NE(plain.find("\n    search "), std::string::npos) << plain;
  const log::Verbosity before = log::verbosity();
  log::set_verbosity(log::Verbosity::verbose);
  const std::string verbose = timers.summary(comm);
  log::set_verbosity(before);
  EXPECT_NE(verbose.find("\n    knn.search "), std::string::npos) << verbose;
  EXPECT_EQ(verbose.find(" search "), std::string::npos) << verbose;
}

// What each level prints on rank 0: --quiet keeps the final line (and errors), the default
// adds info, --verbose adds details.
TEST(MpiLog, EachLevelPrintsItsLines) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const log::Verbosity before = log::verbosity();
  const auto printed = [&](log::Verbosity level) {
    log::set_verbosity(level);
    testing::internal::CaptureStdout();
    log::info(comm, "set-up");
    log::detail(comm, "tuning");
    log::result(comm, "wrote x.h5");
    return testing::internal::GetCapturedStdout();
  };
  const std::string quiet = printed(log::Verbosity::quiet), normal = printed(log::Verbosity::normal),
                    verbose = printed(log::Verbosity::verbose);
  log::set_verbosity(before);
  if (mpi::rank(comm) != 0) {
    EXPECT_EQ(quiet + normal + verbose, "");
    return;
  }
  EXPECT_EQ(quiet, "trident: wrote x.h5\n");
  EXPECT_EQ(normal, "trident: set-up\ntrident: wrote x.h5\n");
  EXPECT_EQ(verbose, "trident: set-up\ntrident: tuning\ntrident: wrote x.h5\n");
}

// The counted unit names the figures: diffusion counts steps, knn rows.
TEST(MpiProgress, TheLineNamesWhatItCounts) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  const Progress rows(comm, "knn: search,", 0, 4096, 10.0, "row");
  const std::string line = rows.line(1024);
  EXPECT_EQ(line.rfind("knn: search, row 1024 of 4096 (25.0%), ", 0), 0u) << line;
  EXPECT_NE(line.find(" rows/s, "), std::string::npos) << line;
  const Progress steps(comm, "diffusion", 100, 400, 10.0);
  EXPECT_EQ(steps.line(200).rfind("diffusion step 200 of 400 (50.0%), ", 0), 0u) << steps.line(200);
}

}  // namespace
}  // namespace trident
