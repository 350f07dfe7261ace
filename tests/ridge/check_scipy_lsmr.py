#!/usr/bin/python3
"""ridge.prior and ridge.weights against SciPy's lsmr on the transformed problem, and LSMR's
stop reasons against SciPy's istop (issue 64, item 5).

A 300 x 200 random sparse A (density 0.05, signed normal entries, fixed seed) is written as
an HDF5 CSR group (and once as Matrix Market), b = A x_true + noise, a prior x0 and row
weights w (from 0.1 to 10) as HDF5 datasets. trident runs the ridge study in float64 with
keep_solutions over several λ:

  (a) plain                 min ||A x - b||^2 + λ^2 ||x||^2
  (b) prior                 min ||A x - b||^2 + λ^2 ||x - x0||^2
  (c) weights               min ||W^1/2 (A x - b)||^2 + λ^2 ||x||^2
  (d) prior and weights     (also with the rows split over the ranks, lambda_groups: 1, and
                            with kernels: kokkos-kernels)
  (e) limits                max_iterations far below what small λ need and far above what
                            large λ need; and a conlim far below cond(A) for small λ

For every λ SciPy solves the transformed problem, A_w = W^1/2 A, b_w = W^1/2 b:
  y = lsmr(A_w, b_w - A_w x0, damp=λ, atol, btol, conlim, maxiter as in the deck), x = x0 + y
and trident's /ridge/solutions row must equal x, /ridge/residual_norm ||b_w - A_w x|| and
/ridge/solution_norm ||x - x0||, all relative, within TOLERANCE; /ridge/stop_reason must be
SciPy's istop and /ridge/iterations SciPy's itn (one off allowed only where the stop is
borderline, see BORDER); /ridge/converged is 1 exactly where istop is neither 3 nor 7;
/ridge/solution is its λ's row of /ridge/solutions; the log's warning names the limit.

Skipped (exit 77) without SciPy (Debian: python3-scipy).
usage: check_scipy_lsmr.py TRIDENT [LAUNCHER ARGS...]   (the launcher runs N ranks)
"""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

try:
    import scipy.sparse
    from scipy.sparse.linalg import LinearOperator, lsmr
except ImportError as e:
    print(f"skipped: {e} (Debian: python3-scipy)")
    sys.exit(77)

ROWS, COLUMNS, DENSITY, SEED = 300, 200, 0.05, 64
LAMBDAS = [1e-3, 1e-2, 0.1, 0.5, 1.0, 3.0, 10.0, 100.0]
SOLVER = dict(atol=1e-10, btol=1e-10, conlim=1e12, max_iterations=1000)
# Both sides run the same algorithm (Fong & Saunders' LSMR, SciPy's stopping rules) with the
# scalar recurrences in double; only the order in which A's and A^T's products are summed
# differs (trident's lanes and rank-ordered all-reduce against SciPy's CSR loop). That
# rounding moves SciPy's own answer when its sums run in another order (rows and columns
# permuted): by up to 4e-10 relative in a converged x (atol = btol = 1e-10 bound how far it
# is from the exact damped solution, about 1e-10 times cond(A_w) ~ 29) and up to 2e-8 in
# an unconverged iterate at iteration 30 (its path, not its limit, is what differs);
# trident's differ from SciPy's by as much (at most 3e-10 and 9e-9 measured). 1e-6 relative
# is 50 times that, and far below the real differences: weights left out or not rooted
# change x by 1e-3 to 6e-2 at every λ here, a 1 % change of λ by 4e-4 to 1e-3 at λ from 0.5
# to 10, a prior left out x by 6e-3 to 1 at λ >= 0.1 (and ||x - x0|| at every λ).
TOLERANCE = 1e-6
# Where LSMR stops by its tolerance after many iterations (here 43 to 222, about A's 200
# columns, where the bidiagonalization has lost orthogonality), the iteration at which its
# tests (test1 / rtol, test2 / atol) first fall below 1 is decided by rounding: SciPy's own
# tests at a given iteration move by up to 20 % when its sums run in another order (CSC,
# dense, columns reversed, rows or columns permuted), and its count by one. After few
# iterations they move by 1e-14 at most. So for each λ, SciPy's tests at its stop itn and at
# itn - 1 are computed in those 7 other orders, and where their largest relative move, δ,
# times BORDER could carry the test at itn - 1 down to 1, or the one at itn up to 1, the
# stop is borderline and trident's count may be one off SciPy's; elsewhere (fast
# convergence at large λ, the limits) it must be SciPy's. trident's moved by up to 2.2 δ
# (weights, λ = 0.01: the test at iteration 220 is 1.17 in CSR order, δ = 0.08, and trident
# stops there); the 7 orders are a sample, so BORDER is 4.
BORDER = 4.0

