#pragma once
// kmath::sqrt, kmath::exp, ...: Kokkos' math functions, usable on the host and in device
// kernels, under one name whatever the Kokkos version (they moved from
// Kokkos::Experimental to Kokkos in 3.7).
#include <Kokkos_Core.hpp>

namespace trident {
#if KOKKOS_VERSION >= 30700
namespace kmath = ::Kokkos;
#else
namespace kmath = ::Kokkos::Experimental;
#endif
}  // namespace trident
