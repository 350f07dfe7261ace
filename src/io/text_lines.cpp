#include "io/text_lines.hpp"

#include <cstdio>
#include <memory>

namespace trident::io {

TextLines::TextLines(Fill fill, std::size_t block_bytes) : fill_(std::move(fill)), buffer_(block_bytes) {
  begin_ = end_ = buffer_.data();
}

std::optional<TextLines> TextLines::open_file(const std::string& path) {
  std::shared_ptr<std::FILE> file(std::fopen(path.c_str(), "rb"), [](std::FILE* f) {
    if (f != nullptr) std::fclose(f);
  });
  if (!file) return std::nullopt;
  std::setvbuf(file.get(), nullptr, _IONBF, 0);  // our blocks are the buffer
  return TextLines([file](char* buffer, std::size_t capacity) {
    return std::fread(buffer, 1, capacity, file.get());
  });
}

TextLines TextLines::from_stream(std::istream& in) {
  return TextLines([&in](char* buffer, std::size_t capacity) -> std::size_t {
    in.read(buffer, static_cast<std::streamsize>(capacity));
    return static_cast<std::size_t>(in.gcount());
  });
}

// No '\n' among the unread bytes: move them to the front, read more (growing the buffer
// for a line longer than it), and look again; at the end of the input the rest is the
// last line.
bool TextLines::next_slow(std::string_view& line) {
  while (!exhausted_) {
    const std::size_t kept = std::size_t(end_ - begin_);
    if (begin_ != buffer_.data()) std::memmove(buffer_.data(), begin_, kept);
    if (kept == buffer_.size()) buffer_.resize(2 * buffer_.size());
    const std::size_t got = fill_(buffer_.data() + kept, buffer_.size() - kept);
    begin_ = buffer_.data();
    end_ = begin_ + kept + got;
    if (got == 0) {
      exhausted_ = true;
      break;
    }
    const char* newline = static_cast<const char*>(std::memchr(begin_ + kept, '\n', got));
    if (newline != nullptr) return next(line);
  }
  if (begin_ == end_) return false;
  line = std::string_view(begin_, std::size_t(end_ - begin_));
  begin_ = end_;
  ++line_number_;
  return true;
}

}  // namespace trident::io
