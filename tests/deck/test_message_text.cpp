// Messages stay one readable line whatever the deck holds: control characters escaped,
// long values cut, keys that are not names refused as such (found by the deck fuzz test).
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

TEST(DeckMessageText, ControlCharactersInValuesAreEscaped) {
  // A NUL used to end the message early ("got 'float32"), a newline to split it in two.
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, precision: \"float32\\0x\"}\n"),
            "t.yaml:1:48: diffusion.precision: expected one of float32 or float64, got 'float32\\x00x'; did you mean 'float32'?");
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, precision: \"a\\nb\\tc\"}\n"),
            "t.yaml:1:48: diffusion.precision: expected one of float32 or float64, got 'a\\nb\\tc'");
}

TEST(DeckMessageText, ControlCharactersInYamlErrorsAreEscaped) {
  // yaml-cpp 0.7 names the character after a NUL in its message ("unknown escape
  // character: " and a raw newline); other versions word it differently.
  const std::string text = std::string("diffusion: {nx: 4, ny: 3, steps: 2}") + '\0' + "\n";
  const std::string message = error_of(text);
  EXPECT_EQ(message.find_first_of(std::string("\n\r\t") + '\0'), std::string::npos) << message;
}

TEST(DeckMessageText, LongValuesAreCut) {
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, precision: " + std::string(4096, 'x') + "}\n"),
            "t.yaml:1:48: diffusion.precision: expected one of float32 or float64, got '" +
                std::string(60, 'x') + "...'");
  // Cut before a letter of several bytes, not inside it.
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, precision: " + std::string(59, 'x') +
                     "\xc3\xa9" + std::string(30, 'e') + "}\n"),
            "t.yaml:1:48: diffusion.precision: expected one of float32 or float64, got '" +
                std::string(59, 'x') + "...'");
  // Up to 80 bytes are shown whole.
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, precision: " + std::string(80, 'y') + "}\n"),
            "t.yaml:1:48: diffusion.precision: expected one of float32 or float64, got '" +
                std::string(80, 'y') + "'");
}

TEST(DeckMessageText, KeysThatAreNotNamesAreRefusedAsSuch) {
  // These used to read "diffusion.: unknown key; did you mean 'c'?".
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, [1]: 1}\n"),
            "t.yaml:1:37: diffusion: expected a key name, got a list");
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, {a: 1}: 1}\n"),
            "t.yaml:1:37: diffusion: expected a key name, got a mapping");
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, ~: 1}\n"),
            "t.yaml:1:37: diffusion: expected a key name, got an empty key");
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, '': 1}\n"),
            "t.yaml:1:37: diffusion: expected a key name, got an empty key");
  EXPECT_EQ(error_of("? [a]\n: 1\n"), "t.yaml:1:3: deck: expected a key name, got a list");
  EXPECT_EQ(error_of("diffusion: {nx: 4, ny: 3, steps: 2, \"st\\teps\": 1}\n"),
            "t.yaml:1:37: diffusion.st\\teps: unknown key; did you mean 'steps'?");
}

}  // namespace
}  // namespace trident::deck
