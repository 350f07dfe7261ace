// Core helpers: device choice, collective error agreement, timers.
#include <gtest/gtest.h>

#include <cstdio>

#include "core/comm.hpp"
#include "core/error.hpp"
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

TEST(MpiCollective, TheLowestFailingRankSpeaks) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  try {
    mpi::collective(comm, [&] { throw RunError("rank " + std::to_string(mpi::rank(comm))); });
  } catch (const CollectiveError& e) {
    EXPECT_EQ(std::string(e.what()), "rank 0");
    EXPECT_EQ(e.exit_code(), kExitRunFailure);
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
  ASSERT_NE(at("  startup "), std::string::npos) << summary;
  EXPECT_LT(at("  startup "), at("  work "));
  EXPECT_LT(at("  work "), at("  work.part "));
  EXPECT_LT(at("  work.part "), at("  close "));
  EXPECT_NE(at("its steps (the phases without a dot) account for 3.25"), std::string::npos) << summary;
  EXPECT_NE(at("  whole run so far "), std::string::npos) << summary;
}

}  // namespace
}  // namespace trident
