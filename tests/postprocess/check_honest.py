#!/usr/bin/python3
"""Checks that the post-processing scripts are honest about a result's state, on the
choices they make (the package postprocess/trident_postprocess) rather than on pixels: a stopped run's
unfinished rows and λ left out and said so, no corner on a partial L-curve, unconverged λ
hollow, signed fields on a diverging scale centred on 0, units from the output, zero
self-distances skipped, log scales for wide distances, equal decades on the L-curve, the
timer rows under their parents, wall time to the millisecond.

usage: check_honest.py helpers
       check_honest.py summary-stopped-knn STOPPED.h5
       check_honest.py knn-map-stopped STOPPED.h5
       check_honest.py lcurve COMPLETE.h5
       check_honest.py lcurve-stopped STOPPED.h5
       check_honest.py lcurve-partial COMPLETE.h5 PARTIAL.h5   (writes PARTIAL.h5 from COMPLETE.h5)
       check_honest.py panels-signed START_FILE_RUN.h5
       check_honest.py panels-plain RUN.h5
       check_honest.py knn-self STATIONS.h5
       check_honest.py knn-log POINTS.h5
       check_honest.py knn-matches MATCHES.h5
       check_honest.py summary-timers RUN.h5
Each exits non-zero with a message when a check fails.
"""
import os
import shutil
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "postprocess"))
from trident_postprocess import trident_h5  # noqa: E402

trident_h5.use_agg()
from trident_postprocess import diffusion_panels, knn_map, knn_matches, lcurve, summary  # noqa: E402

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


def equal_decades(ax):
    x, y = np.log10(ax.get_xlim()), np.log10(ax.get_ylim())
    check(ax.get_xscale() == "log" and ax.get_yscale() == "log", "L-curve axes are not log-log")
    check(abs((x[1] - x[0]) - (y[1] - y[0])) < 1e-9,
          f"L-curve axes span unequal decades: x {x[1] - x[0]:.3f}, y {y[1] - y[0]:.3f}")
    check(ax.get_aspect() == 1.0, f"L-curve aspect is {ax.get_aspect()}, not equal")


def helpers():
    # colour scales: signed -> RdBu_r symmetric about 0; one sign -> the given map, own range
    check(trident_h5.colour_scale([np.array([-25.0, 10.0])]) == ("RdBu_r", -25.0, 25.0), "signed scale")
    check(trident_h5.colour_scale([np.array([0.0, 3.0])]) == ("viridis", 0.0, 3.0), "positive scale")
    # distances: never negative limits, log only past two decades of positive values
    check(trident_h5.distance_limits(np.zeros(5)) == (0.0, 1.0), "limits of all-zero distances")
    check(min(trident_h5.distance_limits(np.full(5, 3.0))) >= 0, "limits of constant distances")
    check(trident_h5.use_log_scale([0.0, 1e-3, 1.0]) and not trident_h5.use_log_scale([0.0, 1.0, 99.0]),
          "log scale past two decades of positive values")
    xlim, ylim = trident_h5.equal_decades([1, 30], [1e-3, 1e3])
    check(abs(np.log10(xlim[1] / xlim[0]) - np.log10(ylim[1] / ylim[0])) < 1e-12, "equal_decades")
    # timer rows: a dotted name under its parent, a study's set-up part under prepare
    names = ["close_output", "deck", "startup", "startup.mpi", "startup.loading", "prepare",
             "knn", "knn.search", "knn.read", "release", "open_output", "foo.bar", "foo"]
    rows = trident_h5.timer_rows(names)
    check(rows[:3] == [("startup", 0), ("startup.loading", 1), ("startup.mpi", 1)],
          f"startup.* not under startup: {rows[:4]}")
    check(("knn.read", 1) in rows and rows.index(("knn.read", 1)) == rows.index(("prepare", 0)) + 1,
          f"knn.read not under prepare: {rows}")
    check(rows.index(("knn.search", 1)) == rows.index(("knn", 0)) + 1, "knn.search not under knn")
    check(rows.index(("foo.bar", 1)) == rows.index(("foo", 0)) + 1, "unknown dotted name not under its parent")
    check(rows.index(("close_output", 0)) < rows.index(("foo", 0)), "unknown step before known ones")
    # wall time: whole-second stamps give way to the steps' sum; finer stamps are used
    t = {"startup": 0.25, "startup.mpi": 0.2, "deck": 0.5, "close_output": 0.125}
    s, how = trident_h5.wall_seconds({"start_time": "2026-01-01T00:00:00Z", "end_time": "2026-01-01T00:00:00Z"}, t)
    check(s == 0.875 and "timings" in how, f"wall time from whole-second stamps: {s} ({how})")
    s, how = trident_h5.wall_seconds({"start_time": "2026-01-01T00:00:00.250Z",
                                      "end_time": "2026-01-01T00:00:01.500Z"}, t)
    check(abs(s - 1.25) < 1e-9, f"wall time from millisecond stamps: {s}")
    # imported, the helpers raise OutputError naming the file; they never exit the interpreter
    for path, text in (("/nonexistent/run.h5", "/nonexistent/run.h5: no such file"),
                       (__file__, f"{__file__}: not an HDF5 file")):
        try:
            trident_h5.open_output(path)
            check(False, f"open_output({path}) returned")
        except trident_h5.OutputError as e:
            check(str(e).startswith(text), f"open_output({path}): {e}")
        except SystemExit as e:
            check(False, f"open_output({path}) exited: {e}")


