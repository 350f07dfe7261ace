#pragma once
// The tests' view of a deck: read with the section readers of the studies this test
// program links (as the table of studies reads them, app/study_table.cpp), each study's
// settings kept typed. A test folder links its own study alone, so the others' sections are
// unknown keys there.
#include <optional>
#include <string>
#include <vector>

#include "deck/deck.hpp"
#if __has_include("diffusion/settings.hpp")
#include "diffusion/settings.hpp"
#define TRIDENT_TEST_DIFFUSION 1
#endif
#if __has_include("knn/settings.hpp")
#include "knn/settings.hpp"
#define TRIDENT_TEST_KNN 1
#endif
#if __has_include("ridge/settings.hpp")
#include "ridge/settings.hpp"
#define TRIDENT_TEST_RIDGE 1
#endif

namespace trident::test {

struct StudyDeck {
  deck::Source source;
  deck::OutputSettings output;
#ifdef TRIDENT_TEST_DIFFUSION
  std::optional<diffusion::DiffusionSettings> diffusion;
#endif
#ifdef TRIDENT_TEST_KNN
  std::optional<knn::KnnSettings> knn;
#endif
#ifdef TRIDENT_TEST_RIDGE
  std::optional<ridge::RidgeSettings> ridge;
#endif
};

namespace detail {
inline std::vector<deck::SectionReader> readers(StudyDeck& d) {
  std::vector<deck::SectionReader> r;
#ifdef TRIDENT_TEST_DIFFUSION
  r.push_back({"diffusion", [&d](const deck::Section& top) { d.diffusion = diffusion::parse_diffusion(top); }});
#endif
#ifdef TRIDENT_TEST_KNN
  r.push_back({"knn", [&d](const deck::Section& top) { d.knn = knn::parse_knn(top); }});
#endif
#ifdef TRIDENT_TEST_RIDGE
  r.push_back({"ridge", [&d](const deck::Section& top) { d.ridge = ridge::parse_ridge(top); }});
#endif
  (void)d;
  return r;
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
