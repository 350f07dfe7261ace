// diffusion.halo_width at its limit: a halo as deep as the smallest block's side comes from
// the adjacent block alone and is accepted; one cell deeper is refused. A lone block whose
// trips read its periodic axes wrapped takes a shallower halo unless the deck sets one.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "diffusion/detail/decomposition.hpp"
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

TEST(DiffusionHaloWidthLimit, ALoneBlockReadingItsPeriodicAxesWrappedTakesAShallowHalo) {
  const diffusion::Decomposition grid(MPI_COMM_SELF, 2000, 300, {1, 1}, {true, false});
  EXPECT_EQ(diffusion::halo_width_for(grid, 0), 64);  // its own neighbour across x
  EXPECT_EQ(diffusion::halo_width_for(grid, 0, true), diffusion::kWrappedHaloWidth);
  EXPECT_EQ(diffusion::halo_width_for(grid, 32, true), 32);  // the deck's width
  const diffusion::Decomposition thin(MPI_COMM_SELF, 5, 300, {1, 1}, {true, true});
  EXPECT_EQ(diffusion::halo_width_for(thin, 0, true), 5);  // no deeper than the block
}

}  // namespace
}  // namespace trident
