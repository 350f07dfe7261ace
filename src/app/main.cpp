// trident: one executable, a YAML deck in, HDF5 results out. MPI and Kokkos start here;
// everything else lives in the library (see app/commands.hpp).
#include "app/commands.hpp"
#include "core/runtime.hpp"
#include "core/signals.hpp"

int main(int argc, char** argv) {
  // Before anything slow (MPI, device start-up) and before any thread starts: a stop signal
  // that arrives early must be remembered, not end the process, and every thread must
  // inherit the stop signals blocked (see core/signals.cpp).
  trident::signals::install();
  trident::Runtime runtime(argc, argv);
  return trident::app::application(runtime);
}
