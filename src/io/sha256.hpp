#pragma once
// SHA-256 of a file, for the outputs' provenance: the inputs a run read, named by content.
#include <mpi.h>

#include <string>
#include <vector>

namespace trident::io {

// The file's SHA-256 as 64 lowercase hex digits (what `sha256sum` prints). Throws RunError
// naming the file when it cannot be read.
std::string sha256_of_file(const std::string& path);
// The same for bytes in memory (tests).
std::string sha256_of_text(const std::string& bytes);

// The files' digests, read on rank 0 of `comm` alone and given to every rank; "" for an
// empty path (an input that is generated, not read). Collective; a file that cannot be
// read fails every rank with the same RunError.
std::vector<std::string> sha256_on_root(MPI_Comm comm, const std::vector<std::string>& paths);

}  // namespace trident::io
