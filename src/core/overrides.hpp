#pragma once
// The one owner of trident's environment overrides (TRIDENT_*): every name, its syntax and
// its parsed value. They are read once at start (read_overrides), a bad value is an
// InputError (exit 2) naming the variable before any work, an unknown TRIDENT_* name is
// warned with a "did you mean", and the active ones go to the run log, `trident info` and
// the output's provenance. Studies receive the parsed values as options; nothing else in
// trident calls getenv for them.
#include <string>
#include <utility>
#include <vector>

namespace trident::core {

// auto|on|off knobs: automatic leaves the choice to trident.
enum class Switch { automatic, on, off };

// A count knob, auto|off|N: 0 is auto, -1 is off, N > 0 the count asked for.
using AutoOffCount = int;

struct Overrides {
  // For users (docs/tuning.md, "Environment variables").
  std::string device_comm = "auto";  // TRIDENT_DEVICE_COMM: auto|nccl|mpi|host-staging
  Switch gpu_aware_mpi = Switch::automatic;  // TRIDENT_GPU_AWARE_MPI: auto|on|off
  Switch peer_memory = Switch::automatic;    // TRIDENT_PEER_MEMORY: auto|off

  // For comparing kernels and schedules in benchmarks; the automatic choices are best.
  int diffusion_trip_steps = 0;             // TRIDENT_DIFFUSION_TRIP_STEPS: auto (0) or 1..8
  std::string knn_lists = "auto";           // TRIDENT_KNN_LISTS: auto|registers|buffers|select
  int knn_slices = 0;                       // TRIDENT_KNN_SLICES: auto (0) or 1..64
  Switch knn_list_bound = Switch::automatic;  // TRIDENT_KNN_LIST_BOUND: auto|on|off
  Switch ridge_graphs = Switch::automatic;    // TRIDENT_RIDGE_GRAPHS: auto|on|off
  AutoOffCount ridge_row_segments = 0;      // TRIDENT_RIDGE_ROW_SEGMENTS: auto|off|N (packs)
  int ridge_row_lanes = 0;                  // TRIDENT_RIDGE_ROW_LANES: auto (0) or 1, 2, 4, 8, 16, 32
  AutoOffCount ridge_column_bands = 0;      // TRIDENT_RIDGE_COLUMN_BANDS: auto|off|N (bands)
  Switch ridge_device_setup = Switch::automatic;  // TRIDENT_RIDGE_DEVICE_SETUP: auto|on|off

  // The overrides set in the environment, "NAME=VALUE", in the order of the table above.
  std::vector<std::string> active;
  // One line per TRIDENT_* name trident does not know, with a "did you mean" when one is close.
  std::vector<std::string> warnings;

  // "none" or the active overrides joined by spaces, for logs and provenance.
  std::string describe() const;
};

// Parses `environment` ("NAME=VALUE" entries, as in environ). Throws InputError naming the
// variable and the values it takes on the first bad value. An empty value counts as unset.
Overrides parse_overrides(const std::vector<std::string>& environment);

// parse_overrides of this process's environment, read once; later calls return the same.
const Overrides& read_overrides();

// The names of every override (for documentation checks and the unknown-name warning).
std::vector<std::string> override_names();

}  // namespace trident::core
