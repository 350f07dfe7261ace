#pragma once
// The ridge study's driver: runs it on every rank and writes /ridge into the output file.
#include <memory>
#include <string>

#include "core/run_context.hpp"
#include "ridge/settings.hpp"

namespace trident::ridge {

// Reads (or generates) and checks the matrix, checks the device memory and sets up the
// sweep before the output exists; run() sweeps, finds the corner and writes /ridge. With
// context.restart_path it loads the λ a stopped run finished and sweeps only the others.
// A stop signal ends a sweep after a block of iterations: the finished λ go to a checkpoint
// at `checkpoint_path` and to the output, then StudyStopped (exit 75).
std::unique_ptr<PreparedStudy> prepare_study(const ridge::RidgeSettings& settings, RunContext& context,
                                             const std::string& checkpoint_path);

// prepare_study(...)->run(output) with the checkpoint beside the output: for tests and
// callers with one study.
void run_study(const ridge::RidgeSettings& settings, RunContext& context, io::OutputFile& output);

}  // namespace trident::ridge