def summary_stopped_knn(path):
    f = h5py.File(path, "r")
    check("done" in f["knn"], f"{path}: no /knn/done: not a stopped run")
    done = f["knn/done"][:].astype(bool)
    check(0 < done.sum() < done.size, f"{path}: {done.sum()} of {done.size} rows done: not a partial result")
    nearest = f["knn/distances"][:, 0] / 1000.0
    page = summary.summarize(f, path)
    line = next((l for l in page if "nearest distance (km)" in l), "")
    median = line.rpartition("median ")[2]
    check(median == f"{np.median(nearest[done]):.4g}",
          f"summary median {median!r}, the finished rows' is {np.median(nearest[done]):.4g}")
    check(median != f"{np.median(nearest):.4g}", "test is blind: every row's median is the finished rows'")
    check(f"min {nearest[done].min():.4g}," in line, f"summary min is not the finished rows': {line}")
    check(any("stopped by SIGUSR1 after" in l and "finished rows only" in l for l in page),
          "summary does not say the run stopped: " + " | ".join(page[:30]))


def knn_map_stopped(path):
    f = h5py.File(path, "r")
    fig, (ax_map, _), info = knn_map.draw(f, path)
    done = int(f["knn/done"][:].sum())
    check(info["distance"].size == done, f"map shows {info['distance'].size} rows, {done} are finished")
    check("stopped by SIGUSR1" in ax_map.get_title(), f"map title does not say stopped: {ax_map.get_title()}")


def lcurve_complete(path):
    f = h5py.File(path, "r")
    _, ax, info = lcurve.draw(f, path)
    check(info["partial"] is None and info["corner"] is not None, f"complete L-curve: {info}")
    check(any("corner" in t.get_text() for t in ax.get_legend().get_texts()), "no corner in the legend")
    equal_decades(ax)


