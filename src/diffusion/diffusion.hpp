#pragma once
// The diffusion study's public face: its line in app's table of studies (core/study.hpp),
// its deck section's settings (diffusion/settings.hpp) and its driver (study.hpp).
#include "core/study.hpp"
#include "diffusion/settings.hpp"
#include "diffusion/detail/study.hpp"

namespace trident::diffusion {

// "diffusion": the section `diffusion:`, checkpoints marked by /field.
Study study();

}  // namespace trident::diffusion
