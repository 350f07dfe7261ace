// knn.method: brute and index as asked; auto keeps the brute force for few references and
// takes the index for a catalogue, on either back end, and says which and why; in a run,
// an index that cannot fit the device's free memory is refused (index) or passed over
// (auto).
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "knn/detail/index/cost_model.hpp"
#include "knn/detail/run_method.hpp"

namespace trident::knn {
namespace {

TEST(KnnIndexMethod, AskedMethodsAreKept) {
  for (const bool device : {false, true}) {
    EXPECT_FALSE(choose_method(KnnMethod::brute, 1 << 24, 1 << 24, 16, device).use_index);
    EXPECT_TRUE(choose_method(KnnMethod::index, 16, 16, 1, device).use_index);
    EXPECT_EQ(choose_method(KnnMethod::brute, 1 << 24, 1 << 24, 16, device).reason, "brute (knn.method: brute)");
  }
}

TEST(KnnIndexMethod, AutoFollowsTheReferenceCount) {
  for (const bool device : {false, true}) {
    SCOPED_TRACE(device ? "device" : "host");
    const MethodChoice few = choose_method(KnnMethod::automatic, 1 << 20, 256, 16, device);
    EXPECT_FALSE(few.use_index);
    EXPECT_LT(few.brute_seconds, few.index_seconds);
    const MethodChoice catalogue = choose_method(KnnMethod::automatic, 1 << 20, 1 << 22, 16, device);
    EXPECT_TRUE(catalogue.use_index);
    EXPECT_LT(catalogue.index_seconds, catalogue.brute_seconds);
    EXPECT_EQ(catalogue.reason.rfind("index (knn.method: auto; estimated ", 0), 0u) << catalogue.reason;
    EXPECT_NE(catalogue.reason.find("1048576 x 4194304, k = 16"), std::string::npos) << catalogue.reason;
  }
}

TEST(KnnIndexMethod, ARunChecksTheIndexFitsTheDevice) {
  // 2^40 references: no machine's free memory holds their index (the counts alone are
  // weighed; nothing is allocated)
  const std::int64_t huge = std::int64_t(1) << 40;
  knn::KnnSettings settings;
  settings.k = 4;
  settings.method = knn::KnnMethod::index;
  try {
    choose_run_method(settings, 1 << 20, 1 << 20, huge, MPI_COMM_WORLD, "the test device");
    ADD_FAILURE() << "no error";
  } catch (const CollectiveError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("knn.method: index: the spatial index of 1099511627776 references and a batch of 65536 "
                            "observations with k = 4 needs ", 0), 0u) << message;
    EXPECT_NE(message.find(" of device memory but the test device has "), std::string::npos) << message;
    EXPECT_EQ(e.exit_code(), kExitBadInput);
  }
  settings.method = knn::KnnMethod::automatic;
  const RunMethod fallback = choose_run_method(settings, 1 << 20, 1 << 20, huge, MPI_COMM_WORLD, "the test device");
  EXPECT_FALSE(fallback.use_index);
  EXPECT_EQ(fallback.reason.rfind("brute (knn.method: auto; the spatial index of 1099511627776 references", 0), 0u)
      << fallback.reason;
  // a catalogue that fits and that the cost model gives the index on every back end (2^16
  // references would take the brute force on a GPU): the index
  const RunMethod fits = choose_run_method(settings, 1 << 20, 1 << 20, 1 << 22, MPI_COMM_WORLD, "the test device");
  EXPECT_TRUE(fits.use_index) << fits.reason;
}

}  // namespace
}  // namespace trident::knn
