#pragma once
// The `ridge:` section of a deck, typed and validated: plain settings, read by settings.cpp.
#include <cstdint>
#include <string>
#include <vector>

#include "core/precision.hpp"

namespace trident::deck {
class Section;  // deck/reader.hpp: settings.cpp reads the section through it
}

namespace trident::ridge {

// Where the matrix A comes from.
struct RidgeMatrixSettings {
  enum class Kind { generate, matrix_market, hdf5 };
  Kind kind = Kind::generate;
  // generate: rows x columns, round(density * rows * columns) nonzeros, values uniform in [0,1)
  std::int64_t rows = 0;
  std::int64_t columns = 0;
  double density = 0.0;
  std::uint64_t seed = 1;
  // matrix_market: the file; hdf5: the file and the CSR group in it
  std::string file;
  std::string group;
  std::string where;  // "FILE:LINE:COL: ridge.matrix", prefix of run-time messages about it
};

// Where the right-hand side b comes from.
struct RidgeRhsSettings {
  enum class Kind { generate, hdf5 };
  Kind kind = Kind::generate;
  double mean = 3.0;  // generate: normal(mean, std)
  double std = 1.0;
  std::uint64_t seed = 2;
  std::string file;     // hdf5
  std::string dataset;  // hdf5
  std::string where;    // "FILE:LINE:COL: ridge.rhs"
};

// Which kernels run the LSMR iterations: trident's fused ones (products with the norms
// fused in, 16-bit indices where they fit, the λ recurrences on the device) or Kokkos
// Kernels' spmv and BLAS (cuSPARSE and cuBLAS underneath where built with them).
enum class RidgeKernels { fused, kokkos_kernels };
const char* kernels_name(RidgeKernels k);

// LSMR's stopping rules (Fong & Saunders; the names and meanings of SciPy's lsmr), and the
// kernels.
struct RidgeSolverSettings {
  double atol = 1e-6;
  double btol = 1e-6;
  double conlim = 1e8;
  std::int64_t max_iterations = 0;  // 0: min(rows, columns)
  RidgeKernels kernels = RidgeKernels::fused;
};

// The rule whose λ the run chooses (ridge.select; every computed rule is reported).
enum class RidgeRule { corner, discrepancy, quasi_optimality, gcv };
const char* rule_name(RidgeRule r);

// A vector read from an HDF5 dataset: the prior x0 (columns numbers) or the row weights
// (rows numbers); unset when the file is empty.
struct RidgeVectorFile {
  std::string file;
  std::string dataset;
  std::string where;  // "FILE:LINE:COL: ridge.prior"
  bool given() const { return !file.empty(); }
};

struct RidgeSettings {
  RidgeMatrixSettings matrix;
  RidgeRhsSettings rhs;
  std::vector<double> lambdas;  // sorted ascending, distinct, all > 0
  RidgeSolverSettings solver;
  // on the device: float32 (A, A^T and vectors in single precision), float64, or mixed (A
  // and A^T in float32, vectors and the products' sums in float64)
  core::Precision precision = core::Precision::float32;
  bool keep_solutions = false;
  std::int64_t refine_corner = 0;  // extra λ values between the corner's neighbours
  RidgeRule select = RidgeRule::corner;
  double noise_level = 0;  // sigma of the noise in b; 0: not given (no discrepancy rule)
  double tau = 1;          // the discrepancy's safety factor
  std::int64_t refine_discrepancy = 0;  // extra λ inside the discrepancy's bracket
  std::int64_t gcv_probes = 0;          // random probes of GCV's trace; 0: no GCV
  std::uint64_t gcv_seed = 1;
  // when GCV's probes stop: false (`minimum`), once no further step can change the chosen λ;
  // true (`all`), once every converged λ's G has settled
  bool gcv_settle_all = false;
  RidgeVectorFile prior;    // x0 of min ||A x - b||^2 + λ^2 ||x - x0||^2
  RidgeVectorFile weights;  // w of min ||W^(1/2) (A x - b)||^2 + λ^2 ||x - x0||^2
  // Groups of ranks that split the λ list (each group's ranks split the rows of A); 0: the
  // run chooses. Must divide the rank count (checked when the run knows it).
  std::int64_t lambda_groups = 0;
  std::string lambda_groups_where;  // "FILE:LINE:COL: ridge.lambda_groups"
};

// Reads `ridge:` from the top-level section (the caller checked that it is there).
RidgeSettings parse_ridge(const deck::Section& top);

// ridge.lambda_groups against a job of `ranks` ranks: InputError when the groups do not
// divide them (run and validate --ranks N both check it before any work).
void check_lambda_groups(const RidgeSettings& settings, int ranks);

}  // namespace trident::ridge