trident = os.path.abspath(sys.argv[1])
launcher = sys.argv[2:]
failures = []
passed = 0


def check(condition, message):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(message)
        print("FAIL:", message)
    return condition


def relative(got, want):
    scale = np.linalg.norm(want)
    return np.linalg.norm(np.asarray(got) - want) / (scale if scale > 0 else 1.0)


def make_problem():
    rng = np.random.default_rng(SEED)
    a = scipy.sparse.random(ROWS, COLUMNS, density=DENSITY, format="csr", random_state=rng,
                            data_rvs=rng.standard_normal)
    a.sort_indices()
    x_true = rng.standard_normal(COLUMNS)
    b = a @ x_true + 0.05 * rng.standard_normal(ROWS)
    x0 = x_true + 0.3 * rng.standard_normal(COLUMNS)   # a prior near the truth, not on it
    w = 10.0 ** rng.uniform(-1, 1, ROWS)               # weights from 0.1 to 10
    return a, b, x0, w


def write_problem(a, b, x0, w):
    with h5py.File("a.h5", "w") as f:
        g = f.create_group("A")
        g.attrs["shape"] = np.array(a.shape, dtype=np.int64)
        g["row_ptr"], g["col_ind"], g["values"] = a.indptr, a.indices, a.data
    coo = a.tocoo()
    with open("a.mtx", "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n")
        f.write(f"{ROWS} {COLUMNS} {coo.nnz}\n")
        f.writelines(f"{i + 1} {j + 1} {v!r}\n" for i, j, v in zip(coo.row, coo.col, coo.data))
    for name, data in (("b", b), ("x0", x0), ("w", w)):
        with h5py.File(name + ".h5", "w") as f:
            f[name] = data


def run_trident(name, lambdas, solver, prior=False, weights=False, matrix="hdf5", extra=""):
    """Writes NAME.yaml, runs it into NAME.h5; returns the /ridge datasets, or None."""
    source = ("{hdf5: {file: a.h5, group: /A}}" if matrix == "hdf5" else "{matrix_market: a.mtx}")
    deck = ["output: {progress_seconds: 0, log: false}", "ridge:", f"  matrix: {source}",
            "  rhs: {hdf5: {file: b.h5, dataset: /b}}",
            "  lambdas: [" + ", ".join(repr(float(v)) for v in lambdas) + "]",
            "  solver: {" + ", ".join(f"{k}: {v!r}" for k, v in solver.items()) + "}",
            "  precision: float64", "  keep_solutions: true"]
    deck += ["  prior: {file: x0.h5, dataset: /x0}"] if prior else []
    deck += ["  weights: {file: w.h5, dataset: /w}"] if weights else []
    deck += [extra] if extra else []
    with open(name + ".yaml", "w") as f:
        f.write("\n".join(deck) + "\n")
    command = launcher + [trident, "run", name + ".yaml", "--output", name + ".h5"]
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if not check(done.returncode == 0, f"{name}: {' '.join(command)}: exit {done.returncode}\n"
                 + done.stdout[-3000:]):
        return None
    with h5py.File(name + ".h5", "r") as f:
        r = f["ridge"]
        out = {k: r[k][...] for k in ("lambda", "solutions", "residual_norm", "solution_norm",
                                      "stop_reason", "converged", "iterations")}
        if "solution" in r:
            out["solution"] = (r["solution"][...], int(r["solution"].attrs["index"]))
    return out, done.stdout


def stop_ratio(result, normb, atol, btol):
    """How near the tolerance tests of SciPy's lsmr the iterate of RESULT (its return tuple)
    is: min(test1 / rtol, test2 / atol), <= 1 where LSMR stops (istop 1 or 2)."""
    normr, normar, norma, normx = result[3], result[4], result[5], result[7]
    test1, test2 = normr / normb, normar / (norma * normr)
    return min(test1 / (btol + atol * norma * normx / normb), test2 / atol)


def summation_orders(a_w, shifted):
    """A_w and the shifted b_w summed in other orders by SciPy's lsmr (the same problem):
    CSC, dense (BLAS), A's columns reversed, and rows and columns permuted."""
    dense = a_w.toarray()
    rng = np.random.default_rng(SEED + 1)
    orders = [(a_w.tocsc(), shifted), (dense, shifted),
              (LinearOperator(dense.shape, dtype=float, matvec=lambda v: dense[:, ::-1] @ v[::-1],
                              rmatvec=lambda u: dense.T[:, ::-1] @ u[::-1]), shifted)]
    for _ in range(2):
        rows = rng.permutation(ROWS)
        orders += [(dense[:, rng.permutation(COLUMNS)], shifted), (dense[rows], shifted[rows])]
    return orders


