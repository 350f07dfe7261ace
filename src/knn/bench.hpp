#pragma once
// What bench/ times of the knn study beside whole runs, exported for the benchmarks
// (bench/knn/refs.cpp, bench/io/read_rates.cpp): the search on points in memory (the k
// nearest through the brute force or the spatial index, every reference within a distance),
// the cost model behind knn.method: auto, and the reading of a point set. Nothing else
// outside the study includes detail/.
#include "knn/detail/index/cost_model.hpp"
#include "knn/detail/index/index_search.hpp"
#include "knn/detail/points.hpp"
#include "knn/detail/search.hpp"
#include "knn/detail/within_search.hpp"
