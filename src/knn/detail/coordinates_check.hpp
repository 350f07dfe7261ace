#pragma once
// The range check every point reader applies, and its message. The check is a plain
// comparison (NaN fails it); the message is built only for a value that fails.
#include <string>

namespace trident::knn {

inline bool latitude_ok(double v) { return v >= -90.0 && v <= 90.0; }
inline bool longitude_ok(double v) { return v >= -180.0 && v <= 180.0; }

// Throws InputError "WHERE: expected a latitude in [-90, 90] degrees, got SHOWN" (or the
// longitude's), SHOWN being "NaN" for a NaN and `shown` (the value as written) otherwise.
[[noreturn]] void throw_bad_coordinate(double v, bool latitude, const std::string& where,
                                       const std::string& shown);

// The shortest of %.15g..%.17g that reads back as v ("NaN" for a NaN): how a value read
// from a binary file is shown in a message.
std::string number_text(double v);

}  // namespace trident::knn
