// Loading a ridge problem: this rank's block of A from MatrixRows and the same rows of b,
// generated or read from HDF5 and checked against A's row count; and the prior and row
// weights applied to them.
#include "ridge/detail/problem.hpp"

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "io/exact_text.hpp"
#include "io/input_file.hpp"

namespace trident::ridge {

namespace {

// b's rows [first, first + count) for a matrix of `rows` rows.
std::vector<double> rhs_rows(const ridge::RidgeRhsSettings& r, std::int64_t rows, std::int64_t first,
                             std::int64_t count) {
  if (r.kind == ridge::RidgeRhsSettings::Kind::generate) return generate_rhs_rows(first, count, r.mean, r.std, r.seed);
  const io::InputFile in(r.file, kRhsFileRole);
  const std::uint64_t size = hdf5_vector_length(in, r.dataset);
  if (size != static_cast<std::uint64_t>(rows))
    throw InputError(r.file + ":" + r.dataset + ": the right-hand side has " + std::to_string(size) +
                     " entries but the matrix has " + std::to_string(rows) + " rows (" + r.where + ")");
  return read_hdf5_vector_rows(in, r.dataset, first, count);
}

// Entries [first, first + count) of ridge.prior's or ridge.weights' dataset, which must
// hold `length` (the columns or the rows), each finite and, for weights, positive.
std::vector<double> vector_rows(const ridge::RidgeVectorFile& v, const char* role, const std::string& what,
                                const std::string& against, std::int64_t length, bool positive, std::int64_t first,
                                std::int64_t count) {
  const io::InputFile in(v.file, role);
  const std::uint64_t size = hdf5_vector_length(in, v.dataset);
  if (size != static_cast<std::uint64_t>(length))
    throw InputError(v.file + ":" + v.dataset + ": " + what + " has " + std::to_string(size) + " entries but the matrix has " +
                     std::to_string(length) + " " + against + " (" + v.where + ")");
  std::vector<double> out = read_hdf5_vector_rows(in, v.dataset, first, count);
  if (positive)
    for (std::size_t i = 0; i < out.size(); ++i)
      if (!(out[i] > 0))
        throw InputError(v.file + ":" + v.dataset + ": entry " + std::to_string(first + std::int64_t(i)) +
                         " (0-based) is " + io::exact_text(out[i]) + ", but weights must be greater than 0 (" + v.where +
                         ")");
  return out;
}

std::vector<double> prior(const ridge::RidgeSettings& s, std::int64_t columns) {
  return vector_rows(s.prior, "prior file of ridge.prior", "the prior", "columns", columns, false, 0, columns);
}

std::vector<double> weight_rows(const ridge::RidgeSettings& s, std::int64_t rows, std::int64_t first,
                                std::int64_t count) {
  return vector_rows(s.weights, "weights file of ridge.weights", "the weights vector", "rows", rows, true, first, count);
}

// Rows of A and b scaled by sqrt(w), then b <- b - A x0: the weighted problem about x0.
void apply_prior_and_weights(Problem& p, const std::vector<double>& w) {
  HostCsr& a = p.a;
  for (int i = 0; i < a.rows && !w.empty(); ++i) {
    const double root = std::sqrt(w[static_cast<std::size_t>(i)]);
    for (int k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) a.values[k] *= root;
    p.b[static_cast<std::size_t>(i)] *= root;
  }
  for (int i = 0; i < a.rows && !p.x0.empty(); ++i) {
    double ax = 0;
    for (int k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) ax += a.values[k] * p.x0[static_cast<std::size_t>(a.col_ind[k])];
    p.b[static_cast<std::size_t>(i)] -= ax;
  }
}

}  // namespace

void check_prior_and_weights(const ridge::RidgeSettings& settings, std::int64_t rows, std::int64_t columns) {
  if (settings.prior.given()) prior(settings, columns);
  if (settings.weights.given()) weight_rows(settings, rows, 0, rows);
}

void check_rhs(const ridge::RidgeRhsSettings& rhs, std::int64_t rows) { rhs_rows(rhs, rows, 0, 0); }

Problem load_problem(const ridge::RidgeSettings& settings) {
  const MatrixRows rows(settings.matrix, MPI_COMM_SELF);
  Problem p = load_rows(settings, rows, 0, rows.rows());
  p.total_rows = p.total_nonzeros = -1;  // the whole problem
  return p;
}

Problem load_rows(const ridge::RidgeSettings& settings, const MatrixRows& rows, std::int64_t first,
                  std::int64_t count) {
  Problem p;
  p.a = rows.take(first, count);
  p.first_row = first;
  p.total_rows = rows.rows();
  p.total_nonzeros = rows.nonzeros();
  std::vector<double> w;
  collective_unless_alone(rows.comm(), [&] {
    p.b = rhs_rows(settings.rhs, rows.rows(), first, count);
    if (settings.weights.given()) w = weight_rows(settings, rows.rows(), first, count);
    if (settings.prior.given()) p.x0 = prior(settings, rows.columns());
  });
  apply_prior_and_weights(p, w);
  return p;
}

}  // namespace trident::ridge
