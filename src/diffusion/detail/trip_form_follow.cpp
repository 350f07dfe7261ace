// The trip launches of one form (trip_launch.hpp): ghosts that follow their edge cells (neumann, convective).
#include "diffusion/detail/trip_launch.hpp"

TRIDENT_TRIP_FORM_INSTANCES(trident::diffusion::trips::kFollow)
