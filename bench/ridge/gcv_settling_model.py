#!/usr/bin/env python3
"""How many probe steps GCV's trace needs on the tutorial's kind of matrix, in float64 NumPy.

A model of src/ridge/detail/gcv.cpp, not of its bits: a matrix like bench/ridge/ridge_tutorial.yaml's
(N x N, density 0.1, values uniform in [0, 1): the same distribution, other numbers), PROBES
sign vectors, Golub-Kahan bidiagonalizations of STEPS steps without reorthogonalization, and
each probe's Gauss rule for t(λ) = z^T A (A^T A + λ^2 I)^-1 A^T z at the deck's 10 λ, checked
every 8 steps as gcv.cpp checks them. For each settling rule (a change of the block's mean
over 8 steps of at most F standard errors of the mean, or of at most E of G, twice in a row)
it prints the step the probes stop at and the error then left in t at the worst λ, against
t after all STEPS steps: in standard errors (the estimate's own spread) and as a share of
G(λ) = rows ||r||^2 / (rows - t)^2 (2 Δt / (rows - t)). The rule gcv.cpp takes with
`gcv_settle: all` is the first. Then gcv_settle: minimum (gcv.cpp's default): the step at which
the λ of least G (t from below) has settled by that rule and every other λ's G from below
exceeds its G from above (each probe's least bound from above, gcv.cpp's upper_bound), ||r|| from b's own
bidiagonalization (b normal(3, 1), as the deck's) after all STEPS steps; and G there against
its limit.

    bench/ridge/gcv_settling_model.py [N [PROBES [STEPS]]]    (default 15000 8 1200: minutes)
"""
import sys

import numpy as np
import scipy.sparse as sp

n = int(sys.argv[1]) if len(sys.argv) > 1 else 15000
probes = int(sys.argv[2]) if len(sys.argv) > 2 else 8
steps = int(sys.argv[3]) if len(sys.argv) > 3 else 1200
lambdas = np.geomspace(0.1, 5000, 10)
every = 8  # kProbeCheckEvery

rng = np.random.default_rng(1)
per_row = int(round(0.1 * n))
columns = np.empty((n, per_row), dtype=np.int32)
for i in range(n):
    columns[i] = rng.choice(n, per_row, replace=False)
a = sp.csr_matrix((rng.random((n, per_row)).ravel(), columns.ravel(), np.arange(0, n * per_row + 1, per_row)),
                  shape=(n, n))
at = a.T.tocsr()

z = np.random.default_rng(2).choice([-1.0, 1.0], size=(n, probes))
z = np.column_stack([z, np.random.default_rng(3).normal(3.0, 1.0, n)])  # and b, for ||r||
beta = [np.linalg.norm(z, axis=0)]
u = z / beta[0]
v = np.zeros_like(z)
alpha = []
for k in range(steps):
    v = at @ u - v * (beta[-1] if k > 0 else 0.0)
    alpha.append(np.linalg.norm(v, axis=0))
    v /= alpha[-1]
    u = a @ v - u * alpha[-1]
    beta.append(np.linalg.norm(u, axis=0))
    u /= beta[-1]
alpha, beta = np.array(alpha), np.array(beta)


def gauss(q, k, lam, upper=False):  # ProbeBidiagonal::quadrature (upper: upper_bound) of k steps
    def e1_inverse(corner):  # B_k^T B_k's tridiagonal, its last diagonal `corner` (None: its own)
        d = 0.0
        for i in range(k - 1, -1, -1):
            diagonal = alpha[i, q] ** 2 + beta[i + 1, q] ** 2
            if i == k - 1 and corner is not None:
                diagonal = corner
            d = diagonal + lam * lam - (0.0 if i == k - 1 else (alpha[i + 1, q] * beta[i + 1, q]) ** 2 / d)
        return (alpha[0, q] * beta[0, q]) ** 2 / d
    if not upper:
        return e1_inverse(None)
    best = min(e1_inverse(alpha[k - 1, q] ** 2), beta[0, q] ** 2)  # Gauss on AA^T, and ||z||^2
    if k >= 2:  # Gauss-Radau on A^T A with a node at 0
        top = alpha[0, q] ** 2 + beta[1, q] ** 2
        for i in range(1, k - 1):
            top = alpha[i, q] ** 2 + beta[i + 1, q] ** 2 - (alpha[i, q] * beta[i, q]) ** 2 / top
        best = min(best, e1_inverse((alpha[k - 1, q] * beta[k - 1, q]) ** 2 / top))
    return best


