#pragma once
// The knn study with k: all: every reference within knn.max_distance of each observation,
// searched in rounds with a stop check between them, written as ragged rows
// (within_rows.hpp) with a checkpoint of the same layout when stopped. study.cpp's
// prepare_study() hands a k: all deck here.
#include <memory>
#include <string>

#include "core/run_context.hpp"
#include "knn/settings.hpp"

namespace trident::knn {

std::unique_ptr<PreparedStudy> prepare_within_study(const KnnSettings& settings, RunContext& context,
                                                    const std::string& checkpoint_path);

}  // namespace trident::knn
