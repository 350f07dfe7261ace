#pragma once
// Names of files that sit beside an output file.
#include <string>

namespace trident::io {

// "run.h5" -> "run" + suffix; a path without ".h5" keeps its name: "run.out" -> "run.out" + suffix.
inline std::string beside(const std::string& h5_path, const std::string& suffix) {
  const std::string h5 = ".h5";
  const bool has_h5 = h5_path.size() > h5.size() &&
                      h5_path.compare(h5_path.size() - h5.size(), h5.size(), h5) == 0;
  return (has_h5 ? h5_path.substr(0, h5_path.size() - h5.size()) : h5_path) + suffix;
}

// Where a run's checkpoint goes unless the deck names one: "run.h5" -> "run.checkpoint.h5".
inline std::string default_checkpoint_path(const std::string& output_path) {
  return beside(output_path, ".checkpoint.h5");
}

// Where a run's log goes unless the deck names one: "run.h5" -> "run.log".
inline std::string log_path_for(const std::string& output_path) { return beside(output_path, ".log"); }

}  // namespace trident::io
