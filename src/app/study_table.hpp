#pragma once
// The table of studies: one line per study (core/study.hpp). `run`, `validate` and the run's
// plan loop over it and name no study themselves.
#include <vector>

#include "core/study.hpp"

namespace trident::app {

// The studies in the order a deck's sections run: diffusion, knn, ridge, then any added.
const std::vector<Study>& study_table();

// Adds a study after the built-in ones (a program or test that brings its own). Its name
// must be new; call it before any command runs.
void add_study(Study study);

}  // namespace trident::app
