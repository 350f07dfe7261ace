#include "deck/yaml_structure.hpp"

#include <yaml-cpp/eventhandler.h>

#include <cstddef>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"
#include "deck/reader.hpp"

namespace trident::deck {

namespace {

std::string line_column(const YAML::Mark& mark) {
  return std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

// Counts documents as the parser meets them and stops it at the second one: its body is
// never parsed, so a syntax error inside it cannot hide the real mistake.
class SecondDocumentFinder : public YAML::EventHandler {
 public:
  struct Found {
    YAML::Mark mark;
  };
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ == 2) throw Found{mark};
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

 private:
  int documents_ = 0;
};

// A key as the Section helpers see it: its text (`nx` and `"nx"` are the same key). Null
// keys (`~:`, or `:` alone) are all one key; mappings or lists used as keys are never
// equal to anything here (they are refused later as unknown keys).
bool comparable(const YAML::Node& key) { return key.IsScalar() || key.IsNull(); }
std::string key_text(const YAML::Node& key) { return key.IsNull() ? "~" : printable(key.Scalar()); }

class DuplicateKeyFinder {
 public:
  explicit DuplicateKeyFinder(const std::string& file) : file_(file) {}

  void walk(const YAML::Node& node, const std::string& path) {
    if (!node.IsMap() && !node.IsSequence()) return;
    if (!first_visit(node)) return;
    if (node.IsSequence()) {
      std::size_t index = 0;
      for (const auto& item : node) walk(item, path + "[" + std::to_string(index++) + "]");
      return;
    }
    std::vector<YAML::Node> keys;
    for (const auto& pair : node) {
      const YAML::Node key = pair.first;
      const std::string key_path = path.empty() ? key_text(key) : path + "." + key_text(key);
      if (comparable(key)) {
        for (const auto& earlier : keys) {
          if (comparable(earlier) && earlier.IsNull() == key.IsNull() &&
              key_text(earlier) == key_text(key))
            fail(key, earlier, key_path);
        }
      }
      keys.push_back(key);
      walk(key, path);  // a mapping used as a key is still a mapping of the deck
      walk(pair.second, key_path);
    }
  }

 private:
  [[noreturn]] void fail(const YAML::Node& key, const YAML::Node& first,
                         const std::string& key_path) const {
    throw InputError(file_ + ":" + line_column(key.Mark()) + ": " + key_path +
                     ": the key is given twice (first at line " +
                     std::to_string(first.Mark().line + 1) + ", column " +
                     std::to_string(first.Mark().column + 1) + "); keep one");
  }

  // An alias (`*name`) is the very node its anchor made: walk each node once, so that
  // aliases of aliases ("billion laughs") or an anchor used inside itself cannot make the
  // walk exponential or endless. Nodes are grouped by where they start, and compared by
  // identity only within a group (a mapping and its first key may start at one place).
  bool first_visit(const YAML::Node& node) {
    auto& group = visited_[node.Mark().pos];
    for (const auto& other : group)
      if (other.is(node)) return false;
    group.push_back(node);
    return true;
  }

  const std::string& file_;
  std::unordered_map<int, std::vector<YAML::Node>> visited_;
};

}  // namespace

void require_one_document(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  SecondDocumentFinder finder;
  try {
    while (parser.HandleNextDocument(finder)) {
    }
  } catch (const SecondDocumentFinder::Found& second) {
    throw InputError(file + ":" + line_column(second.mark) +
                     ": a second YAML document starts here; a deck is one document, so put "
                     "all its sections in the first (without '---' between them)");
  }
}

void require_unique_keys(const YAML::Node& root, const std::string& file) {
  DuplicateKeyFinder(file).walk(root, "");
}

}  // namespace trident::deck
