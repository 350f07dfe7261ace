// knn.method in a run (run_method.hpp).
#include "knn/detail/run_method.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "core/comm.hpp"
#include "core/device_memory.hpp"
#include "core/log.hpp"
#include "knn/detail/index/index_search.hpp"
#include "knn/detail/index/cost_model.hpp"
#include "knn/detail/index/sphere_index.hpp"
#include "knn/detail/result_rows.hpp"
#include "knn/detail/rounds.hpp"

namespace trident::knn {

namespace {

// Rows of a batch the memory check asks room for beside the index: a batch shrinks to the
// memory left (index_search.cpp), but one this small would leave the device mostly idle.
constexpr std::int64_t kFewestBatchRows = 65536;

std::string figure(double v, const char* format) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

}  // namespace

RunMethod choose_run_method(const KnnSettings& settings, std::int64_t n_obs, std::int64_t rows,
                            std::int64_t n_refs, MPI_Comm comm, const std::string& device) {
  const int k = static_cast<int>(settings.k);
  const MethodChoice choice = choose_method(settings.method, n_obs, n_refs, k, kOnDevice);
  RunMethod run{choice.use_index, choice.reason};
  if (!choice.use_index) return run;
  const auto need = static_cast<std::int64_t>(
      sphere_index_build_bytes(n_refs) +
      index_search_bytes(std::min(std::max<std::int64_t>(rows, 1), kFewestBatchRows), k, settings.precision));
  const std::int64_t have = device_free_bytes();
  const std::string what = "the spatial index of " + std::to_string(n_refs) + " references and a batch of " +
                           std::to_string(std::min(std::max<std::int64_t>(rows, 1), kFewestBatchRows)) +
                           " observations with k = " + std::to_string(k);
  if (settings.method == KnnMethod::index) {
    mpi::collective(comm, [&] { check_device_memory(need, have, "knn.method: index", what, device); });
    return run;
  }
  // auto: the brute force where the index does not fit on some rank (it streams its references in tiles)
  const bool short_here = have >= 0 && need > have;
  if (mpi::max_over_ranks(comm, short_here ? 1.0 : 0.0) > 0) {
    run.use_index = false;
    run.reason = "brute (knn.method: auto; " + what + " needs " + gib_text(need) + " of device memory, more than " +
                 (short_here ? device + " has free: " + gib_text(have) : std::string("another rank's device has free")) +
                 ")";
  }
  return run;
}

RunMethod choose_logged_run_method(const KnnSettings& settings, const KnnInputs& inputs, MPI_Comm comm,
                                   const std::string& device) {
  RunMethod method = choose_run_method(settings, inputs.n_observations, inputs.count, inputs.n_references, comm,
                                       device.empty() ? "the device" : device);
  log::info(comm, "knn: method " + method.reason);
  return method;
}

void warm_up_index_build(const std::vector<Vec4<double>>& references) {
  const std::size_t few = std::min<std::size_t>(references.size(), 4096);
  if (few > 0) build_sphere_index(std::vector<Vec4<double>>(references.begin(), references.begin() + few));
}

double build_run_index(const std::vector<Vec4<double>>& references, SearchOptions& options, MPI_Comm comm,
                       transport::StagedUpload* upload) {
  mpi::collective(comm,
                  [&] { options.index = std::make_shared<const SphereIndex>(build_sphere_index(references, upload)); });
  const SphereIndex& index = *options.index;
  const double slowest = mpi::max_over_ranks(comm, index.build_seconds);
  log::info(comm, "knn: spatial index of " + std::to_string(index.view.references) + " references: " +
                      std::to_string(index.view.level_count[0]) + " leaves of up to " + std::to_string(kLeafSize) +
                      ", " + std::to_string(index.view.levels) + " levels of balls (" + std::to_string(kFanout) +
                      " children a node), " + figure(static_cast<double>(index.bytes()) / 1048576.0, "%.1f") +
                      " MiB on each device besides the references' own " +
                      figure(static_cast<double>(index.references.span() * sizeof(Vec4<double>)) / 1048576.0, "%.1f") +
                      " MiB, built in " + figure(slowest, "%.4f") + " s (slowest rank)");
  return index.build_seconds;
}

void warm_up_index(const Vec4<double>* observations, std::int64_t count, const SearchOptions& options) {
  const std::int64_t warm = std::min<std::int64_t>(count, 256);
  if (warm > 0) {
    Neighbours rows;
    allocate_rows(rows, static_cast<std::size_t>(warm * options.k));
    index_nearest_into(*options.index, observations, warm, options, {rows.indices.data(), rows.distances.data()});
  }
  reserve_index_search(largest_round(count, options.index->view.references, options), *options.index, options);
}

}  // namespace trident::knn
