// Keys given twice and second YAML documents: refused with exact messages, before any
// other check of the deck, wherever they are.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "deck/deck.hpp"
#include "support/study_decks.hpp"
#include "support/test_support.hpp"

namespace trident::deck {
namespace {

std::string error_of(const std::string& text) {
  return test::input_error_message([&] { trident::test::read_deck_text(text, "t.yaml", "/decks"); });
}

TEST(DeckDuplicateKeys, BlockStyleInASection) {
  EXPECT_EQ(error_of("diffusion:\n  nx: 8\n  nx: 9\n  ny: 8\n  steps: 1\n"),
            "t.yaml:3:3: diffusion.nx: the key is given twice (first at line 2, column 3); keep one");
}

TEST(DeckDuplicateKeys, FlowStyleInASection) {
  EXPECT_EQ(error_of("diffusion: {nx: 8, nx: 9, ny: 8, steps: 1}\n"),
            "t.yaml:1:20: diffusion.nx: the key is given twice (first at line 1, column 13); keep one");
}

TEST(DeckDuplicateKeys, QuotedAndPlainSpellingsAreOneKey) {
  EXPECT_EQ(error_of("diffusion: {nx: 8, 'nx': 9, ny: 8, steps: 1}\n"),
            "t.yaml:1:20: diffusion.nx: the key is given twice (first at line 1, column 13); keep one");
}

TEST(DeckDuplicateKeys, TopLevelSection) {
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2}\n"
                     "output: {file: a.h5}\n"
                     "diffusion: {nx: 5, ny: 3, steps: 2}\n"),
            "t.yaml:3:1: diffusion: the key is given twice (first at line 1, column 1); keep one");
}

TEST(DeckDuplicateKeys, DeepInsideNestedFlowMappings) {
  EXPECT_EQ(error_of("knn:\n"
                     "  observations: {generate: {count: 4, seed: 1, count: 40}}\n"
                     "  references: {generate: {count: 4}}\n"),
            "t.yaml:2:48: knn.observations.generate.count: the key is given twice (first at line 2, "
            "column 29); keep one");
}

TEST(DeckDuplicateKeys, MappingInsideAListIsNamedByIndex) {
  EXPECT_EQ(error_of("ridge:\n"
                     "  matrix: {generate: {rows: 10, columns: 8, density: 0.5}}\n"
                     "  lambdas:\n"
                     "    - 0.1\n"
                     "    - {geomspace: [1, 10, 3], geomspace: [1, 100, 3]}\n"),
            "t.yaml:5:31: ridge.lambdas[1].geomspace: the key is given twice (first at line 5, "
            "column 8); keep one");
}

TEST(DeckDuplicateKeys, NullKeysAreOneKey) {
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2}\n~: 1\nnull: 2\n"),
            "t.yaml:3:1: ~: the key is given twice (first at line 2, column 1); keep one");
}

TEST(DeckDuplicateKeys, ComeBeforeEveryOtherCheck) {
  // Out of bounds, an unknown key and a missing one, all before the repeated key in
  // the text: the repeated key is still what the message names.
  EXPECT_EQ(error_of("diffusion: {nx: -1, bogus: 1, nx: 9}\n"),
            "t.yaml:1:31: diffusion.nx: the key is given twice (first at line 1, column 13); keep one");
  EXPECT_EQ(error_of("bogus: 1\nridge: {lambdas: [1], lambdas: [2]}\n"),
            "t.yaml:2:23: ridge.lambdas: the key is given twice (first at line 2, column 9); keep one");
}

TEST(DeckDuplicateKeys, TheFirstRepeatInTheTextIsNamed) {
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, start: {seed: 1, seed: 2}}\n"
                     "diffusion: {nx: 4, ny: 3, steps: 2}\n"),
            "t.yaml:1:54: diffusion.start.seed: the key is given twice (first at line 1, column 45); "
            "keep one");
}

TEST(DeckDuplicateKeys, AnAliasIsNotARepeat) {
  // One point set used twice through an anchor: the same mapping, no key given twice.
  const trident::test::StudyDeck d = trident::test::read_deck_text(
      "knn:\n"
      "  observations: &points {generate: {count: 4, seed: 3}}\n"
      "  references: *points\n",
      "t.yaml", "/decks");
  ASSERT_TRUE(d.knn.has_value());
  EXPECT_EQ(d.knn->references.count, 4);
  EXPECT_EQ(d.knn->references.seed, 3u);
}

TEST(DeckDuplicateKeys, ARepeatBehindAnAliasIsFoundOnce) {
  EXPECT_EQ(error_of("knn:\n"
                     "  observations: &points {generate: {count: 4, count: 5}}\n"
                     "  references: *points\n"),
            "t.yaml:2:47: knn.observations.generate.count: the key is given twice (first at line 2, "
            "column 37); keep one");
}

TEST(DeckDuplicateKeys, AliasesOfAliasesAreWalkedOnce) {
  // 20 levels of 10 aliases each would be 10^20 mappings if every alias were walked again.
  std::string text = "l0: &l0 {a: 1}\n";
  for (int level = 1; level <= 20; ++level) {
    const std::string previous = "*l" + std::to_string(level - 1);
    text += "l" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) text += (i ? ", " : "") + previous;
    text += "]\n";
  }
  EXPECT_EQ(error_of(text), "t.yaml:1:1: l0: unknown key; expected one of: output, diffusion, knn, ridge");
}

TEST(DeckDocuments, ASecondDocumentIsRefused) {
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2}\n"
                     "---\n"
                     "knn: {observations: {generate: {count: 4}}, references: {generate: {count: 4}}}\n"),
            "t.yaml:2:1: a second YAML document starts here; a deck is one document, so put all its "
            "sections in the first (without '---' between them)");
}

TEST(DeckDocuments, ADocumentAfterAnEndMarkerIsRefused) {
  EXPECT_EQ(error_of("# heat\ndiffusion: {nx: 4, ny: 3, steps: 2}\n...\n# more\nknn: {k: 1}\n"),
            "t.yaml:5:1: a second YAML document starts here; a deck is one document, so put all its "
            "sections in the first (without '---' between them)");
}

TEST(DeckDocuments, AnEmptySecondDocumentIsRefused) {
  // Nothing but a comment after `---` is still a second document: most likely a section
  // that was meant to run.
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2}\n---\n# knn: {k: 1}\n"),
            "t.yaml:2:1: a second YAML document starts here; a deck is one document, so put all its "
            "sections in the first (without '---' between them)");
}

TEST(DeckDocuments, ASecondDocumentIsNamedBeforeItsOwnMistakes) {
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2}\n--- \nknn: [1,\n"),
            "t.yaml:2:1: a second YAML document starts here; a deck is one document, so put all its "
            "sections in the first (without '---' between them)");
}

TEST(DeckDocuments, LeadingStartAndTrailingEndMarkersAreOneDocument) {
  const trident::test::StudyDeck d = trident::test::read_deck_text("%YAML 1.2\n---\ndiffusion: {nx: 4, ny: 3, steps: 2}\n...\n", "t.yaml",
                                "/decks");
  ASSERT_TRUE(d.diffusion.has_value());
  EXPECT_EQ(d.diffusion->nx, 4);
  const trident::test::StudyDeck plain = trident::test::read_deck_text("---\ndiffusion: {nx: 5, ny: 3, steps: 2}\n", "t.yaml", "/decks");
  EXPECT_EQ(plain.diffusion->nx, 5);
}

}  // namespace
}  // namespace trident::deck
