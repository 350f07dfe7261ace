#pragma once
// Host loops over large arrays on the CPUs the process may use. The CUDA build's host back
// end is Kokkos::Serial, so work the host must do per item (turning 2^24 coordinates into
// unit vectors, say) would otherwise run on one core while the others idle.
#include <cstdint>
#include <functional>

namespace trident::core {

// The CPUs in this process's affinity mask (a launcher that binds each rank to some cores
// leaves it those), at least 1.
int usable_cpus();

// The ranks of this host whose CPU masks overlap this process's (ranks launched unbound each
// see every CPU), set once MPI has started (Runtime); 1 until then.
void set_cpu_sharers(int ranks);
int cpu_sharers();
// The threads a host loop takes: usable_cpus() shared out among those ranks, at least 1, so
// that four unbound ranks of a 64-CPU host run 16 threads each rather than 64 each.
int host_threads();
// That share for `cpus` CPUs among `ranks` ranks (what host_threads() takes; the rank line
// reports it).
int host_threads_for(int cpus, int ranks);

// Calls body(begin, end) on contiguous ranges that cover [0, count) once each, on up to
// host_threads() threads (the calling thread is one of them), each range at least
// `min_per_thread` items long. What body does to an item must not depend on which range
// holds it. An exception from a range is rethrown here, after every thread has stopped.
void host_parallel_ranges(std::int64_t count, std::int64_t min_per_thread,
                          const std::function<void(std::int64_t begin, std::int64_t end)>& body);

}  // namespace trident::core
