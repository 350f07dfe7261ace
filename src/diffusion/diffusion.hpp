#pragma once
// The diffusion study's public face: its line in app's table of studies (core/study.hpp),
// its deck section's settings (deck/diffusion_settings.hpp) and its driver (study.hpp).
#include "core/study.hpp"
#include "deck/diffusion_settings.hpp"
#include "diffusion/study.hpp"

namespace trident::diffusion {

// "diffusion": the section `diffusion:`, checkpoints marked by /field.
Study study();

}  // namespace trident::diffusion
