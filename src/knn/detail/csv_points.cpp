#include "knn/detail/csv_points.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "io/reserve_huge.hpp"
#include "io/plain_numbers.hpp"
#include "io/text_lines.hpp"
#include "knn/detail/coordinates_check.hpp"

namespace trident::knn {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

bool blank(std::string_view line) {
  for (const char c : line)
    if (!is_space(c)) return false;
  return true;
}

std::string_view trimmed(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// One field of a row: its text (quotes removed, blanks trimmed; a doubled quote inside
// quotes is left doubled) and the 1-based character column where it starts.
struct Field {
  std::string_view text;
  std::size_t column;
};

// An open CSV file, positioned after its header, with the positions of the two columns.
class CsvFile {
 public:
  explicit CsvFile(const PointSource& source) : source_(source) {
    std::optional<io::TextLines> lines = io::TextLines::open_file(source.file);
    if (!lines) throw InputError(source.file + ": cannot open the CSV file of " + source.key);
    lines_.emplace(std::move(*lines));
    std::string_view line;
    bool have_header = false;
    while (!have_header && lines_->next(line)) have_header = !blank(line);
    if (!have_header) {
      throw InputError(source.file + ": the CSV file of " + source.key +
                       " is empty; expected a header row naming the columns '" + source.latitude +
                       "' and '" + source.longitude + "'");
    }
    split(line);
    header_fields_ = fields_.size();
    for (const Field& f : fields_) header_names_.push_back(unquoted(f.text));
    const std::vector<std::string>& names = header_names_;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == source.latitude && latitude_ < 0) latitude_ = static_cast<int>(i);
      if (names[i] == source.longitude && longitude_ < 0) longitude_ = static_cast<int>(i);
    }
    for (const auto& [index, name] : {std::pair<int, std::string>{latitude_, source.latitude},
                                      std::pair<int, std::string>{longitude_, source.longitude}}) {
      if (index >= 0) continue;
      std::string columns;
      for (const auto& n : names) columns += (columns.empty() ? "'" : ", '") + n + "'";
      throw InputError(source.file + ": the header has no column '" + name + "' (" + source.key +
                       "); its columns are " + columns);
    }
    if (source.has_ids()) id_ = named_column(source.ids, source.ids_key());
    if (source.has_radii()) radius_ = named_column(source.radii, "knn.max_distance.column");
  }

  // The next non-blank line; false at the end of the file.
  bool next_row(std::string_view& line) {
    while (lines_->next(line))
      if (!blank(line)) return true;
    return false;
  }

  // With an id column: refuses a row whose id is empty (the fill of unfinished rows in the
  // output); a row too short to have one is left to parse_row, which counts its fields.
  void check_id(std::string_view line) {
    if (id_ < 0) return;
    split(line);
    check_id_present();
  }

  // Checks data row `row` (1-based) held in `line` and returns its coordinates, its id into
  // `ids` when the source names an id column, and its search radius into `radius` when given
  // (the source names a column of radii: a number at least 0).
  void parse_row(std::string_view line, std::int64_t row, double& latitude, double& longitude, PointIds* ids,
                 double* radius = nullptr) {
    split(line);
    check_id_present();
    const std::size_t n = fields_.size();
    for (const int column : {latitude_, longitude_}) {
      if (static_cast<std::size_t>(column) >= n)
        throw InputError(row_where(row, column) + ": the row has no value there (it has " +
                         std::to_string(n) + " fields)");
    }
    if (n != header_fields_) {
      const std::size_t at = n > header_fields_ ? fields_[header_fields_].column
                                                : trimmed_end(line) + 1;
      fail(at, "expected " + std::to_string(header_fields_) + " fields as in the header, got " +
                   std::to_string(n));
    }
    // Only the columns read must hold a value: station lists leave others (an elevation, a
    // name) empty. The lower column first, as a left-to-right reading would meet them.
    for (const int column : {std::min(latitude_, longitude_), std::max(latitude_, longitude_)}) {
      const auto i = static_cast<std::size_t>(column);
      if (fields_[i].text.empty())
        fail(fields_[i].column, "field " + std::to_string(i + 1) + " (column '" +
                                    header_names_[i] + "') is empty");
    }
    latitude = number(fields_[latitude_].text, row, latitude_);
    longitude = number(fields_[longitude_].text, row, longitude_);
    if (!latitude_ok(latitude))
      throw_bad_coordinate(latitude, true, row_where(row, latitude_), std::string(fields_[latitude_].text));
    if (!longitude_ok(longitude))
      throw_bad_coordinate(longitude, false, row_where(row, longitude_),
                           std::string(fields_[longitude_].text));
    if (ids != nullptr && id_ >= 0) ids->add_text(unquoted(fields_[static_cast<std::size_t>(id_)].text));
    if (radius != nullptr && radius_ >= 0) *radius = radius_value(row);
  }

