#pragma once
// The ridge study's driver: runs it on every rank and writes /ridge into the output file.
#include <memory>

#include "core/run_context.hpp"
#include "deck/ridge_settings.hpp"

namespace trident::ridge {

// Reads (or generates) and checks the matrix, checks the device memory and sets up the
// sweep before the output exists; run() sweeps, finds the corner and writes /ridge.
std::unique_ptr<PreparedStudy> prepare_study(const deck::RidgeSettings& settings, RunContext& context);

// prepare_study(...)->run(output): for tests and callers with one study.
void run_study(const deck::RidgeSettings& settings, RunContext& context, io::OutputFile& output);

}  // namespace trident::ridge
