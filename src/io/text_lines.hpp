#pragma once
// Reads text (a file or a stream) in large blocks and hands out its lines as views into
// the block, so parsers touch each byte once and build no std::string per line. Lines
// end at '\n'; a last line without one is still a line; a '\r' before the '\n' is kept
// (as std::getline keeps it), so messages that quote a line show it as it was.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trident::io {

class TextLines {
 public:
  // `fill(buffer, capacity)` copies up to `capacity` bytes of the input into `buffer` and
  // returns how many; 0 means the input is exhausted.
  using Fill = std::function<std::size_t(char*, std::size_t)>;
  explicit TextLines(Fill fill, std::size_t block_bytes = std::size_t(1) << 20);

  // Reads a file; nothing when it cannot be opened. The file is closed with the reader.
  static std::optional<TextLines> open_file(const std::string& path);
  // Reads from a stream (tests, and callers that already hold one).
  static TextLines from_stream(std::istream& in);

  TextLines(TextLines&&) = default;  // the buffer's storage, and so the views, move along

  // The next line, without its '\n'; false at the end of the input. The view stays valid
  // until the next call.
  bool next(std::string_view& line) {
    const char* end = static_cast<const char*>(std::memchr(begin_, '\n', size_t(end_ - begin_)));
    if (end == nullptr) return next_slow(line);
    line = std::string_view(begin_, std::size_t(end - begin_));
    begin_ = end + 1;
    ++line_number_;
    return true;
  }

  // 1-based number of the line last returned (0 before the first).
  std::int64_t line_number() const { return line_number_; }

 private:
  bool next_slow(std::string_view& line);

  Fill fill_;
  std::vector<char> buffer_;
  const char* begin_ = nullptr;  // unread bytes: [begin_, end_)
  const char* end_ = nullptr;
  bool exhausted_ = false;
  std::int64_t line_number_ = 0;
};

}  // namespace trident::io
