// exact_text: the text checkpoints compare deck values by reads back as the same double, so
// two decks that differ in the last bit of a value are told apart.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>

#include "io/exact_text.hpp"

namespace trident::io {
namespace {

double read_back(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

TEST(ExactText, EveryDoubleReadsBackTheSame) {
  const double hard[] = {0.1 + 0.2, 1.0 / 3.0, 6371008.8, 0.25, 5e-324, std::numeric_limits<double>::max(),
                         std::nextafter(0.3, 1.0), std::nextafter(1.0, 0.0), 1e-6 * (1 + 1e-15)};
  for (const double v : hard) EXPECT_EQ(read_back(exact_text(v)), v) << exact_text(v);
  std::mt19937_64 random(65);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (int i = 0; i < 10000; ++i) {
    const double v = std::ldexp(uniform(random), static_cast<int>(random() % 200) - 100);
    ASSERT_EQ(read_back(exact_text(v)), v) << exact_text(v);
  }
}

TEST(ExactText, NeighbouringValuesGiveDifferentTexts) {
  EXPECT_NE(exact_text(0.1 + 0.2), exact_text(0.3));
  EXPECT_EQ(exact_text(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(exact_text(0.25), "0.25");  // no trailing digits where none are needed
}

}  // namespace
}  // namespace trident::io
