#pragma once
// The knn study's driver: runs it on every rank and writes /knn into the output file.
#include <memory>
#include <string>

#include "core/run_context.hpp"
#include "knn/settings.hpp"

namespace trident::knn {

// Reads and checks the points (and, with context.restart_path, the checkpoint's finished
// rows) before the output exists; run() searches and writes /knn. A stop signal ends the
// search after the round under way with a checkpoint at `checkpoint_path`, the rows so
// far in the output and StudyStopped (exit 75).
std::unique_ptr<PreparedStudy> prepare_study(const KnnSettings& settings, RunContext& context,
                                             const std::string& checkpoint_path);

// prepare_study(...)->run(output) with the checkpoint beside the output: for tests and
// callers with one study.
void run_study(const KnnSettings& settings, RunContext& context, io::OutputFile& output);

}  // namespace trident::knn