# ||b - A x_λ|| from b's bidiagonalization (the last column) after all the steps
bk = np.zeros((steps + 1, steps))
bk[np.arange(steps), np.arange(steps)] = alpha[:, probes]
bk[np.arange(1, steps + 1), np.arange(steps)] = beta[1:, probes]
e1 = np.zeros(steps + 1)
e1[0] = beta[0, probes]
residual = np.array([np.linalg.norm(e1 - bk @ np.linalg.solve(bk.T @ bk + lam * lam * np.eye(steps), bk.T @ e1))
                     for lam in lambdas])


checks = list(range(every, steps + 1, every))
quad = np.array([[[gauss(q, k, lam) for lam in lambdas] for q in range(probes)] for k in checks])
final = quad[-1].mean(0)
spread = quad[-1].std(0, ddof=1) / np.sqrt(probes)
slack = n - final
print(f"N {n}, {probes} probes, {steps} steps; the last check's change at the smallest λ: "
      f"{np.abs(quad[-1] - quad[-2]).mean(0)[0]:.3g} (t there {final[0]:.1f}, rows - t {slack[0]:.1f})")
print("standard error of t / (rows - t) by λ:", " ".join(f"{x:.2g}" for x in spread / slack))


def stop_at(spread_share, g_share):
    settled = 0
    for c in range(1, len(checks)):
        mean = quad[c].mean(0)
        change = np.abs(quad[c] - quad[c - 1]).mean(0)
        error = quad[c].std(0, ddof=1) / np.sqrt(probes)
        ok = np.all((change <= spread_share * error) | (2 * change <= g_share * (n - mean)))
        settled = settled + 1 if ok else 0
        if settled >= 2:
            return c
    return len(checks) - 1


print(f"{'rule':28s} {'steps':>6s} {'error/SE':>9s} {'error/G':>9s} at λ")
for spread_share, g_share in [(0.03, 1e-6), (0.1, 1e-6), (0.3, 1e-6), (0.03, 1e-3), (0.03, 3e-3), (0.03, 1e-2)]:
    c = stop_at(spread_share, g_share)
    error = np.abs(quad[c].mean(0) - final)
    worst = int(np.argmax(2 * error / slack))
    print(f"{spread_share:g} SE or {g_share:g} of G{'':9s} {checks[c]:6d} {np.max(error / spread):9.3f} "
          f"{2 * error[worst] / slack[worst]:9.2e} {lambdas[worst]:.3g}")


upper = np.array([[[gauss(q, k, lam, True) for lam in lambdas] for q in range(probes)] for k in checks])


def g_of(t):
    return np.where(n - t > 0, n * residual ** 2 / np.maximum(n - t, 1e-300) ** 2, np.inf)


runs = np.zeros(len(lambdas), dtype=int)
for c in range(1, len(checks)):
    mean = quad[c].mean(0)
    change = np.abs(quad[c] - quad[c - 1]).mean(0)
    error = quad[c].std(0, ddof=1) / np.sqrt(probes)
    runs = np.where((change <= 0.03 * error) | (2 * change <= 1e-6 * (n - mean)), runs + 1, 0)
    low, high = g_of(mean), g_of(upper[c].mean(0))
    j = int(np.argmin(low))
    if runs[j] >= 2 and all(runs[i] >= 2 or low[i] > high[j] for i in range(len(lambdas)) if i != j):
        break
limit = g_of(final)
print(f"minimum: stops at {checks[c]} steps, least G at λ = {lambdas[j]:.4g} (the limit's: "
      f"{lambdas[int(np.argmin(limit))]:.4g}), G there {low[j]:.6g} against {limit[j]:.6g}; not settled at λ = "
      + ", ".join(f"{lambdas[i]:.3g} (G in [{low[i]:.3g}, {high[i]:.3g}], limit {limit[i]:.3g})"
                  for i in range(len(lambdas)) if runs[i] < 2))
