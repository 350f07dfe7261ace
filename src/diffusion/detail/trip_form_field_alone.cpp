// The trip launches of one form (trip_launch.hpp): a diffusivity field alone (its ghosts held still, no source).
#include "diffusion/detail/trip_launch.hpp"

TRIDENT_TRIP_FORM_INSTANCES(trident::diffusion::trips::kField)
