// knn.method: brute and index as asked; auto keeps the brute force for few references and
// takes the index for a catalogue, on either back end, and says which and why.
#include <gtest/gtest.h>

#include "knn/index/method.hpp"

namespace trident::knn {
namespace {

TEST(KnnIndexMethod, AskedMethodsAreKept) {
  for (const bool device : {false, true}) {
    EXPECT_FALSE(choose_method("brute", 1 << 24, 1 << 24, 16, device).use_index);
    EXPECT_TRUE(choose_method("index", 16, 16, 1, device).use_index);
    EXPECT_EQ(choose_method("brute", 1 << 24, 1 << 24, 16, device).reason, "brute (knn.method: brute)");
  }
}

TEST(KnnIndexMethod, AutoFollowsTheReferenceCount) {
  for (const bool device : {false, true}) {
    SCOPED_TRACE(device ? "device" : "host");
    const MethodChoice few = choose_method("auto", 1 << 20, 256, 16, device);
    EXPECT_FALSE(few.use_index);
    EXPECT_LT(few.brute_seconds, few.index_seconds);
    const MethodChoice catalogue = choose_method("auto", 1 << 20, 1 << 22, 16, device);
    EXPECT_TRUE(catalogue.use_index);
    EXPECT_LT(catalogue.index_seconds, catalogue.brute_seconds);
    EXPECT_EQ(catalogue.reason.rfind("index (knn.method: auto; estimated ", 0), 0u) << catalogue.reason;
    EXPECT_NE(catalogue.reason.find("1048576 x 4194304, k = 16"), std::string::npos) << catalogue.reason;
  }
}

}  // namespace
}  // namespace trident::knn
