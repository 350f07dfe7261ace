#pragma once
// What a run's step computes besides the isotropic constant-c update: the ghosts of the
// domain's edges (boundary.hpp), a source (source.hpp), and the anisotropic update of cells
// with dx != dy (stencil_anisotropic.hpp). The default scheme adds no work to a step.
#include "diffusion/detail/boundary.hpp"
#include "diffusion/detail/source.hpp"

namespace trident::diffusion {

template <class T>
struct Scheme {
  Edges<T> edges;
  Source<T> source;
  bool anisotropic = false;  // c_x != c_y (diffusion.D with dx != dy): the step's c is unused
  T cx = T(0), cy = T(0);
  Grid<T> cf;  // a diffusivity field (stencil_field.hpp), or empty: c's kernels
  bool field() const { return cf.extent(0) > 0; }
  // Whether the step is c's isotropic one (its own kernels for the ring of a step that
  // exchanges: stencil.hpp's step_ring).
  bool plain_c() const { return !anisotropic && !field(); }
};

}  // namespace trident::diffusion
