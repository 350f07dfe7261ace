#pragma once
// diffusion.c: {file, dataset}: the diffusivity cell by cell (stencil_field.hpp's step). Read
// like a start file (each rank its block, any numeric type, a non-finite value refused naming
// the cell), its halo filled by the halo exchange (periodic wraps included), each ghost given
// its edge cell's c, then checked before any step: a negative c, or a cell whose faces pass
// more than all of its value a step (unstable), is refused naming the first such cell as (y, x).
#include "diffusion/settings.hpp"
#include "diffusion/detail/decomposition.hpp"
#include "diffusion/detail/stencil.hpp"

namespace trident::diffusion {

// What the messages call the file.
constexpr const char* kCFileRole = "diffusivity file (diffusion.c.file)";

// The block of the file's dataset in a grid with a halo `width` deep (halo still to fill).
template <class T>
Grid<T> read_c_field(const DiffusionSettings& s, const Decomposition& d, int width);

// Once the halo is filled: the ghosts of the sides on the domain's edge take their edge
// cells' c, then the checks (collective: the same InputError on every rank).
template <class T>
void finish_c_field(const Grid<T>& cf, const DiffusionSettings& s, const Decomposition& d, int width);

}  // namespace trident::diffusion
