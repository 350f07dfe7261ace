"""Shared helpers for the post-processing scripts: reading trident's HDF5 outputs, and the
choices every plot and summary makes the same way (what state a result is in, which rows
are shown, colour scales and axes), importable so that the tests can check them.

trident writes one HDF5 file per run: root attributes with the provenance (deck text,
versions, ranks, devices, start and end time, `status`), /timings (one attribute per
phase, seconds, slowest rank), and one group per study (/diffusion, /knn, /ridge).
A stopped run says so in `status` ("knn: stopped by SIGUSR1 after 2048 of 4096
observations; checkpoint ..."), and its kNN output has /knn/done (1 where a row is
finished); a ridge λ whose LSMR did not finish has stop reason -1.

Nothing here exits the interpreter but run_command, the scripts' main(): a file that cannot
be used raises OutputError, whose message names the file, and run_command turns it into one
line and exit status 2.
"""
import os
import re
from datetime import datetime

import h5py
import numpy as np

# Colour-bar labels of the diffusion plots when the output does not say the field's unit:
# u carries the start field's unit (the jagged and gaussian starts are dimensionless), and
# L(u) = 4u - (sum of the 4 neighbours) has u's unit.
FIELD_LABEL = "u (unit of the start field)"
LAPLACIAN_LABEL = "L(u) = 4u − Σ neighbours (unit of u)"

# /ridge/stop_reason codes with a meaning for the plots (the rest: LSMR converged).
UNFINISHED = -1
UNCONVERGED = (3, 7)  # 3: cond(A) estimate over conlim, 7: max_iterations reached
STUDIES = ("diffusion", "knn", "ridge")


class OutputError(Exception):
    """A trident output that cannot be used as asked (missing, not HDF5, without the study's
    group or dataset, nothing to draw). The message is one line that starts with the file."""


def run_command(parser, run, argv=None):
    """A script's main: parses `argv` with `parser` and calls run(args); an OutputError (a
    file that cannot be used) ends the script with one line and exit status 2."""
    args = parser.parse_args(argv)
    try:
        run(args)
    except OutputError as e:
        parser.exit(2, f"{parser.prog}: error: {e}\n")


