"""Problems and checks for ridge_stop_reasons.sh (run under a Python with h5py and numpy;
SciPy, where it is installed, gives LSMR's own answer to compare with).

make: writes small problems built to force LSMR's stopping rules, each PROBLEM.mtx (Matrix
  Market) and PROBLEM.h5 (/b), with numpy alone:
  consistent  12 x 12 diagonal with 3 distinct values, b = A x: exact after 3 iterations,
              ||A x - b|| reaches machine precision (4 with atol = btol = 0)
  lsq         the same diagonal stacked twice (24 x 12), b random: inconsistent, the
              least-squares solution reaches machine precision (5 with atol = btol = 0)
  tiny        20 x 10 random, scaled by 1e-20: LSMR's (and SciPy's) first cond(A) estimate is
              1 / rho of the first rotation, about 1e20 here (6 with conlim = 0, 3 with any
              finite conlim)
  graded      120 x 40 random with columns scaled from 1 to 0.01: with λ 0.1 and 0.3 reaches
              atol = 1e-7 in about 50 and 25 iterations; its cond(A) estimate passes 3 and 5
              within about 10
check OUT PROBLEM ATOL BTOL CONLIM MAXIT REASONS: OUT's /ridge/stop_reason is REASONS
  (comma-separated, one per λ ascending), and, with SciPy, lsmr(A, b, damp=λ) with the same
  rules gives the same istop and iteration count, and ||b - A x|| (relative to ||b||), ||x||
  and x (relative to ||x||) within 1e-9, or 100 times as far as SciPy's own answer moves
  when A's products are summed in another order, if that is more (an ill-conditioned
  problem); where SciPy's two runs differ in their iteration count, or where a tolerance
  stops it (1, 2) at the end of a path that the order of the sums alone moves by more than
  1e-10 of ||x|| (path_moves: the graded problem, by up to 6e-3 at λ 0.1, where trident's
  rounding can cross atol an iteration before SciPy's), within one iteration of them, and x
  and the norms within as far as that path moves one iteration before SciPy's stop, if that
  is more.
fewer OUT_A OUT_B: every λ stopped after fewer iterations in OUT_B than in OUT_A.
unfinished STOPPED CHECKPOINT FULL: a run stopped by a signal holds only the λ that LSMR had
  stopped by its own test (no stop_reason -1, trident's "unfinished", in the output or the
  checkpoint), at least one λ is left out, and the finished ones hold the full run's outcome;
  its curve is recorded as partial and no rule chooses a λ (no /ridge/solution).
"""
import sys

import h5py
import numpy as np

PROBLEMS = ("consistent", "lsq", "tiny", "graded")


def problem(name):
    d = np.diag([1.0, 1, 2, 2, 3, 3, 1, 2, 3, 1, 2, 3])
    if name == "consistent":
        return d, d @ np.arange(1.0, 13)
    if name == "lsq":
        return np.vstack([d, d]), np.random.default_rng(1).normal(size=24)
    r = np.random.default_rng(3 if name == "tiny" else 5)
    m, n, density = (20, 10, 0.5) if name == "tiny" else (120, 40, 0.3)
    a = r.uniform(0, 1, (m, n)) * (r.uniform(0, 1, (m, n)) < density)
    if name == "tiny":
        return a * 1e-20, np.random.default_rng(4).normal(size=m)
    return a @ np.diag(np.logspace(0, -2, n)), np.random.default_rng(6).normal(3, 1, m)


def make():
    for name in PROBLEMS:
        a, b = problem(name)
        rows, cols = np.nonzero(a)
        with open(name + ".mtx", "w") as f:
            f.write("%%MatrixMarket matrix coordinate real general\n")
            f.write(f"{a.shape[0]} {a.shape[1]} {len(rows)}\n")
            f.writelines(f"{i + 1} {j + 1} {a[i, j]!r}\n" for i, j in zip(rows, cols))
        with h5py.File(name + ".h5", "w") as f:
            f["/b"] = b


def lsmr_twice(a, b, lam, rules):
    """SciPy's lsmr with A as given, and once more with its products summed in reverse order:
    how far LSMR's answer moves with the rounding alone, which bounds the comparison."""
    import scipy.sparse
    from scipy.sparse.linalg import LinearOperator, lsmr
    reverse = LinearOperator(a.shape, dtype=float, matvec=lambda v: a[:, ::-1] @ v[::-1],
                             rmatvec=lambda u: a.T[:, ::-1] @ u[::-1])
    first = lsmr(scipy.sparse.csr_matrix(a), b, damp=lam, **rules)
    second = lsmr(reverse, b, damp=lam, **rules)
    return first, second


def path_moves(a, b, lam, iterations):
    """How far LSMR's path moves with the order of A's sums alone: after each count of
    ITERATIONS (no stopping rule), the change of x between lsmr_twice's two orders, relative
    to ||x||, by count. Where it moves (the graded problem: by up to 6e-3 midway), the
    iteration at which a tolerance is crossed can move by one too."""
    moves = {}
    for k in sorted({max(1, k) for k in iterations}):
        (x1, *_), (x2, *_) = lsmr_twice(a, b, lam, dict(atol=0, btol=0, conlim=0, maxiter=k))
        moves[k] = np.linalg.norm(x1 - x2) / max(np.linalg.norm(x1), 1e-300)
    return moves


