#pragma once
// What bench/ times of the ridge study beside whole runs, exported for the benchmarks
// (bench/ridge/products.cpp, bench/io/read_rates.cpp): the row products of A and Aᵀ with
// their device tuning, and the reading of a problem (Matrix Market or HDF5). Nothing else
// outside the study includes detail/.
#include "ridge/detail/device_tuning.hpp"
#include "ridge/detail/matrix_market.hpp"
#include "ridge/detail/problem.hpp"
#include "ridge/detail/row_products.hpp"
