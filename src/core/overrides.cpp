#include "core/overrides.hpp"

#include <charconv>
#include <functional>
#include <string_view>

#include "core/error.hpp"
#include "core/spelling.hpp"

extern char** environ;

namespace trident::core {
namespace {

// One override: its name, the values it takes (for the error message) and how it is read
// into an Overrides. read returns false for a value it does not take.
struct Knob {
  const char* name;
  const char* takes;
  std::function<bool(const std::string&, Overrides&)> read;
};

// The whole of `text` as a decimal integer in [least, most]: digits only, no sign or spaces.
bool whole_count(const std::string& text, long long least, long long most, int& out) {
  long long value = 0;
  const char* end = text.data() + text.size();
  if (text.empty() || text[0] < '0' || text[0] > '9') return false;
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop != end || value < least || value > most) return false;
  out = static_cast<int>(value);
  return true;
}

bool read_switch(const std::string& text, bool off_only, Switch& out) {
  if (text == "auto") out = Switch::automatic;
  else if (text == "off") out = Switch::off;
  else if (text == "on" && !off_only) out = Switch::on;
  else return false;
  return true;
}

bool read_word(const std::string& text, std::initializer_list<const char*> words, std::string& out) {
  for (const char* word : words) {
    if (text == word) {
      out = text;
      return true;
    }
  }
  return false;
}

bool read_auto_off_count(const std::string& text, AutoOffCount& out) {
  if (text == "auto") out = 0;
  else if (text == "off") out = -1;
  else return whole_count(text, 1, 1 << 30, out);
  return true;
}

const std::vector<Knob>& knobs() {
  static const std::vector<Knob> table = {
      {"TRIDENT_DEVICE_COMM", "auto, nccl, mpi or host-staging",
       [](const std::string& t, Overrides& o) { return read_word(t, {"auto", "nccl", "mpi", "host-staging"}, o.device_comm); }},
      {"TRIDENT_GPU_AWARE_MPI", "auto, on or off",
       [](const std::string& t, Overrides& o) { return read_switch(t, false, o.gpu_aware_mpi); }},
      {"TRIDENT_PEER_MEMORY", "auto or off",
       [](const std::string& t, Overrides& o) { return read_switch(t, true, o.peer_memory); }},
      {"TRIDENT_DIFFUSION_TRIP_STEPS", "auto or steps per trip from 1 to 8",
       [](const std::string& t, Overrides& o) {
         return t == "auto" ? (o.diffusion_trip_steps = 0, true) : whole_count(t, 1, 8, o.diffusion_trip_steps);
       }},
      {"TRIDENT_KNN_LISTS", "auto, registers, buffers or select",
       [](const std::string& t, Overrides& o) { return read_word(t, {"auto", "registers", "buffers", "select"}, o.knn_lists); }},
      {"TRIDENT_KNN_SLICES", "auto or a count from 1 to 64",
       [](const std::string& t, Overrides& o) { return t == "auto" ? (o.knn_slices = 0, true) : whole_count(t, 1, 64, o.knn_slices); }},
      {"TRIDENT_KNN_LIST_BOUND", "auto, on or off",
       [](const std::string& t, Overrides& o) { return read_switch(t, false, o.knn_list_bound); }},
      {"TRIDENT_RIDGE_GRAPHS", "auto, on or off",
       [](const std::string& t, Overrides& o) { return read_switch(t, false, o.ridge_graphs); }},
      {"TRIDENT_RIDGE_ROW_SEGMENTS", "auto, off or a segment length in packs (a positive integer)",
       [](const std::string& t, Overrides& o) { return read_auto_off_count(t, o.ridge_row_segments); }},
      {"TRIDENT_RIDGE_ROW_LANES", "auto or lanes per row (1, 2, 4, 8, 16 or 32)",
       [](const std::string& t, Overrides& o) {
         if (t == "auto") return o.ridge_row_lanes = 0, true;
         int lanes = 0;
         if (!whole_count(t, 1, 32, lanes) || (lanes & (lanes - 1)) != 0) return false;
         return o.ridge_row_lanes = lanes, true;
       }},
      {"TRIDENT_RIDGE_COLUMN_BANDS", "auto, off or a number of column bands (a positive integer)",
       [](const std::string& t, Overrides& o) { return read_auto_off_count(t, o.ridge_column_bands); }},
      {"TRIDENT_RIDGE_DEVICE_SETUP", "auto, on or off",
       [](const std::string& t, Overrides& o) { return read_switch(t, false, o.ridge_device_setup); }},
  };
  return table;
}

// TRIDENT_* names that belong to the job templates and the test scripts, not to trident:
// they are expected in its environment and never warned about.
const std::vector<std::string>& script_names() {
  static const std::vector<std::string> names = {
      "TRIDENT_ARGS",     "TRIDENT_BINARY",     "TRIDENT_CHECKPOINT", "TRIDENT_MAX_RESTARTS", "TRIDENT_OUTPUT",
      "TRIDENT_RESTARTS", "TRIDENT_RESUME",     "TRIDENT_SRUN_MPI",   "TRIDENT_FUZZ_CASES",   "TRIDENT_FUZZ_KEEP",
      "TRIDENT_FUZZ_ONLY", "TRIDENT_FUZZ_SEED", "TRIDENT_HOLD_DIR",   "TRIDENT_HOLD_ENTER",   "TRIDENT_IN_NAMESPACE",
      "TRIDENT_LINE",     "TRIDENT_SOURCE_DIR", "TRIDENT_TOOLS_LOG",  "TRIDENT_BENCH_SPMV_HANDLE"};
  return names;
}

// Settings that were renamed: an old name's warning names the new one.
std::string renamed(const std::string& name) {
  // the kNN pipeline's "chunks" became slices, "chunk" keeping its one meaning, a rank's share
  if (name == "TRIDENT_KNN_CHUNKS") return "TRIDENT_KNN_SLICES";
  return "";
}

}  // namespace

