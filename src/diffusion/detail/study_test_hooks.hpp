#pragma once
// Test hooks of the diffusion study: a trip shape that the rules give on GPUs only, and the
// timing of the tiles' heights, forced on host back ends too so that the CPU tests run the
// blocked kernel (trip.hpp) and its trial trips (trip_tuner.hpp) through whole runs.
// Production code leaves them unset (the app never includes this header); tests pass them to
// the run_study() below.
#include <string>

#include "core/run_context.hpp"
#include "diffusion/settings.hpp"
#include "diffusion/detail/trip.hpp"

namespace trident::diffusion {

struct StudyTestHooks {
  TripShape trips;          // {}: the rules of steps_per_trip() and the kernel's own tiles
  bool time_tiles = false;  // time the tiles' heights on a host too (trip_tuner.hpp)
};

// study.hpp's run_study() with `hooks`.
void run_study(const DiffusionSettings& settings, RunContext& context, io::OutputFile& output,
               const std::string& checkpoint_path, const StudyTestHooks& hooks);

}  // namespace trident::diffusion
