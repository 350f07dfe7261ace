#!/usr/bin/python3
"""A one-page text summary of any trident output file: provenance (deck, versions,
ranks, devices, start and end), the timings of each phase, what each study computed,
and the datasets in the file."""
import argparse
from datetime import datetime

import h5py
import numpy as np

import trident_h5

PROVENANCE = ("trident_version", "status", "mpi_ranks", "mpi_library", "kokkos_version",
              "kokkos_backend", "hdf5_version", "deck_file", "start_time", "end_time")


def seconds_between(start, end):
    try:
        parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))
        return (parse(end) - parse(start)).total_seconds()
    except ValueError:
        return None


def provenance(f, out):
    attrs = {k: trident_h5.text(v) for k, v in f.attrs.items()}
    out.append("provenance")
    for key in PROVENANCE:
        if key in attrs:
            out.append(f"  {key:<20} {attrs[key]}")
    if "start_time" in attrs and "end_time" in attrs:
        s = seconds_between(attrs["start_time"], attrs["end_time"])
        if s is not None:
            out.append(f"  {'wall time':<20} {s:.1f} s")
    others = sorted(set(attrs) - set(PROVENANCE) - {"deck", "devices"})
    for key in others:
        out.append(f"  {key:<20} {attrs[key][:60]}")
    if "devices" in attrs:
        out.append("  devices")
        out.extend("    " + line for line in attrs["devices"].strip().splitlines()[:8])
    if "deck" in attrs:
        lines = attrs["deck"].rstrip().splitlines()
        out.append(f"deck ({len(lines)} lines)")
        out.extend("  | " + line for line in lines[:25])
        if len(lines) > 25:
            out.append(f"  | ... {len(lines) - 25} more lines")


# The steps of a run in the order trident runs them, and each study's parts in the order they
# are first timed (the timer table's order). Used when the file does not track the creation
# order of /timings' attributes (trident writes them in run order, but HDF5 keeps only the
# names unless creation order is tracked).
STEPS = ("startup", "deck", "prepare", "open_output", "diffusion", "knn", "ridge",
         "release", "close_output")
PREPARE_PARTS = ("prepare", "start_field", "read", "setup")  # timed within the prepare step
PARTS = ("prepare", "start_field", "read", "setup", "total", "stage", "warm_up", "page_lock",
         "search", "compute", "halo", "sweep", "corner", "output", "output_behind", "checkpoint")


def run_order(names):
    """The phase names in run order: the known steps in sequence, each study's parts of
    set-up under `prepare` and its other parts under the study's own step; names this
    script does not know keep their place after the ones it does, alphabetically."""
    names = set(names)
    def parts(study, prepare):
        mine = [p for p in PARTS if f"{study}.{p}" in names and (p in PREPARE_PARTS) == prepare]
        return [f"{study}.{p}" for p in mine]
    order = []
    for step in STEPS:
        if step in names:
            order.append(step)
        if step == "prepare":
            for study in ("diffusion", "knn", "ridge"):
                order += parts(study, True)
        elif step in ("diffusion", "knn", "ridge"):
            order += parts(step, False)
    return order + sorted(names - set(order))


def timings(f, out):
    if "timings" not in f:
        return
    group = f["timings"]
    t = {k: float(v) for k, v in group.attrs.items()
         if np.asarray(v).dtype.kind in "fiu" and np.asarray(v).size == 1}
    if not t:
        return
    # h5py lists attributes in creation order (run order) where the file tracks it.
    plist = group.id.get_create_plist()
    tracked = plist.get_attr_creation_order() & h5py.h5p.CRT_ORDER_TRACKED
    names = [k for k in group.attrs if k in t] if tracked else run_order(t)
    out.append("timings (seconds, slowest rank; run order, parts indented under their step)")
    for key in names:
        depth = key.count(".")
        out.append(f"  {'  ' * depth + key:<30} {t[key]:10.3f}")


def stats(values):
    v = np.asarray(values, dtype=np.float64)
    return f"min {v.min():.4g}, mean {v.mean():.4g}, max {v.max():.4g}"


def diffusion(g, out):
    field = g["field"]
    frames, ny, nx = field.shape
    steps = g["step"][:]
    attrs = {k: trident_h5.text(v) for k, v in g.attrs.items()}
    out.append(f"diffusion: {nx} x {ny} cells, {frames} frames (steps {steps[0]} to {steps[-1]}"
               + (f" of {attrs['steps']}" if "steps" in attrs else "") + ")"
               + (f", c = {attrs['c']}" if "c" in attrs else "")
               + (f", {attrs['precision']}" if "precision" in attrs else ""))
    out.append(f"  start field: {stats(field[0])}, sum {np.sum(field[0], dtype=np.float64):.6g}")
    out.append(f"  final field: {stats(field[-1])}, sum {np.sum(field[-1], dtype=np.float64):.6g}")
    if "laplacian" in g:
        out.append(f"  final Laplacian: {stats(g['laplacian'][-1])}")


def knn(g, out):
    d = g["distances"]
    n, k = d.shape
    nearest = d[:, 0] / 1000.0  # metres (the default radius is Earth's) to km
    refs = trident_h5.text(g.attrs["reference_count"]) if "reference_count" in g.attrs else "?"
    out.append(f"knn: {n} observations, {refs} references, k = {k}")
    out.append(f"  nearest distance (km): {stats(nearest)}, median {np.median(nearest):.4g}")
    if k > 1:
        out.append(f"  k-th distance (km):    {stats(d[:, k - 1] / 1000.0)}")


def ridge(g, out):
    lam, res, sol = g["lambda"][:], g["residual_norm"][:], g["solution_norm"][:]
    out.append(f"ridge: {len(lam)} λ from {lam.min():.4g} to {lam.max():.4g}"
               + (f", matrix {trident_h5.text(g.attrs['rows'])} x {trident_h5.text(g.attrs['columns'])}"
                  if "rows" in g.attrs and "columns" in g.attrs else ""))
    if "corner" in g:
        c = g["corner"].attrs
        out.append(f"  L-curve corner: λ = {float(c.get('lambda', np.nan)):.6g} "
                   f"(index {int(c.get('index', -1))})")
    out.append(f"  {'λ':>12} {'‖b-Ax‖':>12} {'‖x‖':>12}" + (" iterations" if "iterations" in g else ""))
    its = g["iterations"][:] if "iterations" in g else None
    for i in np.argsort(lam):
        out.append(f"  {lam[i]:12.4g} {res[i]:12.5g} {sol[i]:12.5g}"
                   + (f" {its[i]:10d}" if its is not None else ""))


def datasets(f, out):
    rows = []
    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            shape = " x ".join(str(s) for s in obj.shape) or "scalar"
            rows.append(f"  /{name:<28} {shape:<20} {obj.dtype}")
    f.visititems(visit)
    out.append("datasets")
    out.extend(rows[:40])
    if len(rows) > 40:
        out.append(f"  ... {len(rows) - 40} more")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("output", help="trident HDF5 output")
    p.add_argument("-o", "--text", help="also write the summary to this file")
    a = p.parse_args()

    f = trident_h5.open_output(a.output)
    out = [f"trident output {a.output}", ""]
    provenance(f, out)
    out.append("")
    timings(f, out)
    for name, describe in (("diffusion", diffusion), ("knn", knn), ("ridge", ridge)):
        if name in f:
            out.append("")
            describe(f[name], out)
    out.append("")
    datasets(f, out)
    page = "\n".join(out) + "\n"
    print(page, end="")
    if a.text:
        with open(a.text, "w") as t:
            t.write(page)


if __name__ == "__main__":
    main()
