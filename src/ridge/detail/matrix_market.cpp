// The Matrix Market reader: banner, size line and entries, each checked with its line.
#include "ridge/detail/matrix_market.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "io/reserve_huge.hpp"
#include "io/plain_numbers.hpp"

namespace trident::ridge {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool blank(const std::string& line) {
  return std::all_of(line.begin(), line.end(), [](unsigned char c) { return std::isspace(c); });
}

// Parses a whole token as an integer / a number; false when it is not one.
bool to_integer(const std::string& s, long long& out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  out = std::strtoll(s.c_str(), &end, 10);
  return errno == 0 && end == s.c_str() + s.size();
}

bool to_real(const std::string& s, double& out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && errno != ERANGE;
}

// The entries (one per line after the size line): the fast path reads the usual
// "ROW COLUMN VALUE" with std::from_chars straight from the block; any line it does not
// take (a sign, hexadecimal, a bad index, an error of any kind) goes to the string-based
// rules below, which decide exactly as the reader always has and word the message.
struct EntryRules {
  long long rows, columns;
  bool pattern, integer, symmetric;
};

bool is_blank_char(char c) { return c == ' ' || c == '\t'; }

// "ROW COLUMN [VALUE]" with blanks between and optional blanks (or a '\r') after;
// true only for an entry the slow rules would take as it is.
bool fast_entry(std::string_view line, const EntryRules& r, long long& i, long long& j,
                double& value) {
  const char* p = line.data();
  const char* const end = p + line.size();
  while (p < end && is_blank_char(*p)) ++p;
  if (!io::plain_digits(p, end, i) || p == end || !is_blank_char(*p)) return false;
  while (p < end && is_blank_char(*p)) ++p;
  if (!io::plain_digits(p, end, j)) return false;
  if (i < 1 || i > r.rows || j < 1 || j > r.columns || (r.symmetric && j > i)) return false;
  value = 1.0;
  if (!r.pattern) {
    if (p == end || !is_blank_char(*p)) return false;
    while (p < end && is_blank_char(*p)) ++p;
    const char* token = p;
    while (p < end && !is_blank_char(*p) && *p != '\r') ++p;
    long long as_integer = 0;
    if (r.integer) {
      if (!io::plain_integer(token, p, as_integer)) return false;
      value = static_cast<double>(as_integer);
    } else if (!io::plain_double(token, p, value) || !std::isfinite(value)) {
      return false;
    }
  }
  while (p < end && (is_blank_char(*p) || *p == '\r')) ++p;
  return p == end;
}

}  // namespace

HostCsr parse_matrix_market(std::istream& in, const std::string& name) {
  io::TextLines lines = io::TextLines::from_stream(in);
  return parse_matrix_market(lines, name);
}

MatrixMarketHeader read_matrix_market_header(io::TextLines& lines, const std::string& name) {
  std::string_view view;
  std::string line;
  auto fail = [&](const std::string& what, long long line_number) -> void {
    throw InputError(name + ":" + std::to_string(line_number) + ": " + what);
  };

  // Banner: %%MatrixMarket matrix coordinate FIELD SYMMETRY
  if (!lines.next(view))
    fail("the file is empty; expected a Matrix Market banner '%%MatrixMarket matrix coordinate "
         "real general'", 1);
  line.assign(view);
  const long long banner_line = lines.line_number();
  const std::vector<std::string> banner = words(line);
  if (banner.empty() || banner[0] != "%%MatrixMarket")
    fail("expected the Matrix Market banner '%%MatrixMarket matrix coordinate real general', got '" +
         line.substr(0, 80) + "'", banner_line);
  if (banner.size() != 5)
    fail("expected the banner to name object, format, field and symmetry "
         "(%%MatrixMarket matrix coordinate real general), got " +
         std::to_string(banner.size() - 1) + " words", banner_line);
  const std::string object = lower(banner[1]), format = lower(banner[2]), field = lower(banner[3]),
                    symmetry = lower(banner[4]);
  if (object != "matrix")
    fail("expected the object 'matrix' in the banner, got '" + banner[1] + "'", banner_line);
  if (format != "coordinate")
    fail("expected the format 'coordinate' (sparse) in the banner, got '" + banner[2] + "'",
         banner_line);
  if (field != "real" && field != "integer" && field != "pattern")
    fail("expected the field real, integer or pattern in the banner, got '" + banner[3] + "'",
         banner_line);
  if (symmetry != "general" && symmetry != "symmetric")
    fail("expected the symmetry general or symmetric in the banner, got '" + banner[4] + "'",
         banner_line);
  const bool pattern = field == "pattern", integer = field == "integer";
  const bool symmetric = symmetry == "symmetric";

  // Comments, then the size line: ROWS COLUMNS ENTRIES
  bool have_size = false;
  while (lines.next(view)) {
    line.assign(view);
    if (!line.empty() && line[0] == '%') continue;
    if (blank(line)) continue;
    have_size = true;
    break;
  }
  if (!have_size) fail("the file ends before the size line 'ROWS COLUMNS ENTRIES'", lines.line_number() + 1);
  const long long size_line = lines.line_number();
  const std::vector<std::string> size = words(line);
  long long rows = 0, columns = 0, entries = 0;
  if (size.size() != 3 || !to_integer(size[0], rows) || !to_integer(size[1], columns) ||
      !to_integer(size[2], entries))
    fail("expected the size line 'ROWS COLUMNS ENTRIES' (three integers), got '" +
         line.substr(0, 80) + "'", size_line);
  if (rows < 1 || columns < 1 || entries < 0)
    fail("expected at least 1 row, 1 column and 0 entries, got " + std::to_string(rows) + " x " +
         std::to_string(columns) + " with " + std::to_string(entries) + " entries", size_line);
  const long long int_max = std::numeric_limits<int>::max();
  if (rows > int_max || columns > int_max || entries * (symmetric ? 2 : 1) > int_max)
    fail("the matrix is too large for 32-bit indices (rows, columns and stored entries below 2^31)",
         size_line);
  if (symmetric && rows != columns)
    fail("a symmetric matrix must be square, got " + std::to_string(rows) + " x " +
         std::to_string(columns), size_line);
  return {rows, columns, entries, field, pattern, integer, symmetric};
}

