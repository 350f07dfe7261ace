#pragma once
// diffusion.source: s added to each cell a step, after the neighbour sum, as its own small
// kernel on the cells the step computed (u_new = (u - c L(u)) + s, the same bits as adding it
// in the step's kernel), so the kernels without a source are untouched. A field source is
// held with the fields' halo: cells of the neighbours' blocks that deep halos recompute get
// their own s. Trips of several steps add it in their own kernel, in the same order
// (trip_kernel.hpp).
#include <cstdint>
#include <string>

#include "diffusion/settings.hpp"
#include "diffusion/detail/decomposition.hpp"
#include "diffusion/detail/stencil.hpp"

namespace trident::diffusion {

template <class T>
struct Source {
  enum class Kind { none, constant, field };
  Kind kind = Kind::none;
  T value = T(0);  // constant
  Grid<T> field;   // field: s on the block and its halo (the caller fills the halo)

  bool present() const { return kind != Kind::none; }
  // Adds s to `next` on `box` (queued on `space`); a sum that is not finite lowers
  // `first_bad` to `step` + 1, as the step's kernels do.
  void add(const ExecutionSpace& space, const Grid<T>& next, const Box& box, std::int64_t step,
           const Kokkos::View<std::int64_t>& first_bad) const;
};

// The deck's source for `d`'s block in a grid with a halo `width` deep: a number, or the
// block of the file's dataset (read, checked for non-finite values naming the cell as (y, x),
// converted; InputError on every rank alike for a bad file) with its halo still to fill.
template <class T>
Source<T> read_source(const SourceSettings& s, const Decomposition& d, int width);

}  // namespace trident::diffusion