def lcurve_rules(path):
    """A run with every rule (inputs/ridge_deblur.yaml): each rule's λ marked on the curve
    at the point of its index, and G(λ) drawn with its minimum, each converged λ whose G did
    not settle drawn as its range, not as a point."""
    f = h5py.File(path, "r")
    fig, ax, info = lcurve.draw(f, path)
    check(info["gcv"] and len(fig.axes) == 2, f"no GCV panel: {info}")
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    res = f["ridge/residual_norm"][:]
    for rule in ("discrepancy", "quasi-optimality", "gcv"):
        check(any(t.startswith(rule + " λ = ") for t in legend), f"no {rule} mark in the legend {legend}")
    for rule in ("discrepancy", "quasi_optimality", "gcv"):
        index = int(f[f"ridge/selection/{rule}"].attrs["index"])
        marks = [line for line in ax.get_lines() if line.get_label().startswith(rule.replace("_", "-") + " λ")]
        check(len(marks) == 1 and marks[0].get_xdata()[0] == res[index], f"{rule} not marked at its point {index}")
    gx = fig.axes[1]
    gcv = f["ridge/gcv"][:]
    check(any(np.isclose(line.get_ydata(), gcv[int(f["ridge/selection/gcv"].attrs["index"])]).all()
              for line in gx.get_lines() if len(line.get_ydata()) == 1), "the GCV minimum is not marked")
    lam = f["ridge/lambda"][:]
    loose = f["ridge/converged"][:].astype(bool) & ~f["ridge/gcv_settled"][:].astype(bool)
    check(loose.any(), "test is blind: every G settled")
    check(sorted(info["gcv_ranges"]) == sorted(lam[loose]),
          f"ranges at {info['gcv_ranges']}, unsettled at {lam[loose]}")
    ranges = [c for c in gx.collections if c.get_label().startswith("not settled")]
    check(len(ranges) == 1 and len(ranges[0].get_segments()) == int(loose.sum()), "the unsettled G are not ranges")
    points = np.concatenate([line.get_xdata() for line in gx.get_lines() if line.get_marker() == "o"])
    check(not np.isin(lam[loose], points).any(), "an unsettled G is drawn as a point")


def lcurve_stopped(path):
    f = h5py.File(path, "r")
    check(trident_h5.stop_note(f, "ridge") is not None, f"{path}: status does not say stopped")
    try:
        _, ax, info = lcurve.draw(f, path)
    except trident_h5.OutputError as e:  # stopped before any λ finished: one line saying so
        check("stopped by" in str(e) and "no finished λ" in str(e), f"lcurve of a stopped run: {e}")
        return
    check(info["partial"] and info["corner"] is None, f"stopped L-curve: {info}")
    check("partial: stopped by SIGUSR1" in ax.get_title(), f"title: {ax.get_title()}")
    check(not any("corner" in t.get_text() for t in ax.get_legend().get_texts()), "a corner on a stopped run")
    equal_decades(ax)


def lcurve_partial(complete, partial):
    """A stopped sweep made from a complete one: one λ unfinished (-1), one at the
    iteration limit (7), one at the condition limit (3)."""
    shutil.copy(complete, partial)
    with h5py.File(partial, "r+") as f:
        stop = f["ridge/stop_reason"]
        order = np.argsort(f["ridge/lambda"][:])
        s = stop[:]
        s[order[-1]], s[order[2]], s[order[5]] = -1, 7, 3
        stop[...] = s
        f.attrs["status"] = "ridge: stopped by SIGINT with 12 λ finished; checkpoint c.h5 written"
        lam = f["ridge/lambda"][:]
    f = h5py.File(partial, "r")
    _, ax, info = lcurve.draw(f, partial)
    check(info["partial"] == "stopped by SIGINT with 12 λ finished" and info["corner"] is None, f"partial: {info}")
    title = ax.get_title()
    check("partial: stopped by SIGINT" in title and "1 unfinished λ left out" in title, f"title: {title}")
    drawn = np.concatenate([l.get_xdata() for l in ax.get_lines()])
    res = f["ridge/residual_norm"][:]
    check(res[order[-1]] not in drawn, "the unfinished λ is drawn")
    check(sorted(info["hollow"]) == sorted([lam[order[2]], lam[order[5]]]), f"hollow λ: {info['hollow']}")
    hollow = [l for l in ax.get_lines() if l.get_markerfacecolor() == "none" and len(l.get_xdata()) == 2]
    check(len(hollow) == 1 and sorted(hollow[0].get_xdata()) == sorted([res[order[2]], res[order[5]]]),
          "the unconverged λ are not drawn hollow")
    check(not any("corner" in t.get_text() for t in ax.get_legend().get_texts()), "a corner on a partial curve")
    equal_decades(ax)


