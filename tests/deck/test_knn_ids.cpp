// knn point ids in the deck: csv `id` and hdf5 `ids` read, resolved and described (the
// checkpoint compares the description); absent by default; an empty name refused.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "deck/deck.hpp"
#include "support/study_decks.hpp"
#include "deck/reader.hpp"
#include "support/test_support.hpp"

namespace trident::deck {
namespace {

TEST(DeckKnnIds, CsvIdAndHdf5IdsAreReadAndDescribed) {
  const trident::test::StudyDeck d = trident::test::read_deck_text(
      "knn:\n"
      "  observations: {csv: {file: obs.csv, id: station}}\n"
      "  references: {hdf5: {file: refs.h5, dataset: /points, ids: /names}}\n",
      "t.yaml", "/decks");
  EXPECT_EQ(d.knn->observations.ids, "station");
  EXPECT_EQ(d.knn->observations.ids_key(), "knn.observations.csv.id");
  EXPECT_EQ(d.knn->observations.describe(), "csv(/decks/obs.csv, latitude=latitude, longitude=longitude, id=station)");
  EXPECT_EQ(d.knn->references.ids, "/names");
  EXPECT_EQ(d.knn->references.ids_key(), "knn.references.hdf5.ids");
  EXPECT_EQ(d.knn->references.describe(), "hdf5(/decks/refs.h5, dataset=/points, ids=/names)");
  const std::string resolved = resolved_text(d.source);
  EXPECT_NE(resolved.find("knn.observations.csv.id: station\n"), std::string::npos) << resolved;
  EXPECT_NE(resolved.find("knn.references.hdf5.ids: /names\n"), std::string::npos) << resolved;
}

TEST(DeckKnnIds, AbsentByDefaultWithTheDescriptionOfBefore) {
  const trident::test::StudyDeck d = trident::test::read_deck_text(
      "knn: {observations: {csv: {file: obs.csv}}, references: {hdf5: {file: r.h5, dataset: /p}}}\n", "t.yaml",
      "/decks");
  EXPECT_FALSE(d.knn->observations.has_ids());
  EXPECT_FALSE(d.knn->references.has_ids());
  EXPECT_EQ(d.knn->observations.describe(), "csv(/decks/obs.csv, latitude=latitude, longitude=longitude)");
  EXPECT_EQ(d.knn->references.describe(), "hdf5(/decks/r.h5, dataset=/p)");
}

TEST(DeckKnnIds, AnEmptyNameIsRefused) {
  EXPECT_EQ(test::input_error_message([] {
              trident::test::read_deck_text("knn: {observations: {csv: {file: o.csv, id: ''}}, references: {generate: {count: 2}}}\n",
                             "t.yaml", "/decks");
            }),
            "t.yaml:1:45: knn.observations.csv.id: expected a non-empty text value, got ''");
}

}  // namespace
}  // namespace trident::deck
