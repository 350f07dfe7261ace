// Values at the edges of double and int64 that the deck fuzz test (tests/cli/deck_fuzz.py)
// found mishandled: each is now either read correctly or refused with a message.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "deck/deck.hpp"
#include "support/study_decks.hpp"
#include "support/test_support.hpp"

namespace trident::deck {
namespace {

trident::test::StudyDeck read(const std::string& text) { return trident::test::read_deck_text(text, "t.yaml", "/decks"); }

std::string error_of(const std::string& text) {
  return test::input_error_message([&] { read(text); });
}

const std::string kMatrix = "ridge:\n  matrix: {generate: {rows: 20, columns: 10, density: 0.5}}\n";

TEST(DeckValueLimits, SubnormalNumbersAreNumbers) {
  // std::stod throws on underflow: 1e-310 was refused as "expected a number greater than 0".
  EXPECT_EQ(read("diffusion: {nx: 4, ny: 3, steps: 2, c: 1e-310}\n").diffusion->c, 1e-310);
  // Below the smallest subnormal the number is 0, and refused as such.
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, c: 1e-400}\n"),
            "t.yaml:1:40: diffusion.c: expected a number greater than 0, got '1e-400'");
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, c: 1e400}\n"),
            "t.yaml:1:40: diffusion.c: expected a number greater than 0, got '1e400'");
}

TEST(DeckValueLimits, GeomspaceWithFarApartEndsStaysFinite) {
  // high / low = 1e400 overflowed and made the middle value infinite.
  const std::vector<double> l = read(kMatrix + "  lambdas: {geomspace: [1e-200, 1e200, 3]}\n").ridge->lambdas;
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0], 1e-200);
  EXPECT_NEAR(l[1], 1.0, 1e-12);
  EXPECT_EQ(l[2], 1e200);
  const std::vector<double> widest =
      read(kMatrix + "  lambdas: {geomspace: [4.9e-324, 1.7e308, 5]}\n").ridge->lambdas;
  ASSERT_EQ(widest.size(), 5u);
  for (std::size_t i = 1; i < widest.size(); ++i) {
    EXPECT_TRUE(std::isfinite(widest[i]));
    EXPECT_LT(widest[i - 1], widest[i]);
  }
}

TEST(DeckValueLimits, GeomspaceOfOrdinaryRangesKeepsItsValuesBitForBit) {
  const std::vector<double> l = read(kMatrix + "  lambdas: {geomspace: [0.1, 5000, 10]}\n").ridge->lambdas;
  ASSERT_EQ(l.size(), 10u);
  for (std::size_t i = 0; i + 1 < l.size(); ++i) EXPECT_EQ(l[i], 0.1 * std::pow(5000 / 0.1, double(i) / 9));
}

TEST(DeckValueLimits, RankLayoutBeyondAnIntIsRefused) {
  // 7 x 7905747460161236407 wraps around to 1 in 64-bit integers: it matched a 1-rank job
  // and MPI_Cart_create aborted with a half-written output left behind.
  EXPECT_EQ(error_of("diffusion: {nx: 16, ny: 16, steps: 2, ranks: [7, 7905747460161236407]}\n"),
            "t.yaml:1:46: diffusion.ranks: expected at most 2147483647 ranks in all, got 7 x "
            "7905747460161236407");
  EXPECT_EQ(error_of("diffusion: {nx: 16, ny: 16, steps: 2, ranks: [65536, 32768]}\n"),
            "t.yaml:1:46: diffusion.ranks: expected at most 2147483647 ranks in all, got 65536 x 32768");
  EXPECT_EQ(read("diffusion: {nx: 16, ny: 16, steps: 2, ranks: [65535, 32768]}\n").diffusion->ranks[0], 65535);
}

TEST(DeckValueLimits, GridsBeyond2To53CellsAreRefused) {
  // 2^32 x 2^32 cells wrapped around to a 64 GiB allocation for a 2^66-byte field.
  EXPECT_EQ(error_of("diffusion: {nx: 4294967296, ny: 4294967296, steps: 1}\n"),
            "t.yaml:1:33: diffusion.ny: expected nx x ny at most 2^53 cells, got 4294967296 x 4294967296");
  EXPECT_EQ(read("diffusion: {nx: 9007199254740992, ny: 1, steps: 1}\n").diffusion->nx, 9007199254740992);
  EXPECT_EQ(error_of("diffusion: {nx: 9007199254740992, ny: 2, steps: 1}\n"),
            "t.yaml:1:39: diffusion.ny: expected nx x ny at most 2^53 cells, got 9007199254740992 x 2");
}

}  // namespace
}  // namespace trident::deck
