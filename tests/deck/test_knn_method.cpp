// knn.method: auto by default, brute or index when given, anything else refused naming the
// key and the values it takes.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "deck/deck.hpp"
#include "support/study_decks.hpp"
#include "support/test_support.hpp"

namespace trident::deck {
namespace {

const std::string kPoints =
    "observations: {generate: {count: 8}}, references: {generate: {count: 8}}";

TEST(DeckKnnMethod, DefaultsToAutoAndTakesBruteOrIndex) {
  EXPECT_EQ(trident::test::read_deck_text("knn: {" + kPoints + "}\n", "t.yaml", "/decks").knn->method, knn::KnnMethod::automatic);
  for (const std::string method : {"auto", "brute", "index"}) {
    const trident::test::StudyDeck d = trident::test::read_deck_text("knn: {method: " + method + ", " + kPoints + "}\n", "t.yaml", "/decks");
    EXPECT_EQ(knn::method_name(d.knn->method), method);
  }
}

TEST(DeckKnnMethod, OtherValuesAreRefused) {
  const std::string message = test::input_error_message(
      [&] { trident::test::read_deck_text("knn: {method: tree, " + kPoints + "}\n", "t.yaml", "/decks"); });
  EXPECT_EQ(message, "t.yaml:1:15: knn.method: expected one of auto, brute or index, got 'tree'");
}

}  // namespace
}  // namespace trident::deck
