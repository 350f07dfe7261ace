#pragma once
// The command line: trident run DECK [options] | validate DECK [options] | info | --version |
// --help.
#include <string>
#include <vector>

#include "core/log.hpp"

namespace trident::app {

struct CommandLine {
  std::string command;   // run, validate, info, version, help
  std::string deck;
  std::string output;    // --output FILE: replaces the deck's output.file
  std::string restart;   // --restart CHECKPOINT
  bool overwrite = false;  // --overwrite
  bool gathered_io = false;  // --gathered-io: write through rank 0 even with parallel HDF5
  int ranks = 0;  // validate --ranks N: the job size to check the deck for; 0: validate's own
  log::Verbosity verbosity = log::Verbosity::normal;  // --quiet, --verbose
};

// Parses arguments after the program name (Kokkos has removed its --kokkos-* ones).
// Throws InputError for an unknown command or option (with the closest known one, if any
// is close), or a missing or bad argument.
CommandLine parse_command_line(const std::vector<std::string>& args);

std::string help_text();

}  // namespace trident::app
