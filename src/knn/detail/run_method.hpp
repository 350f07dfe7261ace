#pragma once
// knn.method in a run (study.cpp): the method chosen before work from the counts, k and the
// device memory the spatial index takes, said in the log with why; the index built once on
// every rank (its own timer phase, counted in the search time), its shape logged, and shared
// by every round through SearchOptions::index; the warm-up and the device arrays of a
// search through it, made before the timed search.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "knn/settings.hpp"
#include "knn/detail/geometry.hpp"
#include "knn/detail/inputs.hpp"
#include "knn/detail/search_options.hpp"
#include "transport/staged_upload.hpp"

namespace trident::knn {

struct RunMethod {
  bool use_index = false;
  std::string reason;  // the method and why, for the log
};

// knn.method for `n_obs` observations (`rows` of them on this rank) over `n_refs`
// references: the cost model's choice (index/cost_model.hpp), with the device memory that the
// index's build and a batch of the rank's rows take checked on every rank. Where it does not
// fit on some rank, knn.method: index is refused (InputError naming knn.method, on every
// rank) and auto takes the brute force. Collective.
RunMethod choose_run_method(const KnnSettings& settings, std::int64_t n_obs, std::int64_t rows,
                            std::int64_t n_refs, MPI_Comm comm, const std::string& device);
// choose_run_method for the point sets of `inputs` on `device` (empty: "the device"), its
// choice and why logged ("knn: method ..."): what both the k-nearest and the distance
// studies do before their output exists. Collective.
RunMethod choose_logged_run_method(const KnnSettings& settings, const KnnInputs& inputs, MPI_Comm comm,
                                   const std::string& device);

// Builds the index of the first few references and drops it: CUDA loads each of the
// build's kernels (and the sort's) at its first launch, milliseconds apiece, which the timed
// build would otherwise hold.
void warm_up_index_build(const std::vector<Vec4<double>>& references);

// Builds the index of `references` into options.index on every rank and logs its shape
// (leaves, levels, device bytes) and build time; returns the build's seconds on this rank.
// The references go up through `upload` where given (build_sphere_index). Collective.
double build_run_index(const std::vector<Vec4<double>>& references, SearchOptions& options, MPI_Comm comm,
                       transport::StagedUpload* upload = nullptr);

// Before a search in rounds through options.index: a search of up to 256 of the `count`
// observations (CUDA loads each kernel's module at its first launch), and the device
// arrays of the largest round allocated in options.device_buffers.
void warm_up_index(const Vec4<double>* observations, std::int64_t count, const SearchOptions& options);

}  // namespace trident::knn
