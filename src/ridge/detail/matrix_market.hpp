#pragma once
// Reads a sparse matrix from a Matrix Market file: the coordinate format, fields real,
// integer or pattern, symmetry general or symmetric, % comments. Every problem is an
// InputError "FILE:LINE: what was expected, got what".
#include <istream>
#include <string>

#include "io/text_lines.hpp"
#include "ridge/detail/csr.hpp"

namespace trident::ridge {

HostCsr read_matrix_market(const std::string& path);

// The banner and the size line, checked as read_matrix_market checks them (the same
// messages), the entries not read: what `validate` reads of the file. With `lines`, they
// are left at the first line after the size line.
struct MatrixMarketHeader {
  long long rows = 0, columns = 0, entries = 0;
  std::string field;  // real, integer or pattern (lower case)
  bool pattern = false, integer = false, symmetric = false;
};
MatrixMarketHeader read_matrix_market_header(const std::string& path);
MatrixMarketHeader read_matrix_market_header(io::TextLines& lines, const std::string& name);
// The same from a stream or from lines already opened; `name` stands for the file in
// messages.
HostCsr parse_matrix_market(std::istream& in, const std::string& name);
HostCsr parse_matrix_market(io::TextLines& lines, const std::string& name);

}  // namespace trident::ridge
