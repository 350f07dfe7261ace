#include "knn/detail/coordinates_check.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/error.hpp"

namespace trident::knn {

void throw_bad_coordinate(double v, bool latitude, const std::string& where, const std::string& shown) {
  throw InputError(where + ": expected a " +
                   std::string(latitude ? "latitude in [-90, 90]" : "longitude in [-180, 180]") +
                   " degrees, got " + (std::isnan(v) ? std::string("NaN") : shown));
}

std::string number_text(double v) {
  if (std::isnan(v)) return "NaN";
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  for (int digits = 15; digits < 17; ++digits) {
    char shorter[40];
    std::snprintf(shorter, sizeof shorter, "%.*g", digits, v);
    if (std::strtod(shorter, nullptr) == v) return shorter;
  }
  return buffer;
}

}  // namespace trident::knn
