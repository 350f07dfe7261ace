// deck::Section and read_deck_text: typed values, defaults, bounds and the exact messages.
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

TEST(DeckReader, DefaultsAndResolvedPaths) {
  const trident::test::StudyDeck d = trident::test::read_deck_text("diffusion: {nx: 4, ny: 3, steps: 2}\n", "decks/heat.yaml", "decks");
  ASSERT_TRUE(d.diffusion.has_value());
  EXPECT_FALSE(d.knn.has_value());
  EXPECT_EQ(d.output.file, "heat.h5");  // named after the deck, in the working folder
  EXPECT_FALSE(d.output.overwrite);
  EXPECT_EQ(d.diffusion->nx, 4);
  EXPECT_EQ(d.diffusion->ny, 3);
  EXPECT_DOUBLE_EQ(d.diffusion->c, 0.25);
  EXPECT_EQ(d.diffusion->precision, core::Precision::float32);
  EXPECT_EQ(d.diffusion->start.kind, diffusion::StartField::Kind::jagged);
  EXPECT_DOUBLE_EQ(d.diffusion->start.exponent, 1.7);
  EXPECT_DOUBLE_EQ(d.diffusion->start.percentile, 70.0);
}

TEST(DeckReader, FileKeysAreRelativeToTheDeck) {
  const trident::test::StudyDeck d = trident::test::read_deck_text(
      "output: {file: out/r.h5, overwrite: yes}\n"
      "diffusion: {nx: 4, ny: 3, steps: 2, start: {kind: file, file: u0.h5, dataset: /u}}\n",
      "/x/d.yaml", "/x");
  EXPECT_EQ(d.output.file, "/x/out/r.h5");
  EXPECT_TRUE(d.output.overwrite);
  EXPECT_EQ(d.diffusion->start.file, "/x/u0.h5");
  const trident::test::StudyDeck absolute = trident::test::read_deck_text(
      "diffusion: {nx: 4, ny: 3, steps: 2, start: {kind: file, file: /data/u0.h5, dataset: /u}}\n",
      "/x/d.yaml", "/x");
  EXPECT_EQ(absolute.diffusion->start.file, "/data/u0.h5");
}

TEST(DeckReader, ExactMessages) {
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, c: 0.2500001}\n"),
            "t.yaml:1:40: diffusion.c: must be at most 0.25, the stability limit of the explicit scheme, "
            "got 0.2500001");
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, c: 0}\n"),
            "t.yaml:1:40: diffusion.c: expected a number greater than 0, got '0'");
  EXPECT_EQ(error_of("diffusion: {nx: 4.5, ny: 3, steps: 2}\n"),
            "t.yaml:1:17: diffusion.nx: expected an integer at least 1, got '4.5'");
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, laplacian: maybe}\n"),
            "t.yaml:1:48: diffusion.laplacian: expected true or false, got 'maybe'");
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, halo_width: 0}\n"),
            "t.yaml:1:49: diffusion.halo_width: expected an integer at least 1, got '0'");
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, ranks: [2]}\n"),
            "t.yaml:1:44: diffusion.ranks: expected a list of 2 numbers, each at least 1, got a list");
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, start: {kind: gaussian, centre: [0.5, 2]}}\n"),
            "t.yaml:1:75: diffusion.start.centre: expected a list of 2 numbers, each between 0 and 1, got '2' "
            "in the list");
  EXPECT_EQ(error_of("diffusion: [1, 2]\n"),
            "t.yaml:1:12: diffusion: expected a mapping of keys (nx, ny, steps, c, D, dt, dx, dy, origin, time_unit, length_unit, precision, "
            "laplacian, output_every, checkpoint_every, checkpoint_file, ranks, halo_width, start, boundary, source), got a list");
  EXPECT_EQ(error_of("output: {fille: a.h5}\ndiffusion: {nx: 4, ny: 3, steps: 2}\n"),
            "t.yaml:1:10: output.fille: unknown key; did you mean 'file'?");
  EXPECT_EQ(error_of("- 1\n- 2\n"),
            "t.yaml: expected a YAML mapping with at least one of the sections diffusion, knn, ridge");
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, dt: .nan}\n"),
            "t.yaml:1:41: diffusion.dt: expected a number greater than 0, got '.nan'");
}

TEST(DeckReader, ClosestKeySuggestion) {
  const std::vector<std::string> known{"nx", "ny", "steps", "checkpoint_every", "output_every"};
  EXPECT_EQ(closest("stpes", known), "steps");
  EXPECT_EQ(closest("checkpoint_evry", known), "checkpoint_every");
  EXPECT_EQ(closest("outptu_every", known), "output_every");
  EXPECT_EQ(closest("banana", known), "");
}

TEST(DeckReader, BoundsDescribeThemselves) {
  EXPECT_EQ(at_least(1).describe(), "at least 1");
  EXPECT_EQ(greater_than(0).describe(), "greater than 0");
  EXPECT_EQ(between(0, 100).describe(), "between 0 and 100");
  EXPECT_EQ(any().describe(), "");
  EXPECT_TRUE(between(0, 1).contains(1.0));
  EXPECT_FALSE(greater_than(0).contains(0.0));
}

}  // namespace
}  // namespace trident::deck
