// Limits that are themselves allowed: the stability limit c = 0.25 (the tutorial's c) and k
// equal to the number of references. The values just past them are refused.
#include <gtest/gtest.h>

#include "deck/deck.hpp"
#include "support/study_decks.hpp"
#include "support/test_support.hpp"

namespace trident::deck {
namespace {

trident::test::StudyDeck read(const std::string& text) { return trident::test::read_deck_text(text, "t.yaml", "/decks"); }

std::string error_of(const std::string& text) {
  return test::input_error_message([&] { read(text); });
}

TEST(DeckInclusiveLimits, CAtTheStabilityLimitIsAccepted) {
  EXPECT_EQ(read("diffusion: {nx: 4, ny: 3, steps: 2, c: 0.25}\n").diffusion->c, 0.25);
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, c: 0.25000000000000006}\n"),
            "t.yaml:1:40: diffusion.c: must be at most 0.25, the stability limit of the explicit scheme, got "
            "0.25000000000000006");
}

TEST(DeckInclusiveLimits, KEqualToTheReferenceCountIsAccepted) {
  const std::string points = "observations: {generate: {count: 3}}, references: {generate: {count: 5}}";
  EXPECT_EQ(read("knn: {k: 5, " + points + "}\n").knn->k, 5);
  EXPECT_EQ(error_of("knn: {k: 6, " + points + "}\n"),
            "t.yaml:1:10: knn.k: expected at most the number of references (5), got 6");
}

}  // namespace
}  // namespace trident::deck
