#pragma once
// Independent float64 references for the ridge tests: dense matrices, a Cholesky solve of
// the damped normal equations, and a plain one-λ LSMR written from the paper's recurrences;
// and how a sweep's solutions are compared with them.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "ridge/detail/csr.hpp"

namespace trident::ridge::test {

using Dense = std::vector<std::vector<double>>;  // row-major rows

inline Dense dense(const HostCsr& a) {
  Dense d(a.rows, std::vector<double>(a.columns, 0.0));
  for (int i = 0; i < a.rows; ++i)
    for (int k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) d[i][a.col_ind[k]] += a.values[k];
  return d;
}

// ||x - y|| / ||y||
inline double relative_difference(const std::vector<double>& x, const std::vector<double>& y) {
  double d = 0, s = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    d += (x[i] - y[i]) * (x[i] - y[i]);
    s += y[i] * y[i];
  }
  return std::sqrt(d / s);
}

// The j-th solution of a sweep's solutions, held one after another, `columns` numbers each.
inline std::vector<double> solution_row(const std::vector<double>& solutions, std::size_t j, std::int64_t columns) {
  const auto first = solutions.begin() + static_cast<std::ptrdiff_t>(j * static_cast<std::size_t>(columns));
  return std::vector<double>(first, first + static_cast<std::ptrdiff_t>(columns));
}

inline double norm(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += v * v;
  return std::sqrt(s);
}

inline std::vector<double> multiply(const Dense& a, const std::vector<double>& x) {
  std::vector<double> y(a.size(), 0.0);
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < x.size(); ++j) y[i] += a[i][j] * x[j];
  return y;
}

inline std::vector<double> multiply_transposed(const Dense& a, const std::vector<double>& y) {
  std::vector<double> x(a.empty() ? 0 : a[0].size(), 0.0);
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < x.size(); ++j) x[j] += a[i][j] * y[i];
  return x;
}

// x solving (A^T A + λ^2 I) x = A^T b by Cholesky, all in double.
inline std::vector<double> ridge_by_cholesky(const Dense& a, const std::vector<double>& b,
                                             double lambda) {
  const std::size_t n = a[0].size();
  Dense g(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t p = 0; p < n; ++p)
      for (std::size_t q = 0; q <= p; ++q) g[p][q] += a[i][p] * a[i][q];
  for (std::size_t p = 0; p < n; ++p) g[p][p] += lambda * lambda;
  // g = L L^T, L in the lower triangle of g.
  for (std::size_t j = 0; j < n; ++j) {
    double d = g[j][j];
    for (std::size_t k = 0; k < j; ++k) d -= g[j][k] * g[j][k];
    if (!(d > 0)) throw std::runtime_error("normal matrix not positive definite");
    g[j][j] = std::sqrt(d);
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = g[i][j];
      for (std::size_t k = 0; k < j; ++k) s -= g[i][k] * g[j][k];
      g[i][j] = s / g[j][j];
    }
  }
  std::vector<double> y = multiply_transposed(a, b);
  for (std::size_t i = 0; i < n; ++i) {  // L z = A^T b
    for (std::size_t k = 0; k < i; ++k) y[i] -= g[i][k] * y[k];
    y[i] /= g[i][i];
  }
  for (std::size_t i = n; i-- > 0;) {  // L^T x = z
    for (std::size_t k = i + 1; k < n; ++k) y[i] -= g[k][i] * y[k];
    y[i] /= g[i][i];
  }
  return y;
}

struct PlainLsmr {
  std::vector<double> x;
  std::int64_t iterations = 0;
  int istop = 0;
};

inline void sym_ortho(double a, double b, double& c, double& s, double& r) {
  const auto sign = [](double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); };
  if (b == 0) { c = sign(a); s = 0; r = std::fabs(a); return; }
  if (a == 0) { c = 0; s = sign(b); r = std::fabs(b); return; }
  if (std::fabs(b) > std::fabs(a)) {
    const double tau = a / b;
    s = sign(b) / std::sqrt(1 + tau * tau); c = s * tau; r = b / s;
  } else {
    const double tau = b / a;
    c = sign(a) / std::sqrt(1 + tau * tau); s = c * tau; r = a / c;
  }
}

