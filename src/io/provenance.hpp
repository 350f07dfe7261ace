#pragma once
// Provenance and timings in the root of an output file, so that every result says how
// it was made: deck text, versions, ranks, backend and devices, start and end time.
#include <string>
#include <vector>

#include "core/runtime.hpp"
#include "core/timers.hpp"
#include "io/output_file.hpp"

namespace trident::io {

std::string utc_now();  // ISO 8601 to the millisecond, "Z"

// Root attributes written at the start of a run: the deck as written and as resolved (every
// key with the value it ran with, deck/reader.hpp), the title naming the deck's `studies`,
// versions, ranks, devices. Collective (gathers device names).
void write_provenance(OutputFile& file, const std::string& deck_file, const std::string& deck_text,
                      const std::string& resolved_deck, const std::vector<std::string>& studies,
                      const DeviceBinding& binding, const std::string& start_time);

// "SHA256  PATH" lines for the files, as `sha256sum` prints them (a file that cannot be
// read gets an "unreadable: ..." line instead).
std::string checksums(const std::vector<std::string>& paths);

// End time, the run's status ("completed" or why it stopped), the input files' checksums
// (rank 0's `input_checksums`, from checksums()) and /timings (one attribute per phase: the
// slowest rank's seconds). Collective.
void write_run_end(OutputFile& file, const std::string& status, const Timers& timers,
                   const std::string& input_checksums);

}  // namespace trident::io
