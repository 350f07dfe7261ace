// The block line reader: the same lines as std::getline, whatever the block size.
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "io/text_lines.hpp"

namespace trident::io {
namespace {

std::vector<std::string> all_lines(const std::string& text, std::size_t block) {
  std::istringstream in(text);
  TextLines lines([&in](char* buffer, std::size_t capacity) -> std::size_t {
    in.read(buffer, static_cast<std::streamsize>(capacity));
    return static_cast<std::size_t>(in.gcount());
  }, block);
  std::vector<std::string> out;
  std::string_view line;
  while (lines.next(line)) {
    out.emplace_back(line);
    EXPECT_EQ(lines.line_number(), static_cast<std::int64_t>(out.size()));
  }
  EXPECT_FALSE(lines.next(line));  // and stays at the end
  return out;
}

std::vector<std::string> getline_lines(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(TextLines, KeepsCarriageReturnsAndTheLastLineWithoutNewline) {
  EXPECT_EQ(all_lines("a\n\nbcdefghijklmnopq\r\nlast", 4),
            (std::vector<std::string>{"a", "", "bcdefghijklmnopq\r", "last"}));
  EXPECT_EQ(all_lines("one\ntwo\n", 3), (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ(all_lines("", 8), std::vector<std::string>{});
  EXPECT_EQ(all_lines("\n", 1), std::vector<std::string>{""});
}

TEST(TextLines, MatchesGetlineForRandomTextAndBlockSizes) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    std::string text;
    const int lines = std::uniform_int_distribution<int>(0, 30)(rng);
    for (int i = 0; i < lines; ++i) {
      text += std::string(std::uniform_int_distribution<std::size_t>(0, 40)(rng), char('a' + i % 26));
      if (i + 1 < lines || rng() % 2) text += '\n';
    }
    const std::size_t block = std::uniform_int_distribution<std::size_t>(1, 17)(rng);
    ASSERT_EQ(all_lines(text, block), getline_lines(text)) << "block " << block << " text '" << text << "'";
  }
}

TEST(TextLines, OpenFileSaysNoForAMissingFile) {
  EXPECT_FALSE(TextLines::open_file("/no/such/folder/file.txt").has_value());
}

}  // namespace
}  // namespace trident::io
