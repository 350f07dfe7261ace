#pragma once
// Typed, validated reading of a YAML deck. Every error is one InputError of the form
//   FILE:LINE:COLUMN: KEY.PATH: what was expected[, got VALUE]
// and an unknown key is always an error, with the closest known key suggested.
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/precision.hpp"
#include "core/spelling.hpp"

namespace YAML {
class Node;  // yaml-cpp stays inside deck/ (yaml_document.hpp): readers see only Section
}

namespace trident::deck {

// One key as the run uses it: its dotted path, its value as YAML text, whether the deck
// left it to its default, and where the deck gave it ("FILE:LINE:COLUMN", empty for a default).
struct ResolvedKey {
  std::string path;
  std::string value;
  bool defaulted = false;
  std::string where;
  bool input_file = false;  // a file the run reads (its checksum goes into the provenance)
};

// The deck file as read: its name (as given), folder (for relative paths) and text. The
// typed readers of Section record every key they read in `resolved`, in reading order, so
// the run can show every key with the value it ran with (resolved_text).
struct Source {
  std::string file;
  std::string folder;
  std::string text;
  mutable std::vector<ResolvedKey> resolved;

  // Records (or, for a key read again, replaces) a key's value.
  void resolve(ResolvedKey key) const;
  // "FILE:LINE:COLUMN: " where the deck gave `path`, or "FILE: " (tests and messages).
  std::string at(const std::string& path) const;
};

// A text value as YAML reads it back: plain where that is safe, else double-quoted.
std::string yaml_scalar(const std::string& text);
// A double's shortest text that reads back to the same double.
std::string exact_number(double v);

// The input files the deck names (keys read with Section::file(key)), in reading order.
std::vector<std::string> input_files(const Source& source);

// The resolved deck as YAML text: one line a key, `section.key: value`, and
// `  # default` after a value the deck did not give.
std::string resolved_text(const Source& source);

// An allowed interval for a number. Text such as "at least 1" goes into messages.
struct Bounds {
  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();
  bool low_open = false;
  bool high_open = false;
  std::string describe() const;  // "", "at least 1", "greater than 0", "between 0 and 1"
  bool contains(double v) const;
};
Bounds any();
Bounds at_least(double low);
Bounds greater_than(double low);
Bounds between(double low, double high);  // inclusive

// Deck text as it may appear in a one-line message: control characters escaped (`\n`,
// `\t`, `\x00`), and text longer than 80 bytes cut to its first 60 followed by "...".
std::string printable(const std::string& text);

using core::closest;

// One mapping of the deck: the top level or a section such as `diffusion.start`.
class Section {
 public:
  // Fails at once if `node` is not a mapping or holds a key outside `allowed` (or one that
  // is no name at all: a list, a mapping, empty). Made by deck/ (yaml_document.hpp).
  Section(const Source& source, const YAML::Node& node, std::string path,
          std::vector<std::string> allowed);

  bool has(const std::string& key) const;
  const std::string& path() const { return path_; }
  std::string key_path(const std::string& key) const;
  const Source& source() const { return *source_; }

  std::int64_t integer(const std::string& key, const Bounds& bounds) const;
  std::int64_t integer(const std::string& key, const Bounds& bounds, std::int64_t fallback) const;
  double real(const std::string& key, const Bounds& bounds) const;
  double real(const std::string& key, const Bounds& bounds, double fallback) const;
  bool boolean(const std::string& key, bool fallback) const;
  std::string text(const std::string& key) const;
  std::string text(const std::string& key, const std::string& fallback) const;
  std::string choice(const std::string& key, const std::vector<std::string>& options) const;
  std::string choice(const std::string& key, const std::vector<std::string>& options,
                     const std::string& fallback) const;
  // One of `options` by its deck name, as its enum value (the names in that order in messages).
  template <class E>
  E enum_choice(const std::string& key, const std::vector<std::pair<std::string, E>>& options, E fallback) const {
    std::vector<std::string> names;
    std::string fallback_name;
    for (const auto& [name, value] : options) {
      names.push_back(name);
      if (value == fallback) fallback_name = name;
    }
    const std::string name = choice(key, names, fallback_name);
    for (const auto& [option, value] : options)
      if (option == name) return value;
    return fallback;  // not reached: choice() accepts only the names
  }
  // A precision among `allowed` (a choice of their names, in that order in messages).
  core::Precision precision(const std::string& key, const std::vector<core::Precision>& allowed,
                            core::Precision fallback) const;
  // A file path, resolved against the deck's folder when relative: file(key) a file the run
  // reads (an input), file(key, fallback) a file it writes (output.file, a checkpoint's).
  std::string file(const std::string& key) const;
  std::string file(const std::string& key, const std::string& fallback) const;
  // A list of numbers, each within `bounds`, with a length in [min_count, max_count].
  std::vector<double> reals(const std::string& key, const Bounds& bounds, std::size_t min_count,
                            std::size_t max_count) const;
  std::vector<std::int64_t> integers(const std::string& key, const Bounds& bounds,
                                     std::size_t min_count, std::size_t max_count) const;

  // For a section whose keys are alternatives (`{generate: ...}` or `{hdf5: ...}`): fails
  // unless exactly one of its allowed keys is present.
  void require_one_key() const;

  Section section(const std::string& key, std::vector<std::string> allowed) const;
  std::optional<Section> optional_section(const std::string& key,
                                          std::vector<std::string> allowed) const;
  // The section at `key`, or an empty one when the deck leaves it out: its readers then
  // take their defaults and record them in the resolved deck.
  Section section_or_empty(const std::string& key, std::vector<std::string> allowed) const;
  // What the value at `key` is, for a key whose value may take several shapes
  // (`lambdas: [...]` or `lambdas: {geomspace: ...}`).
  enum class Shape { absent, null, scalar, sequence, mapping };
  Shape shape(const std::string& key) const;
  // The text of a scalar at `key` (required), as the deck wrote it.
  std::string scalar(const std::string& key) const;
  // The text of the scalar `inner` inside the mapping at `key` (a section whose allowed keys
  // depend on one of its values, `start: {kind: file, ...}`): nothing where `key` is no
  // mapping or holds no `inner`, empty text where `inner` is no scalar.
  std::optional<std::string> peek(const std::string& key, const std::string& inner) const;

  // Throws an InputError located at `key` (or at this section when the key is absent).
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;
  // "FILE:LINE:COLUMN" of the value at `key`, or of this section where the key is absent.
  std::string where(const std::string& key) const;
  std::string where() const;  // of this section

 private:
  const YAML::Node& yaml() const { return *node_; }
  std::string mark(const YAML::Node& node) const;  // "FILE:LINE:COLUMN" of a node
  YAML::Node required(const std::string& key, const std::string& expected) const;
  // Notes the value the run takes for `key` in the source's resolved deck.
  void record(const std::string& key, std::string value, bool defaulted, bool input_file = false) const;
  [[noreturn]] void fail_value(const std::string& key, const std::string& expected) const;

  const Source* source_;
  std::shared_ptr<const YAML::Node> node_;
  std::string path_;
  std::vector<std::string> allowed_;
};

// Resolves a path against the deck's folder unless it is absolute.
std::string resolve_path(const Source& source, const std::string& path);

}  // namespace trident::deck
