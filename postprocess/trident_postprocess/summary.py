"""A one-page text summary of any trident output file: provenance (deck, versions,
ranks, devices, start and end), the timings of each phase, what each study computed,
and the datasets in the file. A stopped run says so: the unfinished kNN rows and ridge λ
are left out of the figures, and unconverged λ are marked."""
import argparse

import h5py
import numpy as np

from trident_postprocess import trident_h5

PROVENANCE = ("trident_version", "status", "mpi_ranks", "mpi_library", "kokkos_version",
              "kokkos_backend", "hdf5_version", "deck_file", "start_time", "end_time")


def numeric_timings(f):
    """/timings as {name: seconds}, and the names in the order trident made them when the
    file kept that order (else None)."""
    if "timings" not in f:
        return {}, None
    group = f["timings"]
    t = {k: float(v) for k, v in group.attrs.items()
         if np.asarray(v).dtype.kind in "fiu" and np.asarray(v).size == 1}
    plist = group.id.get_create_plist()
    tracked = plist.get_attr_creation_order() & h5py.h5p.CRT_ORDER_TRACKED
    return t, ([k for k in group.attrs if k in t] if tracked else None)


def provenance(f, out):
    attrs = {k: trident_h5.text(v) for k, v in f.attrs.items()}
    out.append("provenance")
    for key in PROVENANCE:
        if key in attrs:
            out.append(f"  {key:<20} {attrs[key]}")
    t = numeric_timings(f)[0]
    seconds, source = trident_h5.wall_seconds(attrs, t)
    if seconds is not None:
        out.append(f"  {'wall time':<20} {seconds:.3f} s ({source})")
    steps = sum(v for k, v in t.items() if "." not in k)
    if t and source.startswith("end_time"):  # the stamps leave out the startup before them
        out.append(f"  {'whole run':<20} {steps:.3f} s (the steps in /timings, from process start)")
    # (Conventions names the file's format for netCDF readers, nothing about the run)
    others = sorted(set(attrs) - set(PROVENANCE) - {"deck", "devices", "Conventions"})
    for key in others:
        lines = attrs[key].strip().splitlines() or [""]
        more = f" … ({len(lines)} lines)" if len(lines) > 1 else ""
        out.append(f"  {key:<20} {lines[0][:60]}{more}")
    if "devices" in attrs:
        out.append("  devices")
        out.extend("    " + line for line in attrs["devices"].strip().splitlines()[:8])
    if "deck" in attrs:
        lines = attrs["deck"].rstrip().splitlines()
        out.append(f"deck ({len(lines)} lines)")
        out.extend("  | " + line for line in lines[:25])
        if len(lines) > 25:
            out.append(f"  | ... {len(lines) - 25} more lines")


def timings(f, out):
    t, order = numeric_timings(f)
    if not t:
        return
    out.append("timings (seconds, slowest rank; run order, each part indented under its step)")
    for key, depth in trident_h5.timer_rows(t, order):
        out.append(f"  {'  ' * depth + key:<30} {t[key]:10.3f}")


def stats(values):
    v = np.asarray(values, dtype=np.float64)
    return f"min {v.min():.4g}, mean {v.mean():.4g}, max {v.max():.4g}"


def diffusion(f, out):
    g = f["diffusion"]
    field = g["field"]
    frames, ny, nx = field.shape
    steps = g["step"][:]
    attrs = {k: trident_h5.text(v) for k, v in g.attrs.items()}
    out.append(f"diffusion: {nx} x {ny} cells, {frames} frames (steps {steps[0]} to {steps[-1]}"
               + (f" of {attrs['steps']}" if "steps" in attrs else "") + ")"
               + (f", c = {attrs['c']}" if "c" in attrs else "")
               + (f", {attrs['precision']}" if "precision" in attrs else ""))
    stopped = trident_h5.stop_note(f, "diffusion")
    if stopped:
        out.append(f"  {stopped}: the last frame is the field at that step")
    unit = trident_h5.units(field)
    unit = f" ({unit})" if unit else ""
    out.append(f"  start field{unit}: {stats(field[0])}, sum {np.sum(field[0], dtype=np.float64):.6g}")
    out.append(f"  final field{unit}: {stats(field[-1])}, sum {np.sum(field[-1], dtype=np.float64):.6g}")
    if "laplacian" in g:
        out.append(f"  final Laplacian{unit}: {stats(g['laplacian'][-1])}")


