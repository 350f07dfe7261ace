#pragma once
// What the fused engine's products ask of the device they run on, once at set-up: the
// threads that keep it busy, the cache its gathers hit, and the most lanes a row may have.
// Host back ends answer so that rows stay whole, unbanded and one lane each.
#include <cstddef>
#include <cstdint>

namespace trident::ridge {

// Threads a product should have to keep the device busy: rows too few and long for that
// are cut into segments (row_schedule.hpp). Half of an H200's resident threads (132
// multiprocessors x 2048), so that the tutorial's 15000 rows x 16 lanes stay whole. 0 on
// host back ends, whose threads are few.
std::int64_t fill_threads();

// Bytes of the device cache that gathers of a vector hit (the L2 on CUDA devices): the
// column bands' budget (choose_column_bands). 0 on host back ends: no bands.
std::int64_t gather_cache_bytes();

// The most lanes that share one row of a product with a vector of `vector_bytes` scalars
// (rows shorter on average get fewer: row_schedule.hpp): one on host back ends; on GPUs
// half a warp for float vectors and a warp for double ones, the faster of the two on the
// tutorial's sweep for each (docs/history/ridge.md, "Lanes per row").
int row_lanes(std::size_t vector_bytes);

}  // namespace trident::ridge
