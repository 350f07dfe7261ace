#pragma once
// Fast parsing of the common spellings of numbers in text inputs. Each function accepts
// only a subset of what the C library's strtoll/strtod accept (no '+', no hexadecimal, no
// out-of-range or subnormal results) and gives the same value for it; a reader falls back
// to its strtoll/strtod rule when one says no, so what it accepts and the values it reads
// do not change, only how fast the common case goes.
#include <cfloat>
#include <charconv>
#include <cmath>

namespace trident::io {

// 1 to 18 decimal digits at p (no sign), advancing p past them: no overflow possible.
inline bool plain_digits(const char*& p, const char* end, long long& out) {
  const char* start = p;
  long long value = 0;
  while (p < end && *p >= '0' && *p <= '9' && p - start < 18) value = 10 * value + (*p++ - '0');
  if (p == start || (p < end && *p >= '0' && *p <= '9')) return false;
  out = value;
  return true;
}

// An optional '-' and 1 to 18 digits filling [begin, end) exactly.
inline bool plain_integer(const char* begin, const char* end, long long& out) {
  const bool negative = begin < end && *begin == '-';
  const char* p = begin + (negative ? 1 : 0);
  if (!plain_digits(p, end, out) || p != end) return false;
  if (negative) out = -out;
  return true;
}

// A decimal number filling [begin, end) exactly, correctly rounded (std::from_chars).
// Says no to a subnormal result and to 0 from nonzero digits, where strtod reports ERANGE.
inline bool plain_double(const char* begin, const char* end, double& out) {
  const auto [stop, error] = std::from_chars(begin, end, out);
  if (error != std::errc() || stop != end) return false;
  if (std::fabs(out) >= DBL_MIN || std::isnan(out)) return true;
  if (out != 0.0) return false;
  for (const char* p = begin; p < end && *p != 'e' && *p != 'E'; ++p)
    if (*p >= '1' && *p <= '9') return false;
  return true;
}

}  // namespace trident::io