def knn(f, out):
    g = f["knn"]
    d = g["distances"]
    n, k = d.shape
    refs = trident_h5.text(g.attrs["reference_count"]) if "reference_count" in g.attrs else "?"
    out.append(f"knn: {n} observations, {refs} references, k = {k}")
    done = trident_h5.knn_done(g)
    stopped = trident_h5.stop_note(f, "knn")
    if stopped:
        out.append(f"  {stopped}: the {np.count_nonzero(done)} finished rows only")
    rows = np.flatnonzero(done)
    if rows.size == 0:
        out.append("  no finished rows")
        return
    dist = np.asarray(d[...], dtype=np.float64)[rows] / 1000.0  # metres (Earth's radius) to km
    nearest = dist[:, 0]
    out.append(f"  nearest distance (km): {stats(nearest)}, median {np.median(nearest):.4g}")
    if k > 1:
        out.append(f"  k-th distance (km):    {stats(dist[:, k - 1])}")
    zeros = int(np.count_nonzero(nearest == 0))
    if zeros:
        out.append(f"  {zeros} rows at distance 0: the observation is on a reference "
                   "(itself, in a set searched against itself)")


def ridge(f, out):
    g = f["ridge"]
    p = trident_h5.ridge_points(g)
    lam = p["lambda"]
    out.append(f"ridge: {len(lam)} λ from {lam.min():.4g} to {lam.max():.4g}"
               + (f", matrix {trident_h5.text(g.attrs['rows'])} x {trident_h5.text(g.attrs['columns'])}"
                  if "rows" in g.attrs and "columns" in g.attrs else ""))
    stopped = trident_h5.stop_note(f, "ridge")
    unfinished = int(np.count_nonzero(~p["finished"]))
    if stopped or unfinished:
        out.append(f"  partial: {stopped or 'unfinished λ'}"
                   + (f"; {unfinished} unfinished λ left out" if unfinished else ""))
    if "selection" in g:  # every rule's choice, the chosen one marked, or why none chose
        chosen = trident_h5.text(g["selection"].attrs.get("rule", ""))
        for rule in ("corner", "discrepancy", "quasi_optimality", "gcv"):
            if rule not in g["selection"]:
                continue
            a = g["selection"][rule].attrs
            index = int(a.get("index", -1))
            what = (f"λ = {float(a.get('lambda', np.nan)):.6g} (index {index})" if index >= 0
                    else f"none ({trident_h5.text(a.get('why_none', ''))})")
            out.append(f"  {rule}: {what}" + ("  <- ridge.select" if rule == chosen else ""))
    elif "corner" in g:
        c = g["corner"].attrs
        index = int(c.get("index", -1))
        if index < 0:
            out.append("  L-curve corner: none (fewer than 3 λ)")
        else:
            out.append(f"  L-curve corner: λ = {float(c.get('lambda', np.nan)):.6g} (index {index})"
                       + (" of the finished λ only (the run was stopped)" if stopped or unfinished else ""))
    its = np.asarray(g["iterations"][:])[p["order"]] if "iterations" in g else None
    out.append(f"  {'λ':>12} {'‖b-Ax‖':>12} {'‖x‖':>12}" + (" iterations" if its is not None else "")
               + "  stop reason")
    for i in np.flatnonzero(p["finished"]):
        note = {3: "  3 (cond(A) over conlim: not converged)",
                7: "  7 (max_iterations: not converged)"}.get(int(p["stop"][i]), f"  {p['stop'][i]}")
        out.append(f"  {lam[i]:12.4g} {p['residual'][i]:12.5g} {p['solution'][i]:12.5g}"
                   + (f" {its[i]:10d}" if its is not None else "") + note)


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


def summarize(f, path):
    """The page as a list of lines."""
    out = [f"trident output {path}", ""]
    provenance(f, out)
    out.append("")
    timings(f, out)
    for name, describe in (("diffusion", diffusion), ("knn", knn), ("ridge", ridge)):
        if name in f:
            out.append("")
            describe(f, out)
    out.append("")
    datasets(f, out)
    return out


def run(a):
    """Prints (and with -o writes) the summary of the output the arguments name."""
    f = trident_h5.open_output(a.output)
    page = "\n".join(summarize(f, a.output)) + "\n"
    print(page, end="")
    if a.text:
        with open(a.text, "w") as t:
            t.write(page)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("output", help="trident HDF5 output")
    p.add_argument("-o", "--text", help="also write the summary to this file")
    trident_h5.run_command(p, run, argv)


if __name__ == "__main__":
    main()