def text(value):
    """An HDF5 attribute as a Python str (h5py gives bytes, str or numpy scalars)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray) and value.dtype.kind in "SO" and value.size == 1:
        return text(value.reshape(-1)[0])
    return str(value)


def open_output(path, group=None):
    """Opens a trident output read-only; raises OutputError naming the file when it does
    not exist, is not an HDF5 file or lacks the study group the caller needs."""
    if not os.path.exists(path):
        raise OutputError(f"{path}: no such file")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise OutputError(f"{path}: not an HDF5 file ({e})") from None
    if group is not None and group not in f:
        studies = [g for g in STUDIES if g in f]
        f.close()
        raise OutputError(f"{path}: no /{group} group (this file has: {', '.join(studies) or 'no study'})")
    return f


def default_png(path, suffix):
    """results.h5 -> results.SUFFIX.png next to it."""
    base = path[:-3] if path.endswith(".h5") else path
    return f"{base}.{suffix}.png"


def use_agg():
    """Plots go to files: no display needed (batch nodes have none)."""
    import matplotlib
    matplotlib.use("Agg")


# ---- the state of a result -------------------------------------------------------------

def status(f):
    """The root `status` attribute (`completed`, or why the run stopped); None without one."""
    return text(f.attrs["status"]) if "status" in f.attrs else None


def stop_note(f, study=None):
    """How the run stopped, in a few words for a title ("stopped by SIGUSR1 after 2048 of
    4096 observations"), or None for a completed run. With `study`, None also when another
    study stopped the run: the studies run one after the other, so one whose group is in the
    file and that is not named in the status had finished. A kNN output with /knn/done is
    stopped whatever the status says."""
    s = status(f)
    if s is not None and s.strip() != "completed":
        head = s.split(";")[0].strip()
        m = re.match(r"(\w+):\s*(.*)", head)
        if m is None or m.group(1) not in STUDIES:
            return head
        if study is None or m.group(1) == study:
            return m.group(2) if study is not None else head
    if study == "knn" and "knn" in f and "done" in f["knn"]:
        done = f["knn/done"][:]
        return f"stopped after {int(np.count_nonzero(done))} of {done.size} observations"
    return None


def knn_done(g):
    """Which rows of /knn hold a result: /knn/done of a stopped run, else every row."""
    n = g["distances"].shape[0]
    if "done" not in g:
        return np.ones(n, dtype=bool)
    return np.asarray(g["done"][:], dtype=bool)


def knn_distances(g, neighbour=1, keep_self=False):
    """The distance to each finished row's `neighbour`-th reference (1 = the nearest).
    Unfinished rows are left out. Unless `keep_self`, a distance of exactly 0 (an
    observation on a reference: itself, in a set searched against itself) is skipped: the
    row's neighbour-th reference at a distance above 0 is shown, and a row without one is
    left out. Returns (distances, rows (their indices), rows with a zero skipped)."""
    d = np.asarray(g["distances"][...], dtype=np.float64)
    n, k = d.shape
    rows = np.flatnonzero(knn_done(g))
    d = d[rows]
    column = np.full(rows.size, neighbour - 1)
    skipped = 0
    if not keep_self:
        zeros = np.count_nonzero(d == 0.0, axis=1)  # rows are nearest first: zeros lead
        skipped = int(np.count_nonzero(zeros))
        column = column + zeros
    keep = column < k
    values = d[np.flatnonzero(keep), column[keep]]
    return values, rows[keep], skipped


def decades(values):
    """How many decades the positive values span (0 when there are fewer than two)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[v > 0]
    return float(np.log10(v.max() / v.min())) if v.size > 1 else 0.0


def use_log_scale(values, limit=2.0):
    """A log scale when the positive values span more than `limit` decades."""
    return decades(values) > limit


def distance_limits(values, log=False):
    """Colour and histogram limits of distances: never below 0, never empty (a constant
    value gets a range around it instead of matplotlib's ±0.1); on a log scale the
    positive values' range."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if log:
        v = v[v > 0]
    if v.size == 0:
        return (1.0, 10.0) if log else (0.0, 1.0)
    lo, hi = float(v.min()), float(v.max())
    if hi > lo:
        return lo, hi
    if log:
        return lo / 2, lo * 2
    return (0.0, 1.0) if lo == 0 else (0.0, 2 * lo)


def colour_scale(arrays, cmap="viridis"):
    """(colour map, vmin, vmax) for fields shown on one scale: a signed field (any value
    below 0) gets the diverging RdBu_r with limits symmetric about 0, so that 0 is the
    map's white middle; a field of one sign `cmap` over its own range."""
    lo = min(float(np.nanmin(a)) for a in arrays)
    hi = max(float(np.nanmax(a)) for a in arrays)
    return scale_of_range(lo, hi, cmap)


def scale_of_range(lo, hi, cmap="viridis"):
    """colour_scale for values from `lo` to `hi`."""
    if lo < 0:
        m = max(-lo, abs(hi)) or 1.0
        return "RdBu_r", -m, m
    return cmap, lo, hi if hi > lo else lo + 1.0


def units(dataset):
    """The dataset's `units` attribute, or None: also for CF's dimensionless "1", which
    trident writes for a generated start field (a label says what u is instead)."""
    u = text(dataset.attrs["units"]).strip() if "units" in dataset.attrs else ""
    return u if u and u != "1" else None


def field_label(diffusion):
    """The colour-bar label of u: its unit from /diffusion/field's `units` attribute
    (carried from the start file), else the generic wording."""
    u = units(diffusion["field"])
    return f"u ({u})" if u else FIELD_LABEL


def applied_operator(diffusion):
    """Whether the frames keep A(u), the operator a step applied (a diffusivity field, or
    dx != dy with D), instead of L(u) = 4u − Σ neighbours."""
    a = diffusion.attrs
    return "c_field" in a or ("c_x" in a and float(a["c_x"]) != float(a["c_y"]))


def laplacian_label(diffusion):
    """The colour-bar label of L(u): u's unit (4u − Σ neighbours has it)."""
    u = units(diffusion["laplacian"]) if "laplacian" in diffusion else None
    u = u or units(diffusion["field"])
    if applied_operator(diffusion):
        return f"A(u) = u − u_next, what a step subtracts{f' ({u})' if u else ''}"
    return f"L(u) = 4u − Σ neighbours ({u})" if u else LAPLACIAN_LABEL


# ---- ridge -------------------------------------------------------------------------------

def ridge_points(r):
    """The L-curve's points, λ ascending: lambda, residual and solution norms, stop
    reasons (1 where the file has none), `finished` (stop reason not -1) and `unconverged`
    (stop reason 3 or 7, among the finished)."""
    lam = np.asarray(r["lambda"][:], dtype=np.float64)
    res = np.asarray(r["residual_norm"][:], dtype=np.float64)
    sol = np.asarray(r["solution_norm"][:], dtype=np.float64)
    if not (len(lam) == len(res) == len(sol)):
        raise OutputError(f"{r.file.filename}: /ridge/lambda, residual_norm, solution_norm differ in length")
    stop = np.asarray(r["stop_reason"][:], dtype=np.int64) if "stop_reason" in r \
        else np.ones(len(lam), dtype=np.int64)
    order = np.argsort(lam, kind="stable")
    finished = stop[order] != UNFINISHED
    return {"lambda": lam[order], "residual": res[order], "solution": sol[order],
            "stop": stop[order], "finished": finished,
            "unconverged": finished & np.isin(stop[order], UNCONVERGED), "order": order}


def equal_decades(x, y, pad=0.08):
    """Limits of log-log axes with as many decades on each: each axis covers its data
    (positive values) plus `pad` of the larger span on both sides, and the shorter is
    widened about its middle to the longer's span. With aspect 'equal' a decade is then as
    long on both axes, so the curve's corner is where the eye sees the elbow."""
    lx, ly = np.log10(np.asarray(x, float)[np.asarray(x) > 0]), np.log10(np.asarray(y, float)[np.asarray(y) > 0])
    if lx.size == 0 or ly.size == 0:
        return (1.0, 10.0), (1.0, 10.0)
    span = max(np.ptp(lx), np.ptp(ly), 0.5)
    span += 2 * pad * span
    limits = []
    for l in (lx, ly):
        middle = (l.min() + l.max()) / 2
        limits.append((10 ** (middle - span / 2), 10 ** (middle + span / 2)))
    return tuple(limits[0]), tuple(limits[1])


# ---- timings -----------------------------------------------------------------------------

# The steps of a run in the order trident runs them, and the parts in the order they are
# first timed (the timer table's order): used where the file does not keep the order in
# which /timings' attributes were made (HDF5 keeps only the names unless asked).
STEPS = ("startup", "deck", "prepare", "open_output", "diffusion", "knn", "ridge",
         "release", "close_output")
# A study's parts timed within the prepare step: trident's table shows them under `prepare`.
PREPARE_PARTS = ("prepare", "start_field", "read", "setup", "device_comm")
PARTS = ("loading", "mpi", "device", "context", "kokkos",
         "prepare", "start_field", "read", "setup", "device_comm", "total", "stage",
         "index_build", "warm_up", "page_lock", "search", "compute", "halo", "sweep", "corner", "select", "gcv",
         "output", "output_behind", "checkpoint")


def timer_parent(name, names):
    """The row a phase sits under: a study's set-up part under `prepare` (where trident
    times it), any other dotted name under its longest dotted prefix that is a phase
    (`startup.mpi` under `startup`); None for a step."""
    head, _, last = name.rpartition(".")
    if not head:
        return None
    if head in STUDIES and last in PREPARE_PARTS and "prepare" in names:
        return "prepare"
    while head:
        if head in names:
            return head
        head = head.rpartition(".")[0]
    return None


def timer_rows(names, creation_order=None):
    """The phases as (name, depth) rows: each under its parent (timer_parent), parents
    before their parts; siblings in `creation_order` (the order trident made them, when the
    file kept it), else in run order (STEPS, PARTS), names not known after the known ones,
    alphabetically."""
    names = list(dict.fromkeys(names))
    known = set(names)
    if creation_order is not None:
        rank = {n: i for i, n in enumerate(creation_order)}
        key = lambda n: (rank.get(n, len(rank)), n)
    else:
        def key(n):
            if "." not in n:
                return (STEPS.index(n) if n in STEPS else len(STEPS), n)
            head, _, last = n.rpartition(".")
            study = STUDIES.index(head) if head in STUDIES else len(STUDIES)
            part = PARTS.index(last) if last in PARTS else len(PARTS)
            return (study, part, n) if timer_parent(n, known) == "prepare" else (part, n)
    children = {}
    for n in names:
        children.setdefault(timer_parent(n, known), []).append(n)
    rows = []
    def visit(parent, depth):
        for n in sorted(children.get(parent, []), key=key):
            rows.append((n, depth))
            visit(n, depth + 1)
    visit(None, 0)
    return rows


def _parse_time(stamp):
    try:
        return datetime.fromisoformat(stamp.strip().replace("Z", "+00:00"))
    except ValueError:
        return None


def wall_seconds(attrs, timings):
    """The run's wall-clock seconds and where they come from: the start and end stamps
    when they carry fractions of a second; else the sum of the steps in /timings (the
    phases without a dot, process start to the end of the output), since whole-second
    stamps would say 0 s for a run of 0.9 s. (None, reason) when neither is there."""
    start, end = attrs.get("start_time"), attrs.get("end_time")
    if start and end:
        a, b = _parse_time(start), _parse_time(end)
        fine = all(re.search(r"\d\d:\d\d:\d\d[.,]\d", s) for s in (start, end))
        if a is not None and b is not None and fine:
            return (b - a).total_seconds(), "end_time − start_time"
    steps = [v for k, v in timings.items() if "." not in k]
    if steps:
        return float(sum(steps)), "the steps in /timings; the start and end stamps are whole seconds"
    return None, "no sub-second stamps and no /timings"
