#pragma once
// What may override the fused engine's automatic choices: the TRIDENT_RIDGE_* knobs read
// by core::Overrides (for comparing variants in benchmarks; the automatic choices are
// best), and tests, which set the fields to take the paths small matrices would not.
#include "core/overrides.hpp"
#include "ridge/detail/row_schedule.hpp"

namespace trident::ridge {

struct EngineOptions {
  // Whether the iterations are recorded once and replayed (CUDA graphs): automatic and on
  // record them on CUDA builds, off queues every kernel (TRIDENT_RIDGE_GRAPHS).
  core::Switch iteration_graphs = core::Switch::automatic;
  // The row schedules of A's and A^T's products.
  ScheduleOptions schedule;
  // Whether A's and A^T's entries are placed on the device (device_entries.hpp):
  // automatic there when it has room, on and off force it (TRIDENT_RIDGE_DEVICE_SETUP).
  core::Switch device_setup = core::Switch::automatic;

  static EngineOptions from_overrides(const core::Overrides& overrides) {
    EngineOptions o;
    o.iteration_graphs = overrides.ridge_graphs;
    o.schedule = ScheduleOptions::from_overrides(overrides);
    o.device_setup = overrides.ridge_device_setup;
    return o;
  }
};

}  // namespace trident::ridge
