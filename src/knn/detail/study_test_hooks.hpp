#pragma once
// Test hooks of the knn study: what the search did (its tiles, batches, rows searched
// again), which the output does not record but the MPI tests check so that a deck forcing
// small tiles and batches is known to have used them. Production code leaves them unset
// (the app never includes this header); tests pass them to the prepare_study() below.
#include <memory>
#include <string>

#include "core/run_context.hpp"
#include "knn/settings.hpp"
#include "knn/detail/search_profile.hpp"

namespace trident::knn {

struct StudyTestHooks {
  SearchProfile* profile = nullptr;  // when set, run() copies its search's profile here
};

// study.hpp's prepare_study() with `hooks`.
std::unique_ptr<PreparedStudy> prepare_study(const KnnSettings& settings, RunContext& context,
                                             const std::string& checkpoint_path, const StudyTestHooks& hooks);

}  // namespace trident::knn
