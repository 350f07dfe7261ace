// Reading a whole deck: the top-level keys, the output section, then each study's section.
#include "deck/deck.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "deck/yaml_document.hpp"

namespace trident::deck {

namespace {

std::string default_output(const Source& source) {
  // named after the deck, in the working folder, as most simulation codes do:
  // decks/heat.yaml -> heat.h5 (beside the deck, running an example twice from the
  // source tree would find its own output, and write into the sources)
  std::string name = source.file;
  const auto slash = name.find_last_of('/');
  if (slash != std::string::npos) name = name.substr(slash + 1);
  const auto dot = name.find_last_of('.');
  if (dot != std::string::npos && dot > 0) name = name.substr(0, dot);
  return name + ".h5";
}

Deck read(std::pair<Source, YAML::Node> loaded, const std::vector<SectionReader>& readers) {
  Deck deck;
  deck.source = std::move(loaded.first);
  std::vector<std::string> allowed = {"output"};
  std::string names;
  for (const SectionReader& reader : readers) {
    allowed.push_back(reader.name);
    names += (names.empty() ? "" : ", ") + reader.name;
  }
  const Section top(deck.source, loaded.second, "", allowed);
  if (allowed.end() == std::find_if(allowed.begin() + 1, allowed.end(), [&](const std::string& name) { return top.has(name); }))
    throw InputError(deck.source.file + ": the deck holds no study; expected at least one of the sections " + names);
  deck.output.file = default_output(deck.source);
  {
    const std::optional<Section> out = top.section_or_empty("output", {"file", "overwrite", "progress_seconds", "compression", "log"});
    deck.output.file = out->file("file", deck.output.file);
    deck.output.overwrite = out->boolean("overwrite", false);
    deck.output.progress_seconds = out->real("progress_seconds", at_least(0), 10.0);
    deck.output.compression = static_cast<int>(out->integer("compression", between(0, 9), 0));
    // output.log: true, false, or a file name
    bool on = true;
    if (!out->has("log") || (out->shape("log") == Section::Shape::scalar &&
                              YAML::convert<bool>::decode(YAML::Node(out->scalar("log")), on)))
      deck.output.log = out->boolean("log", true);
    else
      deck.output.log_file = out->file("log", "");
  }
  for (const SectionReader& reader : readers) {
    if (!top.has(reader.name)) continue;
    reader.read(top);
    deck.studies.push_back(reader.name);
  }
  return deck;
}

}  // namespace

Deck read_deck(const std::string& path, const std::vector<SectionReader>& readers) {
  return read(load(path), readers);
}

Deck read_deck_text(const std::string& text, const std::string& file, const std::string& folder,
                    const std::vector<SectionReader>& readers) {
  return read(parse(text, file, folder), readers);
}

}  // namespace trident::deck