def scipy_answers(a, b, x0, w, lambdas, solver):
    """SciPy's lsmr on the transformed problem for each λ: x, istop, itn, the weighted
    residual ||b_w - A_w x|| and ||x - x0||, and, where its stop by the tolerance is
    borderline (see BORDER), its tests at itn - 1 and itn and their move δ."""
    root = np.sqrt(w)
    a_w = scipy.sparse.diags(root) @ a
    b_w = root * b
    shifted = b_w - a_w @ x0
    normb = np.linalg.norm(shifted)
    rules = dict(atol=solver["atol"], btol=solver["btol"], conlim=solver["conlim"],
                 maxiter=solver["max_iterations"] or None)
    orders = summation_orders(a_w, shifted)
    answers = []
    for lam in lambdas:
        result = lsmr(a_w, shifted, damp=lam, **rules)
        y, istop, itn = result[:3]
        border = None
        if istop in (1, 2) and itn > 1:
            tests, delta = [], 0.0
            for k in (itn - 1, itn):
                at = dict(rules, maxiter=k)
                test = stop_ratio(lsmr(a_w, shifted, damp=lam, **at), normb, solver["atol"], solver["btol"])
                for op, rhs in orders:
                    moved = stop_ratio(lsmr(op, rhs, damp=lam, **at), normb, solver["atol"], solver["btol"])
                    delta = max(delta, abs(moved / test - 1))
                tests.append(test)
            if tests[0] - 1 <= BORDER * delta * tests[0] or 1 - tests[1] <= BORDER * delta * tests[1]:
                border = (tests[0], tests[1], delta)
        x = x0 + y
        answers.append(dict(x=x, istop=istop, itn=itn, residual=np.linalg.norm(b_w - a_w @ x),
                            norm=np.linalg.norm(x - x0), border=border))
    return answers


def compare(name, got, answers):
    """trident's output NAME against SciPy's answers, λ by λ."""
    worst, spread, borderline = 0.0, 0, 0
    for j, (lam, s) in enumerate(zip(got["lambda"], answers)):
        where = f"{name}: λ = {lam:g}"
        check(got["stop_reason"][j] == s["istop"],
              f"{where}: stop reason {got['stop_reason'][j]}, SciPy's istop {s['istop']}")
        # the count exactly, or within one where the stop is borderline (see BORDER)
        slack = 1 if s["border"] else 0
        borderline += slack
        spread += slack and got["iterations"][j] != s["itn"]
        check(abs(int(got["iterations"][j]) - s["itn"]) <= slack,
              f"{where}: {got['iterations'][j]} iterations, SciPy {s['itn']}"
              + (f" (borderline: the tests at {s['itn'] - 1} and {s['itn']} at {s['border'][0]:.3f} and "
                 f"{s['border'][1]:.3f} of their thresholds, moved by {s['border'][2]:.0e})" if slack else ""))
        check(got["converged"][j] == (0 if s["istop"] in (3, 7) else 1),
              f"{where}: converged {got['converged'][j]} with SciPy's istop {s['istop']}")
        errors = {"x": relative(got["solutions"][j], s["x"]),
                  "residual_norm": relative(got["residual_norm"][j], s["residual"]),
                  "solution_norm": relative(got["solution_norm"][j], s["norm"])}
        for what, e in errors.items():
            check(e <= TOLERANCE, f"{where}: {what} differs from SciPy's by {e:.2e} relative (tolerance {TOLERANCE:g})")
        worst = max([worst] + list(errors.values()))
    if "solution" in got:
        x, index = got["solution"]
        check(0 <= index < len(got["lambda"]) and np.array_equal(x, got["solutions"][index]),
              f"{name}: /ridge/solution is not row {index} of /ridge/solutions")
    reasons = ",".join(str(int(v)) for v in got["stop_reason"])
    iterations = ",".join(str(int(v)) for v in got["iterations"])
    print(f"{name}: stop reasons [{reasons}] as SciPy's, iterations [{iterations}] as SciPy's"
          + (f" ({borderline} λ borderline, {spread} of them one off)" if borderline else "")
          + f"; x, residual and solution norms within {worst:.1e} relative")