def panels_signed(path):
    f = h5py.File(path, "r")
    check(trident_h5.units(f["diffusion/field"]) == "K above the ambient temperature",
          f"/diffusion/field units: {trident_h5.units(f['diffusion/field'])}")
    if "laplacian" in f["diffusion"]:
        check(trident_h5.units(f["diffusion/laplacian"]) == "K above the ambient temperature",
              "/diffusion/laplacian lacks the start file's units")
    start = f["diffusion/field"][0]
    check(start.min() < 0, f"{path}: the start field has no negative values")
    _, images, _ = diffusion_panels.draw(f, path)
    for im in images:
        lo, hi = im.get_clim()
        check(lo == -hi and im.get_cmap().name == "RdBu_r", f"signed panel: {im.get_cmap().name} {lo}..{hi}")
    check(images[0].get_clim()[0] <= start.min(), "the cold front is below the colour scale")


def panels_plain(path):
    f = h5py.File(path, "r")
    _, images, _ = diffusion_panels.draw(f, path)
    field = f["diffusion/field"]
    check(field[0].min() >= 0, f"{path}: expected a field of one sign")
    check(images[0].get_cmap().name == "viridis", f"one-sign field on {images[0].get_cmap().name}")
    lo, hi = images[0].get_clim()
    check(lo == min(field[0].min(), field[-1].min()), f"one-sign field scale starts at {lo}")


def knn_self(path):
    f = h5py.File(path, "r")
    check(np.all(f["knn/distances"][:, 0] == 0), f"{path}: expected every nearest distance 0 (itself)")
    fig, (ax_map, ax_hist), info = knn_map.draw(f, path)
    n = f["knn/distances"].shape[0]
    check(np.all(info["distance"] > 0), "a zero distance is shown")
    check(info["skipped"] == n, f"{info['skipped']} zeros skipped, expected {n}")
    check("zero distances (self) skipped" in ax_map.get_title(), f"title: {ax_map.get_title()}")
    _, (ax_map, ax_hist), kept = knn_map.draw(f, path, keep_self=True)
    check(np.count_nonzero(kept["distance"] == 0) == n and kept["skipped"] == 0, "--keep-self drops zeros")
    check(kept["limits"][0] >= 0 and ax_hist.get_xlim()[0] >= 0, f"negative distance axis: {ax_hist.get_xlim()}")
    clim = ax_map.collections[0].get_clim()
    check(clim[0] >= 0 and clim[1] > clim[0], f"colour bar {clim}")


def knn_log(path):
    f = h5py.File(path, "r")
    _, (ax_map, ax_hist), info = knn_map.draw(f, path)
    check(info["log"] and ax_hist.get_xscale() == "log", "wide distances not on a log scale")
    from matplotlib.colors import LogNorm
    check(isinstance(ax_map.collections[0].norm, LogNorm), "the map's colours are not on a log scale")
    counts = np.array([p.get_height() for p in ax_hist.patches])
    check(counts.max() < 0.5 * info["distance"].size, f"one bin holds {counts.max():.0f} of {info['distance'].size}")


