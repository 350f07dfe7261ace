#pragma once
// SHA-256 of a file, for the outputs' provenance: the inputs a run read, named by content.
#include <string>

namespace trident::io {

// The file's SHA-256 as 64 lowercase hex digits (what `sha256sum` prints). Throws RunError
// naming the file when it cannot be read.
std::string sha256_of_file(const std::string& path);
// The same for bytes in memory (tests).
std::string sha256_of_text(const std::string& bytes);

}  // namespace trident::io
