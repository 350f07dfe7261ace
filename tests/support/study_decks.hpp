#pragma once
// The tests' view of a deck: read with the three studies' section readers (as the table of
// studies reads it, app/study_table.cpp), each study's settings kept typed.
#include <optional>
#include <string>

#include "deck/deck.hpp"
#include "deck/diffusion_settings.hpp"
#include "deck/knn_settings.hpp"
#include "deck/ridge_settings.hpp"

namespace trident::test {

struct StudyDeck {
  deck::Source source;
  deck::OutputSettings output;
  std::optional<deck::DiffusionSettings> diffusion;
  std::optional<deck::KnnSettings> knn;
  std::optional<deck::RidgeSettings> ridge;
};

namespace detail {
inline std::vector<deck::SectionReader> readers(StudyDeck& d) {
  return {{"diffusion", [&d](const deck::Section& top) { d.diffusion = deck::parse_diffusion(top); }},
          {"knn", [&d](const deck::Section& top) { d.knn = deck::parse_knn(top); }},
          {"ridge", [&d](const deck::Section& top) { d.ridge = deck::parse_ridge(top); }}};
}
inline StudyDeck with(StudyDeck d, deck::Deck read) {
  d.source = std::move(read.source);
  d.output = read.output;
  return d;
}
}  // namespace detail

inline StudyDeck read_deck_text(const std::string& text, const std::string& file, const std::string& folder) {
  StudyDeck d;
  deck::Deck read = deck::read_deck_text(text, file, folder, detail::readers(d));
  return detail::with(std::move(d), std::move(read));
}

inline StudyDeck read_deck(const std::string& path) {
  StudyDeck d;
  deck::Deck read = deck::read_deck(path, detail::readers(d));
  return detail::with(std::move(d), std::move(read));
}

}  // namespace trident::test
