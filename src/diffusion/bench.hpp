#pragma once
// What bench/ times of the diffusion study beside whole runs, exported for the benchmarks
// (bench/diffusion/trips.cpp, start_fields.cpp, bench/io/read_rates.cpp): the stencil and
// the trips through memory with their tuner, the decomposition over ranks and the start
// fields. Nothing else outside the study includes detail/.
#include "diffusion/detail/decomposition.hpp"
#include "diffusion/detail/start_field.hpp"
#include "diffusion/detail/stencil.hpp"
#include "diffusion/detail/trip.hpp"
#include "diffusion/detail/trip_tuner.hpp"
