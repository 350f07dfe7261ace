#pragma once
// The scalar side of LSMR for one damping λ (Fong & Saunders 2011, in the form of SciPy's
// lsmr): given the bidiagonalization's alpha and beta of each iteration, the rotations
// that give the coefficients of the h, hbar and x updates, the estimates of ||r|| and
// cond(A), and the stopping test, in double whatever the vectors' precision. Callable on
// the device too: the fused engine advances every λ in a kernel, so that the iterations
// do not wait for the host.
#include <Kokkos_Macros.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>

namespace trident::ridge {

// Coefficients of one iteration's vector updates:
//   hbar <- h + hbar_scale * hbar;  x <- x + x_scale * hbar;  h <- v + h_scale * h
struct LsmrStep {
  double hbar_scale, x_scale, h_scale;
};

// The ||A|| estimate, which depends only on the bidiagonalization (shared by all λ).
class SharedNorms {
 public:
  SharedNorms() = default;
  KOKKOS_INLINE_FUNCTION explicit SharedNorms(double alpha)
      : norm_a2_(alpha * alpha), norm_a_(alpha < 0 ? -alpha : alpha) {}
  KOKKOS_INLINE_FUNCTION void update(double alpha, double beta) {
    norm_a2_ += beta * beta;
    norm_a_ = ::sqrt(norm_a2_);
    norm_a2_ += alpha * alpha;
  }
  KOKKOS_INLINE_FUNCTION double normA() const { return norm_a_; }

 private:
  double norm_a2_ = 0, norm_a_ = 0;
};

class LsmrRecurrence {
 public:
  // alpha, beta: the bidiagonalization's start (beta = ||b||, alpha = ||A^T b|| / beta).
  LsmrRecurrence() = default;  // for device arrays, assigned before use
  KOKKOS_INLINE_FUNCTION LsmrRecurrence(double damp, double alpha, double beta)
      : damp_(damp), zetabar_(alpha * beta), alphabar_(alpha), betadd_(beta) {}

  KOKKOS_INLINE_FUNCTION bool stopped() const { return stop_ >= 0; }
  KOKKOS_INLINE_FUNCTION int stop_reason() const { return stop_; }
  KOKKOS_INLINE_FUNCTION std::int64_t iterations() const { return iterations_; }
  KOKKOS_INLINE_FUNCTION void stop_now(int reason, std::int64_t iterations) {
    stop_ = reason;
    iterations_ = iterations;
  }

  // One iteration with the new alpha_{k+1}, beta_{k+1}.
  KOKKOS_INLINE_FUNCTION LsmrStep advance(double alpha, double beta) {
    double chat, shat, alphahat;
    sym_ortho(alphabar_, damp_, chat, shat, alphahat);
    const double rhoold = rho_;
    double c, s;
    sym_ortho(alphahat, beta, c, s, rho_);
    const double thetanew = s * alpha;
    alphabar_ = c * alpha;

    const double rhobarold = rhobar_;
    const double zetaold = zeta_;
    const double thetabar = sbar_ * rho_;
    const double rhotemp = cbar_ * rho_;
    sym_ortho(cbar_ * rho_, thetanew, cbar_, sbar_, rhobar_);
    zeta_ = cbar_ * zetabar_;
    zetabar_ = -sbar_ * zetabar_;

    LsmrStep step;
    step.hbar_scale = -(thetabar * rho_ / (rhoold * rhobarold));
    step.x_scale = zeta_ / (rho_ * rhobar_);
    step.h_scale = -(thetanew / rho_);

    // ||r|| estimate.
    const double betaacute = chat * betadd_;
    const double betacheck = -shat * betadd_;
    const double betahat = c * betaacute;
    betadd_ = -s * betaacute;
    const double thetatildeold = thetatilde_;
    double ctildeold, stildeold, rhotildeold;
    sym_ortho(rhodold_, thetabar, ctildeold, stildeold, rhotildeold);
    thetatilde_ = stildeold * rhobar_;
    rhodold_ = ctildeold * rhobar_;
    betad_ = -stildeold * betad_ + ctildeold * betahat;
    tautildeold_ = (zetaold - thetatildeold * tautildeold_) / rhotildeold;
    const double taud = (zeta_ - thetatilde_ * tautildeold_) / rhodold_;
    d_ += betacheck * betacheck;
    normr_ = ::sqrt(d_ + (betad_ - taud) * (betad_ - taud) + betadd_ * betadd_);

    // cond(A) estimate.
    maxrbar_ = maxrbar_ > rhobarold ? maxrbar_ : rhobarold;
    if (steps_ > 0) minrbar_ = minrbar_ < rhobarold ? minrbar_ : rhobarold;
    cond_a_ = (maxrbar_ > rhotemp ? maxrbar_ : rhotemp) / (minrbar_ < rhotemp ? minrbar_ : rhotemp);
    ++steps_;
    return step;
  }

