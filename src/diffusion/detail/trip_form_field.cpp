// The trip launches of one form (trip_launch.hpp): a diffusivity field, with following ghosts and a source.
#include "diffusion/detail/trip_launch.hpp"

TRIDENT_TRIP_FORM_INSTANCES(trident::diffusion::trips::kFollow | trident::diffusion::trips::kSource | trident::diffusion::trips::kField)
