"""The ridge L-curve: residual norm ||b - A x_λ|| against solution norm ||x_λ||, log-log
with a decade as long on both axes, each point labelled with its λ and the corner (the λ
of best balance) circled. A λ whose LSMR did not converge (stop reason 3, cond(A) over
conlim, or 7, max_iterations) is drawn hollow. A stopped run's curve is partial: the
unfinished λ are left out, the title says so, and no corner is circled. The other rules'
choices (/ridge/selection: discrepancy, quasi-optimality, GCV) are marked on the curve, and
where the run computed GCV its G(λ) is drawn in a second panel, its minimum marked; a λ
whose G did not settle (the probes stopped once the minimum was decided) is drawn as the
range its bounds allow (/ridge/gcv to /ridge/gcv_upper), not as a point."""
import argparse

import numpy as np

from trident_postprocess import trident_h5


def draw(f, path):
    """The figure of the output `f` (its name `path` in the title): (figure, axes, what
    was drawn: 'partial' (the stop note or None), 'corner' (index into the finished
    points or None), 'hollow' (their λ))."""
    r = f["ridge"]
    p = trident_h5.ridge_points(r)
    stopped = trident_h5.stop_note(f, "ridge")
    unfinished = int(np.count_nonzero(~p["finished"]))
    partial = stopped or (f"{unfinished} λ unfinished" if unfinished else None)
    keep = np.flatnonzero(p["finished"])
    lam, res, sol = p["lambda"][keep], p["residual"][keep], p["solution"][keep]
    hollow = p["unconverged"][keep]
    if len(lam) == 0:
        raise trident_h5.OutputError(f"{path}: no finished λ to draw ({partial or 'empty /ridge'})")
    corner = None
    if partial is None and "corner" in r:
        index = int(r["corner"].attrs.get("index", -1))  # into the file's order
        if 0 <= index < len(p["order"]):
            corner = int(np.flatnonzero(p["order"] == index)[0])

    import matplotlib.pyplot as plt
    gcv = None
    if "gcv" in r and len(r["gcv"]) == len(p["order"]):
        gcv = np.asarray(r["gcv"][:], dtype=np.float64)[p["order"]][keep]
        loose = np.zeros(len(gcv), dtype=bool)  # converged, G not settled: drawn as its range
        if "gcv_settled" in r and "gcv_upper" in r:
            loose = ~np.asarray(r["gcv_settled"][:], dtype=bool)[p["order"]][keep] & ~hollow
            gcv_upper = np.asarray(r["gcv_upper"][:], dtype=np.float64)[p["order"]][keep]
    if gcv is None:
        fig, ax = plt.subplots(figsize=(7, 5.5))
    else:
        fig, (ax, gx) = plt.subplots(1, 2, figsize=(13, 5.5))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.plot(res, sol, "-", color="tab:blue", lw=1.2, label="L-curve" + (" (partial)" if partial else ""))
    ax.plot(res[~hollow], sol[~hollow], "o", color="tab:blue", ms=5, ls="none")
    if hollow.any():
        ax.plot(res[hollow], sol[hollow], "o", mfc="none", mec="tab:blue", mew=1.3, ms=6, ls="none",
                label="not converged (stop reason 3 or 7)")
    # Label every point, except where a label would sit on one already placed (points
    # crowd where the curve flattens): the corner and the two ends are labelled first.
    lx, ly = np.log10(res), np.log10(sol)
    span = max(np.ptp(lx), np.ptp(ly), 1e-12)
    placed = []
    for i in ([corner] if corner is not None else []) + [0, len(lam) - 1] + list(range(1, len(lam) - 1)):
        if i in placed or any(np.hypot(lx[i] - lx[j], ly[i] - ly[j]) < 0.035 * span for j in placed):
            continue
        placed.append(i)
        ax.annotate(f"λ={lam[i]:.3g}", (res[i], sol[i]), textcoords="offset points",
                    xytext=(7, 4), fontsize=8)
    if corner is not None:
        lc = float(r["corner"].attrs.get("lambda", lam[corner]))
        ax.plot([res[corner]], [sol[corner]], "o", ms=14, mfc="none", mec="tab:red", mew=2,
                label=f"corner λ = {lc:.4g}")
    # The other rules' choices, on the curve (index into the file's order, as the corner's;
    # only on a complete curve, whose points are all finished).
    marks = {"discrepancy": ("s", "tab:green"), "quasi_optimality": ("D", "tab:purple"), "gcv": ("^", "tab:orange")}
    chosen = {}
    for rule, (marker, colour) in marks.items():
        g = r.get(f"selection/{rule}")
        index = int(g.attrs.get("index", -1)) if g is not None and partial is None else -1
        if not 0 <= index < len(p["order"]):
            continue
        i = int(np.flatnonzero(p["order"] == index)[0])
        chosen[rule] = i
        ax.plot([res[i]], [sol[i]], marker, ms=11, mfc="none", mec=colour, mew=1.8,
                label=f"{rule.replace('_', '-')} λ = {float(g.attrs.get('lambda', lam[i])):.4g}")
    if gcv is not None:
        gx.set_xscale("log")
        gx.set_yscale("log")
        firm = ~hollow & ~loose
        gx.plot(lam[~loose], gcv[~loose], "-", color="tab:orange", lw=1.2)
        gx.plot(lam[firm], gcv[firm], "o", color="tab:orange", ms=4, ls="none")
        if loose.any():
            # an infinite bound (t from above reaching rows) drawn to the panel's top
            top = np.where(np.isfinite(gcv_upper[loose]), gcv_upper[loose], 10 * np.nanmax(gcv[np.isfinite(gcv)]))
            gx.vlines(lam[loose], gcv[loose], top, color="tab:orange", lw=2, alpha=0.5,
                      label="not settled: G within this range")
            gx.plot(lam[loose], gcv[loose], "_", color="tab:orange", ms=8, ls="none")
        if hollow.any():
            gx.plot(lam[hollow], gcv[hollow], "o", mfc="none", mec="tab:orange", ms=5, ls="none",
                    label="not converged")
        if "gcv" in chosen:
            i = chosen["gcv"]
            gx.plot([lam[i]], [gcv[i]], "^", ms=12, mfc="none", mec="tab:red", mew=2, label=f"minimum λ = {lam[i]:.4g}")
        probes = int(r["selection/gcv"].attrs.get("probes", 0)) if "selection/gcv" in r else 0
        gx.set_xlabel("λ")
        gx.set_ylabel("G(λ) = rows ‖b − A x‖² / (rows − trace)²")
        gx.set_title(f"GCV ({probes} probes)")
        gx.grid(True, which="both", alpha=0.3)
        gx.legend(loc="best")
    # Equal decades on both axes: the corner is computed on log10 of both norms at one
    # scale, so it looks like the elbow only when the axes share it.
    xlim, ylim = trident_h5.equal_decades(res, sol)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("residual norm ‖b − A x‖")
    ax.set_ylabel("solution norm ‖x‖")
    title = f"L-curve, {len(lam)} λ from {lam.min():.3g} to {lam.max():.3g}"
    if partial:
        title += (f"\npartial: {partial}"
                  + (f"; {unfinished} unfinished λ left out" if unfinished else "") + "; no corner")
    ax.set_title(title, fontsize=10 if partial else None)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower left")  # below the elbow: empty on an L-curve
    fig.tight_layout()
    return fig, ax, {"partial": partial, "corner": corner, "hollow": lam[hollow], "chosen": chosen,
                     "gcv": gcv is not None, "gcv_ranges": lam[loose] if gcv is not None else lam[:0]}


def run(a):
    """Draws the L-curve of the output the arguments name."""
    f = trident_h5.open_output(a.output, "ridge")
    trident_h5.use_agg()
    fig, _, _ = draw(f, a.output)
    png = a.png or trident_h5.default_png(a.output, "lcurve")
    fig.savefig(png, dpi=a.dpi)
    print(png)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("output", help="trident HDF5 output (with /ridge)")
    p.add_argument("-o", "--png", help="figure to write (default: OUTPUT.lcurve.png)")
    p.add_argument("--dpi", type=int, default=100, help="resolution of the PNG (default 100)")
    trident_h5.run_command(p, run, argv)


if __name__ == "__main__":
    main()