// One damped solve, transcribed from SciPy's lsmr (dense products, double throughout).
inline PlainLsmr plain_lsmr(const Dense& a, const std::vector<double>& b, double damp, double atol,
                            double btol, double conlim, std::int64_t maxiter) {
  const std::size_t m = a.size(), n = a[0].size();
  PlainLsmr out;
  out.x.assign(n, 0.0);
  std::vector<double> u = b;
  double beta = norm(u), alpha = 0;
  std::vector<double> v(n, 0.0);
  if (beta > 0) {
    for (auto& e : u) e /= beta;
    v = multiply_transposed(a, u);
    alpha = norm(v);
  }
  if (alpha > 0) for (auto& e : v) e /= alpha;
  double zetabar = alpha * beta, alphabar = alpha, rho = 1, rhobar = 1, cbar = 1, sbar = 0;
  std::vector<double> h = v, hbar(n, 0.0);
  double betadd = beta, betad = 0, rhodold = 1, tautildeold = 0, thetatilde = 0, zeta = 0, d = 0;
  double normA2 = alpha * alpha, maxrbar = 0, minrbar = 1e100, normA = std::sqrt(normA2), condA = 1;
  const double ctol = conlim > 0 ? 1 / conlim : 0, normb = beta;
  if (alpha * beta == 0) return out;
  std::int64_t itn = 0;
  while (itn < maxiter) {
    ++itn;
    std::vector<double> av = multiply(a, v);
    for (std::size_t i = 0; i < m; ++i) u[i] = av[i] - alpha * u[i];
    beta = norm(u);
    if (beta > 0) {
      for (auto& e : u) e /= beta;
      std::vector<double> atu = multiply_transposed(a, u);
      for (std::size_t j = 0; j < n; ++j) v[j] = atu[j] - beta * v[j];
      alpha = norm(v);
      if (alpha > 0) for (auto& e : v) e /= alpha;
    }
    double chat, shat, alphahat;
    sym_ortho(alphabar, damp, chat, shat, alphahat);
    const double rhoold = rho;
    double c, s;
    sym_ortho(alphahat, beta, c, s, rho);
    const double thetanew = s * alpha;
    alphabar = c * alpha;
    const double rhobarold = rhobar, zetaold = zeta, thetabar = sbar * rho, rhotemp = cbar * rho;
    sym_ortho(cbar * rho, thetanew, cbar, sbar, rhobar);
    zeta = cbar * zetabar;
    zetabar = -sbar * zetabar;
    for (std::size_t j = 0; j < n; ++j) {
      hbar[j] = h[j] - (thetabar * rho / (rhoold * rhobarold)) * hbar[j];
      out.x[j] += (zeta / (rho * rhobar)) * hbar[j];
      h[j] = v[j] - (thetanew / rho) * h[j];
    }
    const double betaacute = chat * betadd, betacheck = -shat * betadd;
    const double betahat = c * betaacute;
    betadd = -s * betaacute;
    const double thetatildeold = thetatilde;
    double ctildeold, stildeold, rhotildeold;
    sym_ortho(rhodold, thetabar, ctildeold, stildeold, rhotildeold);
    thetatilde = stildeold * rhobar;
    rhodold = ctildeold * rhobar;
    betad = -stildeold * betad + ctildeold * betahat;
    tautildeold = (zetaold - thetatildeold * tautildeold) / rhotildeold;
    const double taud = (zeta - thetatilde * tautildeold) / rhodold;
    d += betacheck * betacheck;
    const double normr = std::sqrt(d + (betad - taud) * (betad - taud) + betadd * betadd);
    normA2 += beta * beta;
    normA = std::sqrt(normA2);
    normA2 += alpha * alpha;
    maxrbar = std::max(maxrbar, rhobarold);
    if (itn > 1) minrbar = std::min(minrbar, rhobarold);
    condA = std::max(maxrbar, rhotemp) / std::min(minrbar, rhotemp);
    const double normar = std::fabs(zetabar), normx = norm(out.x);
    const double test1 = normr / normb;
    const double test2 = normA * normr != 0 ? normar / (normA * normr) : INFINITY;
    const double test3 = 1 / condA, t1 = test1 / (1 + normA * normx / normb);
    const double rtol = btol + atol * normA * normx / normb;
    int istop = 0;
    if (itn >= maxiter) istop = 7;
    if (1 + test3 <= 1) istop = 6;
    if (1 + test2 <= 1) istop = 5;
    if (1 + t1 <= 1) istop = 4;
    if (test3 <= ctol) istop = 3;
    if (test2 <= atol) istop = 2;
    if (test1 <= rtol) istop = 1;
    if (istop > 0) { out.istop = istop; break; }
  }
  out.iterations = itn;
  return out;
}

}  // namespace trident::ridge::test
