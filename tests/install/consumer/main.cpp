// The consumer of an installed trident (tests/install/install_consumer.sh): reads a deck from
// text (trident::deck), refuses a bad one with trident's own error, and measures a great-circle
// distance (trident::knn), printing what the test compares.
#include <cstdio>
#include <vector>

#include "core/error.hpp"
#include "deck/deck.hpp"
#include "diffusion/settings.hpp"
#include "knn/detail/geometry.hpp"
#include "trident/version.hpp"

int main() {
  // the deck reader with one section reader: the diffusion study's
  trident::diffusion::DiffusionSettings diffusion;
  const std::vector<trident::deck::SectionReader> readers = {
      {"diffusion", [&](const trident::deck::Section& top) { diffusion = trident::diffusion::parse_diffusion(top); }}};
  trident::deck::read_deck_text("diffusion: {nx: 48, ny: 40, steps: 20, output_every: 10}\n", "consumer.yaml", ".",
                                readers);
  std::printf("trident %s\n", TRIDENT_VERSION);
  std::printf("deck: diffusion %lld x %lld cells, %lld steps\n", static_cast<long long>(diffusion.nx),
              static_cast<long long>(diffusion.ny), static_cast<long long>(diffusion.steps));
  try {
    trident::deck::read_deck_text("diffusion: {nx: 48, ny: 40, steps: -3}\n", "bad.yaml", ".", readers);
    std::printf("bad deck: accepted\n");
  } catch (const trident::InputError&) {
    std::printf("bad deck: InputError\n");
  }
  // London (51.5074 N, 0.1278 W) to Paris (48.8566 N, 2.3522 E) on a sphere of 6371 km.
  const auto london = trident::knn::unit_vector(51.5074, -0.1278);
  const auto paris = trident::knn::unit_vector(48.8566, 2.3522);
  std::printf("London-Paris: %.2f km\n", trident::knn::great_circle_angle(london, paris) * 6371.0);
  return 0;
}
