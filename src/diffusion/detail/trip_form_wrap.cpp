// The trip launches of one form (trip_launch.hpp): c's plain update, a lone block's periodic axes read wrapped.
#include "diffusion/detail/trip_launch.hpp"

TRIDENT_TRIP_FORM_INSTANCES(trident::diffusion::trips::kWrap)
