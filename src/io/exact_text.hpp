#pragma once
// A number as text with every digit it needs to read back the same (17 significant
// digits): checkpoints compare the deck's values with the ones they were written with.
#include <sstream>
#include <string>

namespace trident::io {

inline std::string exact_text(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

}  // namespace trident::io
