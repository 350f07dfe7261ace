#include "deck/reader.hpp"

#include "deck/yaml_document.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "deck/yaml_structure.hpp"

namespace trident::deck {

namespace {

std::string folder_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string format_number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string shown(const YAML::Node& node) {
  if (node.IsScalar()) return "'" + printable(node.Scalar()) + "'";
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a mapping";
  return "nothing";
}

bool scalar_integer(const YAML::Node& node, std::int64_t& out) {
  if (!node.IsScalar()) return false;
  const std::string& s = node.Scalar();
  if (s.empty()) return false;
  std::size_t used = 0;
  try {
    const long long v = std::stoll(s, &used, 10);
    if (used != s.size()) return false;
    out = v;
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

bool scalar_real(const YAML::Node& node, double& out) {
  if (!node.IsScalar()) return false;
  const std::string& s = node.Scalar();
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return false;  // never a valid setting
  if (s.empty()) return false;
  // strtod, not std::stod: stod throws on underflow, which would refuse a number as plain
  // as 1e-310 (a subnormal double). Overflow gives infinity, which isfinite refuses; a NUL
  // inside the text ends the number early.
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(out);
}

}  // namespace

std::string printable(const std::string& text) {
  constexpr std::size_t kLongest = 80, kShownOfLonger = 60;
  std::string cut = text;
  if (cut.size() > kLongest) {
    std::size_t end = kShownOfLonger;
    while (end > 0 && (static_cast<unsigned char>(cut[end]) & 0xC0) == 0x80) --end;  // whole UTF-8 letters
    cut = cut.substr(0, end) + "...";
  }
  std::string out;
  for (const char c : cut) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (byte < 0x20 || byte == 0x7f) {
      static const char digits[] = "0123456789abcdef";
      out += std::string("\\x") + digits[byte >> 4] + digits[byte & 15];
    } else {
      out += c;
    }
  }
  return out;
}

std::pair<Source, YAML::Node> parse(const std::string& text, const std::string& file,
                                    const std::string& folder) {
  Source source{file, folder, text, {}};
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(file + ":" + std::to_string(e.mark.line + 1) + ":" +
                     std::to_string(e.mark.column + 1) + ": the deck is not valid YAML: " +
                     printable(e.msg));
  }
  // Before anything reads a value: what yaml-cpp would silently drop is refused here.
  require_one_document(text, file);
  require_unique_keys(root, file);
  if (!root.IsMap()) {
    throw InputError(file + ": expected a YAML mapping with at least one of the sections "
                            "diffusion, knn, ridge");
  }
  return {source, root};
}

std::pair<Source, YAML::Node> load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open the deck file (does it exist and is it readable?)");
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path, folder_of(path));
}

std::string resolve_path(const Source& source, const std::string& path) {
  if (path.empty() || path[0] == '/' || source.folder.empty() || source.folder == ".") return path;
  return source.folder + "/" + path;
}

std::string Bounds::describe() const {
  const bool has_low = std::isfinite(low), has_high = std::isfinite(high);
  if (has_low && has_high && !low_open && !high_open)
    return "between " + format_number(low) + " and " + format_number(high);
  std::string out;
  if (has_low) out = (low_open ? "greater than " : "at least ") + format_number(low);
  if (has_high) {
    if (!out.empty()) out += " and ";
    out += (high_open ? "less than " : "at most ") + format_number(high);
  }
  return out;
}

bool Bounds::contains(double v) const {
  if (low_open ? !(v > low) : !(v >= low)) return false;
  if (high_open ? !(v < high) : !(v <= high)) return false;
  return true;
}

Bounds any() { return Bounds{}; }
Bounds at_least(double low) { Bounds b; b.low = low; return b; }
Bounds greater_than(double low) { Bounds b; b.low = low; b.low_open = true; return b; }
Bounds between(double low, double high) { Bounds b; b.low = low; b.high = high; return b; }

Section::Section(const Source& source, const YAML::Node& node, std::string path,
                 std::vector<std::string> allowed)
    : source_(&source), node_(std::make_shared<const YAML::Node>(node)), path_(std::move(path)), allowed_(std::move(allowed)) {
  if (!yaml().IsMap()) {
    throw InputError(mark(yaml()) + ": " + path_ + ": expected a mapping of keys (" +
                     [this] {
                       std::string keys;
                       for (const auto& k : allowed_) keys += (keys.empty() ? "" : ", ") + k;
                       return keys;
                     }() +
                     "), got " + shown(yaml()));
  }
  for (auto it = yaml().begin(); it != yaml().end(); ++it) {
    const YAML::Node key_node = it->first;  // a copy: `it->` hands out a temporary
    if (!key_node.IsScalar() || key_node.Scalar().empty()) {  // `[1]: x`, `~: x`, `"": x`
      throw InputError(mark(key_node) + ": " + (path_.empty() ? std::string("deck") : path_) +
                       ": expected a key name, got " +
                       (key_node.IsScalar() || key_node.IsNull() ? "an empty key" : shown(key_node)));
    }
    const std::string key = key_node.Scalar();
    if (std::find(allowed_.begin(), allowed_.end(), key) != allowed_.end()) continue;
    std::string message = mark(key_node) + ": " + key_path(printable(key)) + ": unknown key";
    const std::string suggestion = closest(key, allowed_);
    if (!suggestion.empty()) {
      message += "; did you mean '" + suggestion + "'?";
    } else {
      std::string keys;
      for (const auto& k : allowed_) keys += (keys.empty() ? "" : ", ") + k;
      message += "; expected one of: " + keys;
    }
    throw InputError(message);
  }
}