def check(out, name, atol, btol, conlim, maxit, reasons):
    want = [int(r) for r in reasons.split(",")]
    with h5py.File(out, "r") as f:
        lambdas = f["ridge/lambda"][:]
        got = f["ridge/stop_reason"][:].tolist()
        iterations = f["ridge/iterations"][:]
        residual, norm = f["ridge/residual_norm"][:], f["ridge/solution_norm"][:]
        solutions = f["ridge/solutions"][:] if "solutions" in f["ridge"] else None
    assert got == want, f"{out}: stop reasons {got}, forced {want} (λ {lambdas.tolist()})"
    try:
        import scipy  # noqa: F401
    except ImportError:
        print(f"{out}: stop reasons {got} as forced; SciPy is not installed, not compared with lsmr")
        return
    a, b = problem(name)
    rules = dict(atol=float(atol), btol=float(btol), conlim=float(conlim), maxiter=int(maxit) or None)
    for j, lam in enumerate(lambdas):
        (x, istop, itn), (x2, istop2, itn2) = (r[:3] for r in lsmr_twice(a, b, lam, rules))
        assert istop == istop2 == got[j], f"{out}: λ {lam}: trident's stop reason {got[j]}, SciPy's istop {istop}, {istop2}"
        # the count exactly, unless SciPy's own two runs differ in it, or a tolerance (stop
        # reasons 1 and 2) is crossed at the end of a path that moves with the order of the sums
        moves = path_moves(a, b, lam, [itn // 3, itn // 2, 3 * itn // 4, itn - 1]) if istop in (1, 2) else {}
        sensitive = max(moves.values(), default=0.0) > 1e-10
        lo, hi = (itn, itn) if itn == itn2 and not sensitive else (min(itn, itn2) - 1, max(itn, itn2) + 1)
        assert lo <= iterations[j] <= hi, f"{out}: λ {lam}: trident {iterations[j]} iterations, SciPy {itn}, {itn2}"
        normx = np.linalg.norm(x)
        tol = max(1e-9, 100 * np.linalg.norm(x - x2) / normx)
        if sensitive:  # a run that stops one iteration early: as far as the path moves there
            tol = max(tol, moves[max(1, itn - 1)])
        what = f"{out}: λ {lam}: trident %s, SciPy %s (to within {tol:.1e})"
        assert abs(residual[j] - np.linalg.norm(b - a @ x)) <= tol * np.linalg.norm(b), \
            what % (f"||b - A x|| {residual[j]!r}", repr(np.linalg.norm(b - a @ x)))
        assert abs(norm[j] - normx) <= tol * normx, what % (f"||x|| {norm[j]!r}", repr(normx))
        if solutions is not None:
            assert np.abs(solutions[j] - x).max() <= tol * normx, what % ("x", "x")
    print(f"{out}: stop reasons {got} as forced, the same as SciPy's lsmr (and its iterations, norms, x)")


def fewer(out_a, out_b):
    with h5py.File(out_a, "r") as a, h5py.File(out_b, "r") as b:
        assert (a["ridge/lambda"][:] == b["ridge/lambda"][:]).all(), "different λ"
        ia, ib = a["ridge/iterations"][:], b["ridge/iterations"][:]
    assert (ib < ia).all(), f"iterations {ib.tolist()} in {out_b}, not all fewer than {ia.tolist()} in {out_a}"


def unfinished(stopped, checkpoint, full):
    with h5py.File(stopped, "r") as s, h5py.File(checkpoint, "r") as c, h5py.File(full, "r") as f:
        status = s.attrs["status"]
        assert "stopped by" in (status.decode() if isinstance(status, bytes) else status), status
        everything = f["ridge/lambda"][:]
        assert -1 not in f["ridge/stop_reason"][:], "the full run has an unfinished λ"
        done = s["ridge/lambda"][:]
        assert (c["ridge/done"][:] == done).all(), "the checkpoint's λ differ from the stopped output's"
        assert 0 < len(done) < len(everything), f"{len(done)} of {len(everything)} λ finished: the test needs some"
        for src, path in ((s, stopped), (c, checkpoint)):
            reasons = src["ridge/stop_reason"][:]
            assert (reasons >= 0).all(), f"{path}: stop reasons {reasons.tolist()} (-1 is an unfinished λ)"
        rows = np.searchsorted(everything, done)
        for key in ("stop_reason", "iterations", "residual_norm", "solution_norm", "converged"):
            assert (s["ridge/" + key][:] == f["ridge/" + key][:][rows]).all(), f"{key} differs from the full run's"
        curve = s["ridge"].attrs["curve"]
        curve = curve.decode() if isinstance(curve, bytes) else curve
        assert curve.startswith("partial: the run was stopped by SIGUSR1"), f"/ridge curve attribute: {curve}"
        assert f["ridge"].attrs["curve"] in ("complete", b"complete"), "the full run's curve is not complete"
        for rule in ("", "/corner", "/discrepancy", "/quasi_optimality", "/gcv"):
            index = s["ridge/selection" + rule].attrs["index"]
            assert index == -1, f"the stopped run chose λ index {index} by /ridge/selection{rule}"
        assert s["ridge/corner"].attrs["index"] == -1, "the stopped run has a corner"
        assert "solution" not in s["ridge"], "/ridge/solution in the stopped run"


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    try:
        {"make": make, "check": check, "fewer": fewer, "unfinished": unfinished}[mode](*args)
    except AssertionError as e:
        print(f"{mode}: {e}")
        sys.exit(1)
