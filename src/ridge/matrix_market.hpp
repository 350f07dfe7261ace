#pragma once
// Reads a sparse matrix from a Matrix Market file: the coordinate format, fields real,
// integer or pattern, symmetry general or symmetric, % comments. Every problem is an
// InputError "FILE:LINE: what was expected, got what".
#include <istream>
#include <string>

#include "io/text_lines.hpp"
#include "ridge/csr.hpp"

namespace trident::ridge {

HostCsr read_matrix_market(const std::string& path);
// The same from a stream or from lines already opened; `name` stands for the file in
// messages.
HostCsr parse_matrix_market(std::istream& in, const std::string& name);
HostCsr parse_matrix_market(io::TextLines& lines, const std::string& name);

}  // namespace trident::ridge