std::string Section::mark(const YAML::Node& node) const {
  const YAML::Mark mark = node.Mark();
  if (mark.line < 0) return source_->file;
  return source_->file + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

std::string Section::key_path(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

bool Section::has(const std::string& key) const {
  const YAML::Node v = yaml()[key];
  return v.IsDefined() && !v.IsNull();
}

void Section::fail(const std::string& key, const std::string& what) const {
  const YAML::Node v = yaml()[key];
  const std::string at = v.IsDefined() ? mark(v) : mark(yaml());
  throw InputError(at + ": " + key_path(key) + ": " + what);
}

void Section::fail_value(const std::string& key, const std::string& expected) const {
  fail(key, "expected " + expected + ", got " + shown(yaml()[key]));
}

YAML::Node Section::required(const std::string& key, const std::string& expected) const {
  if (!has(key)) {
    throw InputError(mark(yaml()) + ": " + (path_.empty() ? std::string("deck") : path_) +
                     ": missing required key '" + key + "' (" + expected + ")");
  }
  return yaml()[key];
}

Section::Shape Section::shape(const std::string& key) const {
  const YAML::Node v = yaml()[key];
  if (!v.IsDefined()) return Shape::absent;
  if (v.IsNull()) return Shape::null;
  if (v.IsScalar()) return Shape::scalar;
  return v.IsSequence() ? Shape::sequence : Shape::mapping;
}

std::string Section::scalar(const std::string& key) const {
  const YAML::Node v = required(key, "a value");
  if (!v.IsScalar()) fail_value(key, "a single value");
  return v.Scalar();
}

std::optional<std::string> Section::peek(const std::string& key, const std::string& inner) const {
  const YAML::Node v = yaml()[key];
  if (!v.IsMap() || !v[inner].IsDefined()) return std::nullopt;
  return v[inner].IsScalar() ? v[inner].Scalar() : std::string();
}

std::string Section::where(const std::string& key) const {
  const YAML::Node v = yaml()[key];
  return v.IsDefined() ? mark(v) : mark(yaml());
}

std::string Section::where() const { return mark(yaml()); }

void Section::record(const std::string& key, std::string value, bool defaulted, bool input_file) const {
  const YAML::Node v = yaml()[key];
  source_->resolve({key_path(key), std::move(value), defaulted,
                    defaulted || !v.IsDefined() ? std::string() : mark(v), input_file});
}

namespace {
std::string integer_expected(const Bounds& b) {
  const std::string range = b.describe();
  return range.empty() ? "an integer" : "an integer " + range;
}
std::string real_expected(const Bounds& b) {
  const std::string range = b.describe();
  return range.empty() ? "a finite number" : "a number " + range;
}
}  // namespace

std::int64_t Section::integer(const std::string& key, const Bounds& bounds) const {
  const YAML::Node v = required(key, integer_expected(bounds));
  std::int64_t out = 0;
  if (!scalar_integer(v, out) || !bounds.contains(static_cast<double>(out)))
    fail_value(key, integer_expected(bounds));
  record(key, std::to_string(out), false);
  return out;
}

std::int64_t Section::integer(const std::string& key, const Bounds& bounds,
                              std::int64_t fallback) const {
  if (has(key)) return integer(key, bounds);
  record(key, std::to_string(fallback), true);
  return fallback;
}

double Section::real(const std::string& key, const Bounds& bounds) const {
  const YAML::Node v = required(key, real_expected(bounds));
  double out = 0;
  if (!scalar_real(v, out) || !bounds.contains(out)) fail_value(key, real_expected(bounds));
  record(key, exact_number(out), false);
  return out;
}

double Section::real(const std::string& key, const Bounds& bounds, double fallback) const {
  if (has(key)) return real(key, bounds);
  record(key, exact_number(fallback), true);
  return fallback;
}

bool Section::boolean(const std::string& key, bool fallback) const {
  if (!has(key)) {
    record(key, fallback ? "true" : "false", true);
    return fallback;
  }
  const YAML::Node v = yaml()[key];
  bool out = false;
  if (!v.IsScalar() || !YAML::convert<bool>::decode(v, out)) fail_value(key, "true or false");
  record(key, out ? "true" : "false", false);
  return out;
}

std::string Section::text(const std::string& key) const {
  const YAML::Node v = required(key, "a text value");
  if (!v.IsScalar() || v.Scalar().empty()) fail_value(key, "a non-empty text value");
  record(key, yaml_scalar(v.Scalar()), false);
  return v.Scalar();
}

std::string Section::text(const std::string& key, const std::string& fallback) const {
  if (has(key)) return text(key);
  record(key, yaml_scalar(fallback), true);
  return fallback;
}

namespace {
std::string options_text(const std::vector<std::string>& options) {
  std::string out;
  for (std::size_t i = 0; i < options.size(); ++i) {
    if (i > 0) out += i + 1 == options.size() ? " or " : ", ";
    out += options[i];
  }
  return out;
}
}  // namespace

std::string Section::choice(const std::string& key, const std::vector<std::string>& options) const {
  const YAML::Node v = required(key, "one of " + options_text(options));
  if (!v.IsScalar() || std::find(options.begin(), options.end(), v.Scalar()) == options.end()) {
    const std::string near = v.IsScalar() ? closest(v.Scalar(), options) : std::string();
    fail(key, "expected one of " + options_text(options) + ", got " + shown(v) +
                  (near.empty() ? std::string() : "; did you mean '" + near + "'?"));
  }
  record(key, yaml_scalar(v.Scalar()), false);
  return v.Scalar();
}

std::string Section::choice(const std::string& key, const std::vector<std::string>& options,
                            const std::string& fallback) const {
  if (has(key)) return choice(key, options);
  record(key, yaml_scalar(fallback), true);
  return fallback;
}

core::Precision Section::precision(const std::string& key, const std::vector<core::Precision>& allowed,
                                   core::Precision fallback) const {
  if (!has(key)) {
    record(key, core::precision_name(fallback), true);
    return fallback;
  }
  std::vector<std::string> names;
  for (const core::Precision p : allowed) names.push_back(core::precision_name(p));
  const std::string name = choice(key, names);
  return allowed[static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin())];
}

std::string Section::file(const std::string& key) const {
  const std::string path = resolve_path(*source_, text(key));
  record(key, yaml_scalar(path), false, /*input_file=*/true);
  return path;
}

std::string Section::file(const std::string& key, const std::string& fallback) const {
  const std::string path = has(key) ? resolve_path(*source_, text(key)) : fallback;
  record(key, yaml_scalar(path), !has(key));
  return path;
}

std::vector<double> Section::reals(const std::string& key, const Bounds& bounds,
                                   std::size_t min_count, std::size_t max_count) const {
  const std::string count = max_count == min_count
                                ? std::to_string(min_count)
                                : (max_count == std::numeric_limits<std::size_t>::max()
                                       ? "at least " + std::to_string(min_count)
                                       : std::to_string(min_count) + " to " + std::to_string(max_count));
  const std::string expected = "a list of " + count + " numbers" +
                               (bounds.describe().empty() ? "" : ", each " + bounds.describe());
  const YAML::Node v = required(key, expected);
  if (!v.IsSequence() || v.size() < min_count || v.size() > max_count) fail_value(key, expected);
  std::vector<double> out;
  for (const auto& item : v) {
    double x = 0;
    if (!scalar_real(item, x) || !bounds.contains(x)) {
      throw InputError(mark(item) + ": " + key_path(key) + ": expected " + expected + ", got " +
                       shown(item) + " in the list");
    }
    out.push_back(x);
  }
  std::string list;
  for (const double x : out) list += (list.empty() ? "" : ", ") + exact_number(x);
  record(key, "[" + list + "]", false);
  return out;
}

std::vector<std::int64_t> Section::integers(const std::string& key, const Bounds& bounds,
                                            std::size_t min_count, std::size_t max_count) const {
  const std::vector<double> values = reals(key, bounds, min_count, max_count);
  std::vector<std::int64_t> out;
  std::size_t i = 0;
  for (const auto& item : yaml()[key]) {
    std::int64_t x = 0;
    if (!scalar_integer(item, x)) {
      throw InputError(mark(item) + ": " + key_path(key) + ": expected a list of integers, got " +
                       shown(item) + " in the list");
    }
    out.push_back(x);
    ++i;
  }
  (void)values;
  std::string list;
  for (const std::int64_t x : out) list += (list.empty() ? "" : ", ") + std::to_string(x);
  record(key, "[" + list + "]", false);
  return out;
}

void Section::require_one_key() const {
  int given = 0;
  for (const auto& key : allowed_) given += has(key) ? 1 : 0;
  if (given != 1) {
    throw InputError(mark(yaml()) + ": " + path_ + ": expected exactly one of " + options_text(allowed_) +
                     ", got " + std::to_string(given));
  }
}

Section Section::section(const std::string& key, std::vector<std::string> allowed) const {
  std::string keys;
  for (const auto& k : allowed) keys += (keys.empty() ? "" : ", ") + k;
  const YAML::Node v = required(key, "a mapping of " + keys);
  return Section(*source_, v, key_path(key), std::move(allowed));
}

Section Section::section_or_empty(const std::string& key, std::vector<std::string> allowed) const {
  if (has(key)) return section(key, std::move(allowed));
  return Section(*source_, YAML::Node(YAML::NodeType::Map), key_path(key), std::move(allowed));
}

std::optional<Section> Section::optional_section(const std::string& key,
                                                 std::vector<std::string> allowed) const {
  if (!has(key)) return std::nullopt;
  return section(key, std::move(allowed));
}

}  // namespace trident::deck
