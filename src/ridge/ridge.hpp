#pragma once
// The ridge study's public face: its line in app's table of studies (core/study.hpp), its
// deck section's settings (ridge/settings.hpp) and its driver (study.hpp).
#include "core/study.hpp"
#include "ridge/settings.hpp"
#include "ridge/detail/study.hpp"

namespace trident::ridge {

// "ridge": the section `ridge:`, checkpoints marked by /ridge/done.
Study study();

}  // namespace trident::ridge