HostCsr parse_matrix_market(io::TextLines& lines, const std::string& name) {
  const MatrixMarketHeader header = read_matrix_market_header(lines, name);
  const long long rows = header.rows, columns = header.columns, entries = header.entries;
  const bool pattern = header.pattern, integer = header.integer, symmetric = header.symmetric;
  const std::string& field = header.field;
  std::string_view view;
  std::string line;
  auto fail = [&](const std::string& what, long long line_number) -> void {
    throw InputError(name + ":" + std::to_string(line_number) + ": " + what);
  };

  const EntryRules rules{rows, columns, pattern, integer, symmetric};
  std::vector<Triplet> triplets;
  io::reserve_huge(triplets, static_cast<std::size_t>(entries) * (symmetric ? 2 : 1));
  const std::size_t expected_words = pattern ? 2 : 3;
  long long read = 0;
  // The rules every entry line has always been held to; returns false for a blank line.
  auto slow_entry = [&](long long& i, long long& j, double& value) -> bool {
    const long long line_number = lines.line_number();
    line.assign(view);
    if (blank(line)) return false;
    if (read == entries)
      fail("expected " + std::to_string(entries) +
           " entries (the size line says so), found more: '" + line.substr(0, 80) + "'", line_number);
    const std::vector<std::string> w = words(line);
    if (w.size() != expected_words)
      fail(std::string("expected an entry 'ROW COLUMN") + (pattern ? "'" : " VALUE'") + " (" +
           std::to_string(expected_words) + " fields for a " + field + " matrix), got '" +
           line.substr(0, 80) + "'", line_number);
    if (!to_integer(w[0], i) || !to_integer(w[1], j))
      fail("expected integer row and column indices, got '" + line.substr(0, 80) + "'", line_number);
    if (i < 1 || i > rows || j < 1 || j > columns)
      fail("entry (" + w[0] + ", " + w[1] + ") lies outside the " + std::to_string(rows) + " x " +
           std::to_string(columns) + " matrix (indices count from 1)", line_number);
    value = 1.0;
    if (!pattern) {
      long long as_integer = 0;
      if (integer ? !to_integer(w[2], as_integer) : !to_real(w[2], value))
        fail("expected " + std::string(integer ? "an integer" : "a number") + " value, got '" +
             w[2] + "'", line_number);
      if (integer) value = static_cast<double>(as_integer);
      if (!std::isfinite(value)) fail("expected a finite value, got '" + w[2] + "'", line_number);
    }
    if (symmetric && j > i)
      fail("entry (" + w[0] + ", " + w[1] +
           ") lies above the diagonal; a symmetric file stores the lower triangle only", line_number);
    return true;
  };
  while (lines.next(view)) {
    if (!view.empty() && view[0] == '%') continue;
    long long i = 0, j = 0;
    double value = 1.0;
    if (read == entries || !fast_entry(view, rules, i, j, value)) {
      if (!slow_entry(i, j, value)) continue;
    }
    triplets.push_back({int(i - 1), int(j - 1), value});
    if (symmetric && i != j) triplets.push_back({int(j - 1), int(i - 1), value});
    ++read;
  }
  if (read < entries)
    fail("the file ends after " + std::to_string(read) + " of the " + std::to_string(entries) +
         " entries the size line announced (is it truncated?)", lines.line_number() + 1);
  return csr_from_triplets(int(rows), int(columns), std::move(triplets));
}

namespace {
io::TextLines open_matrix_market(const std::string& path) {
  std::optional<io::TextLines> lines = io::TextLines::open_file(path);
  if (!lines) throw InputError(path + ": cannot open the Matrix Market file (does it exist and is it readable?)");
  return std::move(*lines);
}
}  // namespace

HostCsr read_matrix_market(const std::string& path) {
  io::TextLines lines = open_matrix_market(path);
  return parse_matrix_market(lines, path);
}

MatrixMarketHeader read_matrix_market_header(const std::string& path) {
  io::TextLines lines = open_matrix_market(path);
  return read_matrix_market_header(lines, path);
}

}  // namespace trident::ridge
