#pragma once
// The L-curve's corner: the point of maximum curvature of (log10 ||b - A x_λ||,
// log10 ||x_λ||) with λ ascending. The curvature at an interior point is the Menger
// curvature of it and its two neighbours: 4 * (area of their triangle) / (product of the
// three side lengths), the inverse radius of the circle through them. It is unsigned, so
// the corner is the sharpest bend whichever way the curve turns: the classic "L" of an
// ill-posed problem (steep at small λ, flat at large λ) and the mirrored shape of a
// well-posed one such as the tutorial's (flat at small λ as the residual vanishes, steep at
// large λ as x vanishes) both get their elbow. Ties go to the smaller λ.
#include <cstddef>
#include <vector>

namespace trident::ridge {

struct Corner {
  long index = -1;  // into the (ascending) λ list; -1 when there are fewer than 3 points
  double lambda = 0;
  double curvature = 0;
};

// Curvature at each point (0 at the two ends and at degenerate triples).
std::vector<double> menger_curvatures(const std::vector<double>& residual_norms,
                                      const std::vector<double>& solution_norms);

Corner find_corner(const std::vector<double>& lambdas, const std::vector<double>& residual_norms,
                   const std::vector<double>& solution_norms);

// `count` new λ values around the corner: half of them (rounded up) spread geometrically
// strictly between the corner's left neighbour and the corner, the rest between the corner
// and its right neighbour. Empty when there is no corner.
std::vector<double> refinement_lambdas(const std::vector<double>& lambdas, const Corner& corner,
                                       long count);

}  // namespace trident::ridge
