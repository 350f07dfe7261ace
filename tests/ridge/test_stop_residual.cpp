// LSMR's stop reason 1 (||r|| small for btol, on a compatible system): with atol = 0 only
// btol can stop it, so a solver that ignored btol would run on to machine precision (4) or
// its iteration limit (7). Both engines, float64.
#include <gtest/gtest.h>

#include <vector>

#include "ridge/detail/lsmr_sweep.hpp"
#include "ridge/detail/problem.hpp"

namespace trident::ridge {
namespace {

TEST(RidgeStopResidual, BtolAloneStopsACompatibleSystemWithReasonOne) {
  // A diagonally dominant 40 x 40 matrix and b = A x for x = (1, 2, ..., 40): compatible.
  const int n = 40;
  std::vector<Triplet> entries;
  std::vector<double> b(n, 0.0);
  for (int i = 0; i < n; ++i) {
    entries.push_back({i, i, 4.0});
    entries.push_back({i, (i + 1) % n, 1.0});
    b[i] = 4.0 * (i + 1) + 1.0 * ((i + 1) % n + 1);
  }
  Problem p;
  p.a = csr_from_triplets(n, n, entries);
  p.b = b;
  LsmrOptions options;
  options.atol = 0;
  options.btol = 1e-8;
  options.conlim = 0;
  options.max_iterations = 200;
  for (const ridge::RidgeKernels kernels : {ridge::RidgeKernels::fused, ridge::RidgeKernels::kokkos_kernels}) {
    SweepSolver solver(p, true, kernels);
    const SweepOutcome out = solver.solve({1e-12}, options, false);
    ASSERT_EQ(out.lambdas.size(), 1u);
    EXPECT_EQ(out.lambdas[0].stop_reason, kStopResidualSmall) << ridge::kernels_name(kernels);
    EXPECT_LT(out.lambdas[0].iterations, 200) << ridge::kernels_name(kernels);
    EXPECT_LE(out.lambdas[0].residual_norm, 1e-6 * 250) << ridge::kernels_name(kernels);  // btol ||b|| and then some
  }
}

}  // namespace
}  // namespace trident::ridge
