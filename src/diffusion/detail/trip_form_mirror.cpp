// The trip launches of one form (trip_launch.hpp): c's plain update, neumann's sides read mirrored.
#include "diffusion/detail/trip_launch.hpp"

TRIDENT_TRIP_FORM_INSTANCES(trident::diffusion::trips::kMirror)
