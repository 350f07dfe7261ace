// diffusion.halo_width at its limit: a halo as deep as the smallest block's side comes from
// the adjacent block alone and is accepted; one cell deeper is refused.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "diffusion/detail/halo.hpp"

namespace trident {
namespace {

TEST(DiffusionHaloWidthLimit, AsDeepAsTheSmallestBlockIsAccepted) {
  EXPECT_EQ(diffusion::halo_width_for({2, 1}, 37, 29, 18), 18);  // 37 / 2: blocks of 19 and 18 columns
  EXPECT_EQ(diffusion::halo_width_for({2, 2}, 100, 90, 45), 45);  // blocks of 50 x 45
  EXPECT_THROW(diffusion::halo_width_for({2, 1}, 37, 29, 19), InputError);
  EXPECT_THROW(diffusion::halo_width_for({2, 2}, 100, 90, 46), InputError);
  EXPECT_EQ(diffusion::halo_width_for({1, 1}, 3, 3, 50), 1);  // one block: no halo to exchange
}

}  // namespace
}  // namespace trident