std::vector<std::string> override_names() {
  std::vector<std::string> names;
  for (const Knob& knob : knobs()) names.push_back(knob.name);
  return names;
}

std::string Overrides::describe() const {
  if (active.empty()) return "none";
  std::string text;
  for (const std::string& entry : active) text += (text.empty() ? "" : " ") + entry;
  return text;
}

Overrides parse_overrides(const std::vector<std::string>& environment) {
  Overrides overrides;
  const std::vector<std::string> names = override_names();
  for (const Knob& knob : knobs()) {
    const std::string prefix = std::string(knob.name) + "=";
    for (const std::string& entry : environment) {
      if (entry.compare(0, prefix.size(), prefix) != 0) continue;
      const std::string value = entry.substr(prefix.size());
      if (value.empty()) continue;
      if (!knob.read(value, overrides))
        throw InputError(std::string(knob.name) + ": expected " + knob.takes + ", got '" + value + "'");
      overrides.active.push_back(entry);
    }
  }
  for (const std::string& entry : environment) {
    if (entry.compare(0, 8, "TRIDENT_") != 0) continue;
    const std::string name = entry.substr(0, entry.find('='));
    bool known = false;
    for (const auto& n : names) known = known || n == name;
    for (const auto& n : script_names()) known = known || n == name;
    if (known) continue;
    std::string line = name + " is not a trident setting and is ignored";
    const std::string suggestion = renamed(name).empty() ? closest(name, names) : renamed(name);
    if (!suggestion.empty()) line += "; did you mean " + suggestion + "?";
    overrides.warnings.push_back(line);
  }
  return overrides;
}

const Overrides& read_overrides() {
  static const Overrides overrides = [] {
    std::vector<std::string> environment;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) environment.emplace_back(*entry);
    return parse_overrides(environment);
  }();
  return overrides;
}

}  // namespace trident::core