  // The stopping test of iteration `itn`, once ||x|| of that iteration is known.
  KOKKOS_INLINE_FUNCTION void test(double normx, double normb, double normA, double atol, double btol, double ctol,
            std::int64_t itn, std::int64_t max_iterations) {
    const double normar = abs_of(zetabar_);
    const double test1 = normr_ / normb;
    const double test2 = normA * normr_ != 0 ? normar / (normA * normr_)
                                             : DBL_MAX;  // as infinity: passes no test
    const double test3 = 1.0 / cond_a_;
    const double t1 = test1 / (1.0 + normA * normx / normb);
    const double rtol = btol + atol * normA * normx / normb;
    int istop = -1;
    if (itn >= max_iterations) istop = 7;
    if (1.0 + test3 <= 1.0) istop = 6;
    if (1.0 + test2 <= 1.0) istop = 5;
    if (1.0 + t1 <= 1.0) istop = 4;
    if (test3 <= ctol) istop = 3;
    if (test2 <= atol) istop = 2;
    if (test1 <= rtol) istop = 1;
    if (istop >= 0) stop_now(istop, itn);
  }

  KOKKOS_INLINE_FUNCTION double residual_estimate() const { return normr_; }  // the damped ||[b; 0] - [A; λI] x||
  // Iterations advanced so far (an unstopped λ with steps awaits the test of its last one).
  KOKKOS_INLINE_FUNCTION std::int64_t steps() const { return steps_; }

  // A stable Givens rotation [c s; -s c] [a; b] = [r; 0] (S.-C. Choi's SymOrtho).
  KOKKOS_INLINE_FUNCTION static void sym_ortho(double a, double b, double& c, double& s, double& r) {
    if (b == 0) {
      c = a == 0 ? 0.0 : sign_of(a);  // numpy's sign(0) is 0
      s = 0;
      r = abs_of(a);
    } else if (a == 0) {
      c = 0;
      s = sign_of(b);
      r = abs_of(b);
    } else if (abs_of(b) > abs_of(a)) {
      const double tau = a / b;
      s = sign_of(b) / ::sqrt(1 + tau * tau);
      c = s * tau;
      r = b / s;
    } else {
      const double tau = b / a;
      c = sign_of(a) / ::sqrt(1 + tau * tau);
      s = c * tau;
      r = a / c;
    }
  }
  KOKKOS_INLINE_FUNCTION static double abs_of(double a) { return a < 0 ? -a : a; }
  KOKKOS_INLINE_FUNCTION static double sign_of(double a) { return a < 0 ? -1.0 : 1.0; }  // a != 0

 private:
  double damp_;
  double zetabar_, alphabar_;
  double rho_ = 1, rhobar_ = 1, cbar_ = 1, sbar_ = 0, zeta_ = 0;
  double betadd_, betad_ = 0, rhodold_ = 1, tautildeold_ = 0, thetatilde_ = 0, d_ = 0;
  double normr_ = 0, maxrbar_ = 0, minrbar_ = 1e100, cond_a_ = 1;
  std::int64_t steps_ = 0, iterations_ = 0;
  int stop_ = -1;
};

}  // namespace trident::ridge
