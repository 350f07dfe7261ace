#pragma once
// The ghost cells beyond the domain's edges, by diffusion.boundary's rules. The step kernels
// read ghosts like any halo cell, so the rules cost them nothing: a dirichlet ghost is set
// once in both fields and never written again; a periodic side is a halo that the exchange
// fills from the opposite edge (Decomposition wraps the neighbours); a neumann or convective
// ghost follows its edge cell, so follow() sets it before every single step (the trips set it
// at each of their steps themselves).
//   neumann      ghost = edge
//   convective   ghost = edge + (h / c) (ambient - edge): the face then passes
//                c (ghost - edge) = h (ambient - edge) of the edge cell's value a step
//                (c the face's: c_x on west and east, c_y on south and north)
#include <array>

#include "diffusion/settings.hpp"
#include "diffusion/detail/decomposition.hpp"
#include "diffusion/detail/stencil.hpp"

namespace trident::diffusion {

template <class T>
class Edges {
 public:
  // The rules of the sides of `d`'s block that lie on the domain's edge, for a grid with a
  // halo `width` cells deep; `cx`, `cy` the diffusion numbers along x and y.
  Edges(const std::array<Boundary, 4>& rules, double cx, double cy, const Decomposition& d, int width);
  // The plain default: every side dirichlet 0 (nothing to do, the fields start at zero).
  Edges() = default;

  // With a diffusivity field (diffusion.c: {file, dataset}; stencil_field.hpp): a
  // convective ghost uses its face's c, from `cf` (block, halo and ghosts filled), not c_x/c_y.
  void use_field(const Grid<T>& cf) { cf_ = cf; }
  // Sets the dirichlet ghosts of `grid` (u and next once each, before the first step).
  void set_fixed(const Grid<T>& grid) const;
  // Whether some ghost follows its edge cell (neumann or convective): the same on every rank.
  bool follows() const { return follows_; }
  // Sets the neumann and convective ghosts of `u` from its edge cells (rows or columns of a
  // halo toward a neighbour included, where they are current), queued on `space`.
  void follow(const ExecutionSpace& space, const Grid<T>& u) const;

  // The sides with a rule to keep (the trips set the following ones themselves, trip.hpp).
  struct Line;
  int lines() const { return count_; }
  const Line& line(int k) const { return lines_[k]; }

  // One side's ghosts (public: CUDA's device lambdas cannot capture a private type).
  struct Line {
    BoundaryKind kind;
    bool vertical;     // west or east: a column of ghosts
    int ghost, edge;   // the ghosts' column (or row), and the edge cells'
    int first, last;   // the rows (or columns) [first, last) along it
    T value, ratio;    // dirichlet's value, convective's ambient; convective's h / c
    T h;               // convective's h
  };

 private:
  Grid<T> cf_;  // a diffusivity field, or empty
  Line lines_[4]{};
  int count_ = 0;
  int width_ = 1;
  bool follows_ = false;
};

}  // namespace trident::diffusion