 private:
  // Splits a line into fields_: a field is either plain text up to the next comma, or a
  // quoted text ("" standing for a quote) that may hold commas, closed on the same line.
  void split(std::string_view line) {
    fields_.clear();
    const std::size_t n = line.size();
    std::size_t p = 0;
    while (true) {
      const std::size_t start = p;
      while (p < n && is_space(line[p])) ++p;
      if (p < n && line[p] == '"') {
        const std::size_t open = p++;
        while (true) {
          const void* quote = std::memchr(line.data() + p, '"', n - p);
          if (quote == nullptr) fail(open + 1, "the quoted field that opens here is not closed on this line");
          p = static_cast<std::size_t>(static_cast<const char*>(quote) - line.data());
          if (p + 1 < n && line[p + 1] == '"') {
            p += 2;
            continue;
          }
          break;
        }
        fields_.push_back({trimmed(line.substr(open + 1, p - open - 1)), start + 1});
        ++p;
        while (p < n && is_space(line[p])) ++p;
        if (p < n && line[p] != ',')
          fail(p + 1, std::string("expected a comma or the end of the line after the closing quote, got '") +
                          line[p] + "'");
      } else {
        const void* comma = std::memchr(line.data() + p, ',', n - p);
        const std::size_t end = comma ? static_cast<std::size_t>(static_cast<const char*>(comma) - line.data()) : n;
        fields_.push_back({trimmed(line.substr(p, end - p)), start + 1});
        p = end;
      }
      if (p >= n) break;
      ++p;  // the comma
    }
  }

  // The index of the header's column `name` (`key` names it in the deck).
  int named_column(const std::string& name, const std::string& key) const {
    for (std::size_t i = 0; i < header_names_.size(); ++i)
      if (header_names_[i] == name) return static_cast<int>(i);
    std::string columns;
    for (const auto& n : header_names_) columns += (columns.empty() ? "'" : ", '") + n + "'";
    throw InputError(source_.file + ": the header has no column '" + name + "' (" + key + "); its columns are " +
                     columns);
  }

  // The row's search radius (fields_ split): a finite number at least 0.
  double radius_value(std::int64_t row) const {
    const auto i = static_cast<std::size_t>(radius_);
    if (i >= fields_.size() || fields_[i].text.empty())
      throw InputError(row_where(row, radius_) + ": the row has no radius (knn.max_distance.column)");
    const double v = number(fields_[i].text, row, radius_);
    if (!(v >= 0) || !std::isfinite(v))
      throw InputError(row_where(row, radius_) + ": knn.max_distance.column: expected a distance at least 0 (in the "
                       "unit of knn.radius), got '" + std::string(fields_[i].text) + "'");
    return v;
  }

  void check_id_present() const {
    const auto i = static_cast<std::size_t>(id_);
    if (id_ >= 0 && i < fields_.size() && fields_[i].text.empty())
      fail(fields_[i].column, "field " + std::to_string(i + 1) + " (column '" + header_names_[i] +
                                  "') is empty; " + source_.ids_key() + " needs an id on every row");
  }

  // A number as std::from_chars reads it, or failing that as strtod does (the rule this
  // reader has always had: all of the field must be the number).
  double number(std::string_view text, std::int64_t row, int column) const {
    double v = 0;
    if (io::plain_double(text.data(), text.data() + text.size(), v)) return v;
    const std::string copy(text);
    char* end = nullptr;
    v = std::strtod(copy.c_str(), &end);
    if (copy.empty() || end != copy.c_str() + copy.size())
      throw InputError(row_where(row, column) + ": expected a number, got '" + copy + "'");
    return v;
  }

  std::string row_where(std::int64_t row, int column) const {
    return source_.file + ": row " + std::to_string(row) + ", column '" +
           header_names_[static_cast<std::size_t>(column)] + "'";
  }

  [[noreturn]] void fail(std::size_t column, const std::string& what) const {
    throw InputError(source_.file + ":" + std::to_string(lines_->line_number()) + ":" +
                     std::to_string(column) + ": " + what);
  }

  static std::size_t trimmed_end(std::string_view line) {
    std::size_t e = line.size();
    while (e > 0 && is_space(line[e - 1])) --e;
    return e;
  }

  static std::string unquoted(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
      out += text[i];
      if (text[i] == '"' && i + 1 < text.size() && text[i + 1] == '"') ++i;
    }
    return out;
  }

  const PointSource& source_;
  std::optional<io::TextLines> lines_;
  std::vector<Field> fields_;
  std::vector<std::string> header_names_;
  std::size_t header_fields_ = 0;
  int latitude_ = -1, longitude_ = -1, id_ = -1, radius_ = -1;
};

}  // namespace

std::int64_t count_csv_points(const PointSource& source) {
  CsvFile file(source);
  std::int64_t rows = 0;
  std::string_view line;
  while (file.next_row(line)) {
    file.check_id(line);
    ++rows;
  }
  return rows;
}

std::vector<double> read_csv_points(const PointSource& source, std::int64_t first,
                                    std::int64_t count, PointIds* ids, std::vector<double>* radii) {
  CsvFile file(source);
  std::vector<double> points;
  io::reserve_huge(points, static_cast<std::size_t>(2 * count));
  points.resize(static_cast<std::size_t>(2 * count));
  std::string_view line;
  std::int64_t row = 0;  // data rows seen
  while (row < first && file.next_row(line)) ++row;
  if (radii != nullptr) radii->assign(static_cast<std::size_t>(count), 0.0);
  for (std::int64_t i = 0; i < count; ++i) {
    if (!file.next_row(line))
      throw InputError(source.file + ": the CSV file of " + source.key + " changed while reading");
    file.parse_row(line, first + i + 1, points[2 * i], points[2 * i + 1], ids,
                   radii != nullptr ? radii->data() + i : nullptr);
  }
  return points;
}

}  // namespace trident::knn
