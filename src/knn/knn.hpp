#pragma once
// The knn study's public face: its line in app's table of studies (core/study.hpp), its deck
// section's settings (knn/settings.hpp) and its driver (study.hpp).
#include "core/study.hpp"
#include "knn/settings.hpp"
#include "knn/detail/study.hpp"

namespace trident::knn {

// "knn": the section `knn:`, checkpoints marked by /knn/done.
Study study();

}  // namespace trident::knn
