// The environment overrides' one owner: each name's syntax, the errors word for word, the
// unknown-name warning and what the log and provenance show.
#include <gtest/gtest.h>

#include "core/overrides.hpp"
#include "support/test_support.hpp"

namespace trident {
namespace {

core::Overrides parse(std::vector<std::string> environment) { return core::parse_overrides(environment); }

TEST(Overrides, UnsetOrEmptyMeansAutomatic) {
  const core::Overrides o = parse({"PATH=/usr/bin", "TRIDENT_KNN_SLICES="});
  EXPECT_EQ(o.device_comm, "auto");
  EXPECT_EQ(o.gpu_aware_mpi, core::Switch::automatic);
  EXPECT_EQ(o.knn_slices, 0);
  EXPECT_EQ(o.ridge_row_segments, 0);
  EXPECT_TRUE(o.active.empty());
  EXPECT_TRUE(o.warnings.empty());
  EXPECT_EQ(o.describe(), "none");
}

TEST(Overrides, EachValueMeansWhatItSays) {
  const core::Overrides o =
      parse({"TRIDENT_GPU_AWARE_MPI=off", "TRIDENT_PEER_MEMORY=off", "TRIDENT_KNN_LISTS=registers",
             "TRIDENT_KNN_SLICES=8", "TRIDENT_KNN_LIST_BOUND=on", "TRIDENT_RIDGE_GRAPHS=off",
             "TRIDENT_RIDGE_ROW_SEGMENTS=off", "TRIDENT_RIDGE_ROW_LANES=16", "TRIDENT_RIDGE_COLUMN_BANDS=3",
             "TRIDENT_RIDGE_DEVICE_SETUP=off", "TRIDENT_DEVICE_COMM=host-staging", "TRIDENT_DIFFUSION_TRIP_STEPS=4"});
  EXPECT_EQ(o.gpu_aware_mpi, core::Switch::off);  // off is off (it used to turn it on)
  EXPECT_EQ(o.peer_memory, core::Switch::off);
  EXPECT_EQ(o.knn_lists, "registers");
  EXPECT_EQ(o.knn_slices, 8);
  EXPECT_EQ(o.knn_list_bound, core::Switch::on);
  EXPECT_EQ(o.ridge_graphs, core::Switch::off);
  EXPECT_EQ(o.ridge_row_segments, -1);
  EXPECT_EQ(o.ridge_row_lanes, 16);
  EXPECT_EQ(o.ridge_column_bands, 3);
  EXPECT_EQ(o.ridge_device_setup, core::Switch::off);
  EXPECT_EQ(o.device_comm, "host-staging");
  EXPECT_EQ(o.diffusion_trip_steps, 4);
  // In the owner's order, whatever the environment's.
  EXPECT_EQ(o.describe(),
            "TRIDENT_DEVICE_COMM=host-staging TRIDENT_GPU_AWARE_MPI=off TRIDENT_PEER_MEMORY=off "
            "TRIDENT_DIFFUSION_TRIP_STEPS=4 TRIDENT_KNN_LISTS=registers TRIDENT_KNN_SLICES=8 TRIDENT_KNN_LIST_BOUND=on TRIDENT_RIDGE_GRAPHS=off "
            "TRIDENT_RIDGE_ROW_SEGMENTS=off TRIDENT_RIDGE_ROW_LANES=16 TRIDENT_RIDGE_COLUMN_BANDS=3 "
            "TRIDENT_RIDGE_DEVICE_SETUP=off");
}

TEST(Overrides, ABadValueIsRefusedNamingTheVariable) {
  const auto message = [](const std::string& entry) {
    return test::input_error_message([&] { core::parse_overrides({entry}); });
  };
  EXPECT_EQ(message("TRIDENT_GPU_AWARE_MPI=0"), "TRIDENT_GPU_AWARE_MPI: expected auto, on or off, got '0'");
  EXPECT_EQ(message("TRIDENT_PEER_MEMORY=on"), "TRIDENT_PEER_MEMORY: expected auto or off, got 'on'");
  EXPECT_EQ(message("TRIDENT_DEVICE_COMM=infiniband"),
            "TRIDENT_DEVICE_COMM: expected auto, nccl, mpi or host-staging, got 'infiniband'");
  EXPECT_EQ(message("TRIDENT_KNN_SLICES=65"), "TRIDENT_KNN_SLICES: expected auto or a count from 1 to 64, got '65'");
  EXPECT_EQ(message("TRIDENT_KNN_SLICES= 8"), "TRIDENT_KNN_SLICES: expected auto or a count from 1 to 64, got ' 8'");
  EXPECT_EQ(message("TRIDENT_KNN_SLICES=+8"), "TRIDENT_KNN_SLICES: expected auto or a count from 1 to 64, got '+8'");
  EXPECT_EQ(message("TRIDENT_DIFFUSION_TRIP_STEPS=9"),
            "TRIDENT_DIFFUSION_TRIP_STEPS: expected auto or steps per trip from 1 to 8, got '9'");
  EXPECT_EQ(message("TRIDENT_RIDGE_ROW_LANES=3"),
            "TRIDENT_RIDGE_ROW_LANES: expected auto or lanes per row (1, 2, 4, 8, 16 or 32), got '3'");
  EXPECT_EQ(message("TRIDENT_RIDGE_COLUMN_BANDS=0"),
            "TRIDENT_RIDGE_COLUMN_BANDS: expected auto, off or a number of column bands (a positive integer), got '0'");
  EXPECT_EQ(message("TRIDENT_KNN_LISTS=register"),
            "TRIDENT_KNN_LISTS: expected auto, registers, buffers or select, got 'register'");
}

TEST(Overrides, AnUnknownNameIsWarnedWithTheClosestKnownOne) {
  const core::Overrides o = parse({"TRIDENT_KNN_LIST=registers", "TRIDENT_BANANA=1", "TRIDENT_OUTPUT=run.h5"});
  ASSERT_EQ(o.warnings.size(), 2u);  // TRIDENT_OUTPUT belongs to the job templates
  EXPECT_EQ(o.warnings[0], "TRIDENT_KNN_LIST is not a trident setting and is ignored; did you mean TRIDENT_KNN_LISTS?");
  EXPECT_EQ(o.warnings[1], "TRIDENT_BANANA is not a trident setting and is ignored");
  EXPECT_TRUE(o.active.empty());
}

TEST(Overrides, ARenamedSettingIsWarnedWithItsNewName) {
  const core::Overrides o = parse({"TRIDENT_KNN_CHUNKS=8"});
  ASSERT_EQ(o.warnings.size(), 1u);
  EXPECT_EQ(o.warnings[0], "TRIDENT_KNN_CHUNKS is not a trident setting and is ignored; did you mean TRIDENT_KNN_SLICES?");
  EXPECT_EQ(o.knn_slices, 0);
}

TEST(Overrides, EveryNameIsListedOnce) {
  const auto names = core::override_names();
  EXPECT_EQ(names.size(), 12u);
  for (std::size_t i = 0; i < names.size(); ++i)
    for (std::size_t j = i + 1; j < names.size(); ++j) EXPECT_NE(names[i], names[j]);
}

}  // namespace
}  // namespace trident
