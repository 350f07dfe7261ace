// The resolved deck (deck/reader.hpp): every key the readers took, with its value as YAML
// text, and the input files among them.
#include <cstdio>
#include <cstdlib>

#include "deck/reader.hpp"

#include <yaml-cpp/yaml.h>

namespace trident::deck {

void Source::resolve(ResolvedKey key) const {
  for (ResolvedKey& r : resolved) {
    if (r.path == key.path) {
      r = std::move(key);
      return;
    }
  }
  resolved.push_back(std::move(key));
}

std::string Source::at(const std::string& path) const {
  for (const ResolvedKey& r : resolved)
    if (r.path == path && !r.where.empty()) return r.where + ": ";
  return file + ": ";
}

std::string exact_number(double v) {
  char buffer[40];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, v);
    if (std::strtod(buffer, nullptr) == v) break;
  }
  return buffer;
}

std::string yaml_scalar(const std::string& text) {
  bool plain = !text.empty() && text.find_first_of(":#{}[],&*!|>'\"%@`\n\t\\") == std::string::npos &&
               text.front() != ' ' && text.back() != ' ' && text.front() != '-' && text.front() != '?';
  if (plain) {
    char* end = nullptr;
    std::strtod(text.c_str(), &end);
    const bool looks_numeric = end != text.c_str();
    const bool looks_special = text == "true" || text == "false" || text == "null" || text == "~" ||
                               text == "yes" || text == "no" || text == "on" || text == "off";
    plain = !looks_numeric && !looks_special;
  }
  if (plain) return text;
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') { out += "\\n"; continue; }
    out += c;
  }
  return out + "\"";
}

std::vector<std::string> input_files(const Source& source) {
  std::vector<std::string> files;
  for (const ResolvedKey& r : source.resolved) {
    if (!r.input_file) continue;
    const YAML::Node value = YAML::Load(r.value);  // the path, unquoted
    files.push_back(value.Scalar());
  }
  return files;
}

std::string resolved_text(const Source& source) {
  std::string out;
  for (const ResolvedKey& r : source.resolved)
    out += r.path + ": " + r.value + (r.defaulted ? "  # default" : "") + "\n";
  return out;
}

}  // namespace trident::deck