def knn_matches_drawn(path):
    """A line for each match from its observation to its reference, in the colour of its
    mutual flag; the histogram holds every match distance; the counts in the title."""
    f = h5py.File(path, "r")
    g = f["knn"]
    fig, (ax_map, ax_hist), info = knn_matches.draw(f, path)
    index = g["indices"][:, 0]
    matched = np.flatnonzero(index >= 0)
    check(np.array_equal(info["pairs"], matched), "the pairs drawn are not the matched rows")
    obs, refs = g["observations"][...], info["references"]
    mutual = g["mutual"][...].astype(bool)
    drawn = [c for c in ax_map.collections if c.__class__.__name__ == "LineCollection"]
    check(len(drawn) == 2, f"{len(drawn)} sets of lines, expected mutual and not mutual")
    for lines, want in zip(drawn, (mutual[matched], ~mutual[matched])):
        segs = lines.get_segments()
        rows = matched[want]
        check(len(segs) >= rows.size, f"{len(segs)} lines for {rows.size} matches")
        starts = {(round(s[0][0], 9), round(s[0][1], 9)) for s in segs}
        ends = {(round(s[1][0], 9), round(s[1][1], 9)) for s in segs}
        check(all((round(obs[r, 1], 9), round(obs[r, 0], 9)) in starts for r in rows), "a line does not start at its observation")
        check(all((round(refs[index[r], 1], 9), round(refs[index[r], 0], 9)) in ends or abs(refs[index[r], 1] - obs[r, 1]) > 180
                  for r in rows), "a line does not end at its reference")
    total = sum(p.get_height() for p in ax_hist.patches)
    check(total == matched.size, f"the histogram holds {total} distances, expected {matched.size}")
    title = ax_map.get_title()
    for name in ("matched", "unmatched", "ambiguous"):
        check(f"{int(g.attrs[name])} {name}" in title, f"title lacks the {name} count: {title}")
    check(f"{int(g.attrs['mutual_matches'])} mutual" in title, f"title lacks the mutual count: {title}")
    check(np.allclose(info["distance"], g["distances"][:, 0][matched] / 1000.0), "distances not in km")


def summary_timers(path):
    f = h5py.File(path, "r")
    page = summary.summarize(f, path)
    rows = [l for l in page if l.startswith("  ") and l.split() and l.split()[0] in f["timings"].attrs]
    names = [l.split()[0] for l in rows]
    at = names.index("startup")
    under = [n for n in names[at + 1:] if n.startswith("startup.")]
    check(under and names[at + 1:at + 1 + len(under)] == under, f"startup.* not right after startup: {names}")
    steps = [n for n in names if "." not in n]
    check(steps == [s for s in trident_h5.STEPS if s in steps], f"steps not in run order: {steps}")
    step = None
    for n in names:  # each part under the step trident times it in
        if "." not in n:
            step = n
            continue
        head, _, last = n.partition(".")
        want = "prepare" if head != "startup" and last in ("prepare", "start_field", "read", "setup", "device_comm") else head
        check(step == want, f"{n} under {step}, expected under {want}")
    for row in rows:
        name = row.split()[0]
        indent = len(row) - len(row.lstrip()) - 2
        check(indent == (0 if "." not in name else 2), f"timer row indented {indent}: {row}")
    wall = next((l for l in page if "wall time" in l), "")
    value = wall.split()[2] if wall else ""
    check(value.count(".") == 1 and len(value.split(".")[1]) == 3 and float(value) > 0,
          f"wall time not to the millisecond: {wall!r}")


MODES = {"helpers": helpers, "summary-stopped-knn": summary_stopped_knn, "knn-map-stopped": knn_map_stopped,
         "lcurve": lcurve_complete, "lcurve-rules": lcurve_rules, "lcurve-stopped": lcurve_stopped, "lcurve-partial": lcurve_partial,
         "panels-signed": panels_signed, "panels-plain": panels_plain, "knn-self": knn_self,
         "knn-log": knn_log, "summary-timers": summary_timers, "knn-matches": knn_matches_drawn}

if __name__ == "__main__":
    MODES[sys.argv[1]](*sys.argv[2:])
    if failures:
        sys.exit(f"{sys.argv[1]}: " + "; ".join(failures))
    print(f"{sys.argv[1]}: ok")
