// Loading a ridge problem: this rank's block of A from MatrixRows and the same rows of b,
// generated or read from HDF5 and checked against A's row count.
#include "ridge/problem.hpp"

#include <string>

#include "core/error.hpp"
#include "io/input_file.hpp"

namespace trident::ridge {

namespace {

// b's rows [first, first + count) for a matrix of `rows` rows.
std::vector<double> rhs_rows(const deck::RidgeRhsSettings& r, std::int64_t rows, std::int64_t first,
                             std::int64_t count) {
  if (r.kind == deck::RidgeRhsSettings::Kind::generate) return generate_rhs_rows(first, count, r.mean, r.std, r.seed);
  const io::InputFile in(r.file, kRhsFileRole);
  const std::uint64_t size = hdf5_vector_length(in, r.dataset);
  if (size != static_cast<std::uint64_t>(rows))
    throw InputError(r.file + ":" + r.dataset + ": the right-hand side has " + std::to_string(size) +
                     " entries but the matrix has " + std::to_string(rows) + " rows (" + r.where + ")");
  return read_hdf5_vector_rows(in, r.dataset, first, count);
}

}  // namespace

void check_rhs(const deck::RidgeRhsSettings& rhs, std::int64_t rows) { rhs_rows(rhs, rows, 0, 0); }

Problem load_problem(const deck::RidgeSettings& settings) {
  const MatrixRows rows(settings.matrix, MPI_COMM_SELF);
  Problem p = load_rows(settings, rows, 0, rows.rows());
  p.total_rows = p.total_nonzeros = -1;  // the whole problem
  return p;
}

Problem load_rows(const deck::RidgeSettings& settings, const MatrixRows& rows, std::int64_t first,
                  std::int64_t count) {
  Problem p;
  p.a = rows.take(first, count);
  p.first_row = first;
  p.total_rows = rows.rows();
  p.total_nonzeros = rows.nonzeros();
  collective_unless_alone(rows.comm(), [&] { p.b = rhs_rows(settings.rhs, rows.rows(), first, count); });
  return p;
}

}  // namespace trident::ridge