def main():
    a, b, x0, w = make_problem()
    ones, zeros = np.ones(ROWS), np.zeros(COLUMNS)
    write_problem(a, b, x0, w)
    plain = scipy_answers(a, b, zeros, ones, LAMBDAS, SOLVER)
    cases = [("plain", {}, plain),
             ("prior", dict(prior=True), scipy_answers(a, b, x0, ones, LAMBDAS, SOLVER)),
             ("weights", dict(weights=True), scipy_answers(a, b, zeros, w, LAMBDAS, SOLVER))]
    both = scipy_answers(a, b, x0, w, LAMBDAS, SOLVER)
    cases += [("both", dict(prior=True, weights=True), both),
              ("both_rows_split", dict(prior=True, weights=True, extra="  lambda_groups: 1"), both),
              ("both_kokkos_kernels", dict(prior=True, weights=True), both),
              ("plain_matrix_market", dict(matrix="mtx"), plain)]
    for name, options, answers in cases:
        solver = dict(SOLVER, kernels="kokkos-kernels") if name == "both_kokkos_kernels" else SOLVER
        result = run_trident(name, LAMBDAS, solver, **options)
        if result is None:
            continue
        got = result[0]
        check(len(got["lambda"]) == len(LAMBDAS) and np.array_equal(got["lambda"], LAMBDAS),
              f"{name}: λ {got['lambda'].tolist()}")
        # the transformed problem converges for every λ with these rules: no limit reached
        check(all(s["istop"] in (1, 2) for s in answers), f"{name}: SciPy did not converge for every λ")
        compare(name, got, answers)

    # (e) the limits, each chosen so that every λ's outcome is clear-cut: SciPy's istop (and
    # itn below the limit) stay the same when the limit moves (by 5 iterations, by 0.1 % for
    # conlim), so rounding, which moves the quantities tested far less, cannot decide them
    needed = [s["itn"] for s in both]
    print("iterations needed (prior and weights):", needed)
    # (e1) max_iterations far below the small λ's needs (100 to 209) and far above the large
    # λ's (16 and 5)
    limit = 30
    check(all(abs(n - limit) >= 10 for n in needed) and min(needed) < limit < max(needed),
          f"max_iterations {limit}: not clear-cut for the iterations needed, {needed}")
    limits(a, b, x0, w, "max_iterations", dict(SOLVER, max_iterations=limit), 7, "iteration limit",
           dict(SOLVER, max_iterations=limit - 5), dict(SOLVER, max_iterations=limit + 5))
    # (e2) conlim 3: LSMR's estimate of cond([A_w; λ I]) passes it within 13 to 18 iterations
    # for λ <= 1 (A_w's own condition number is about 29), far before they converge, and
    # stays below 2.1 for λ >= 3 (near 1 for λ far above ||A_w|| = 14.7)
    conlim = 3.0
    limits(a, b, x0, w, "conlim", dict(SOLVER, conlim=conlim), 3, "condition limit",
           dict(SOLVER, conlim=conlim * (1 - 1e-3)), dict(SOLVER, conlim=conlim * (1 + 1e-3)))


def limits(a, b, x0, w, name, solver, reason, words, lower, upper):
    """The limit case NAME: SciPy's outcome the same under the limits LOWER and UPPER (clear-cut),
    some λ stopped by REASON and some converged, and trident's stop reasons, iterations,
    converged flags and values SciPy's, with the warning naming the limit."""
    def outcomes(answers):  # the iteration count of a λ at the iteration limit moves with it
        return [(s["istop"], None if s["istop"] == 7 else s["itn"]) for s in answers]

    answers = scipy_answers(a, b, x0, w, LAMBDAS, solver)
    outcome = outcomes(answers)
    for other in (lower, upper):
        moved = outcomes(scipy_answers(a, b, x0, w, LAMBDAS, other))
        check(moved == outcome, f"{name}: not clear-cut: SciPy's (istop, itn) {outcome}, {moved} with {other}")
    stops = [s["istop"] for s in answers]
    check(reason in stops and any(r in (1, 2) for r in stops),
          f"{name}: SciPy's istop {stops}, expected some {reason} and some converged")
    result = run_trident(name, LAMBDAS, solver, prior=True, weights=True, matrix="mtx" if reason == 3 else "hdf5")
    if result is not None:
        compare(name, result[0], answers)
        check(f"stopped at the {words} (stop reason {reason})" in result[1],
              f"{name}: no warning naming the λ at the {words}:\n{result[1][-2000:]}")


if __name__ == "__main__":
    work = tempfile.mkdtemp(prefix="scipy_lsmr.")
    os.environ.setdefault("OMPI_MCA_orte_tmpdir_base", work)
    os.chdir(work)
    try:
        main()
    finally:
        if not os.environ.get("KEEP"):
            shutil.rmtree(work, ignore_errors=True)
    ranks = launcher[launcher.index("-n") + 1] if "-n" in launcher else "1"
    print(f"ridge against SciPy's lsmr on {ranks} rank(s): {passed} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)
