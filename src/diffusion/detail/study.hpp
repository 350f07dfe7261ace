#pragma once
// The diffusion study's driver: decomposition, start field (or restart), time loop with
// halo exchange, frames, checkpoints, progress, non-finite and stop-signal checks.
#include <memory>
#include <string>

#include "core/run_context.hpp"
#include "diffusion/settings.hpp"

namespace trident::diffusion {

// Settles the rank layout, checks the memory and the checkpoint's place, allocates and
// loads the start field (or the --restart checkpoint). `checkpoint_path` is where
// checkpoints are written (settings.checkpoint_file or the default beside the output).
// Its run() throws StudyStopped (after writing the frames so far) when the field turns
// non-finite (exit 1) or a stop signal arrives (exit 75).
std::unique_ptr<PreparedStudy> prepare_study(const DiffusionSettings& settings, RunContext& context,
                                             const std::string& checkpoint_path);

// prepare_study(...)->run(output): for tests and callers with one study.
void run_study(const DiffusionSettings& settings, RunContext& context, io::OutputFile& output,
               const std::string& checkpoint_path);

}  // namespace trident::diffusion
