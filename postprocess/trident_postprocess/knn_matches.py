"""Cross-matches of a knn run (knn.match: best or mutual): a map with a line between each
observation and its matched reference (mutual matches and the others in two colours,
unmatched observations as grey crosses), and the histogram of the match distances. Distances
are shown in km (knn.radius is in metres); --unit m shows metres.

The references' positions are not in the output: they are read from the point file the
output's `references` attribute names (a CSV or HDF5 file, looked for as written and next to
the output), or from --references FILE (a CSV with the same columns, or an HDF5 file with the
same dataset). A matched pair across the dateline is drawn on both edges. --region LAT0 LAT1
LON0 LON1 shows a part of the map (lines of a few km are too short to see on the whole
world). A stopped run's unfinished rows are left out, and the title says so."""
import argparse
import csv
import os
import re

import numpy as np

from trident_postprocess import trident_h5


def source_parts(text):
    """("csv", "file", {"latitude": ..., ...}) from a point set's description."""
    m = re.match(r"^(\w+)\((.*)\)$", text)
    if m is None:
        raise trident_h5.OutputError(f"cannot read the point set description '{text}'")
    kind, fields = m.group(1), m.group(2).split(", ")
    keys = dict(f.split("=", 1) for f in fields[1:] if "=" in f)
    return kind, fields[0], keys


def reference_points(g, path, override=None):
    """Every reference's (latitude, longitude), from the file the output names (or `override`)."""
    described = trident_h5.text(g.attrs["references"])
    if described == trident_h5.text(g.attrs["observations"]).split(", max_distance=")[0].rstrip(")") + ")" \
            or described == trident_h5.text(g.attrs["observations"]):
        return g["observations"][...]  # a set against itself
    kind, name, keys = source_parts(described)
    if kind == "generate":
        raise trident_h5.OutputError(f"{path}: the references are generated ({described}); "
                                     "give their positions with --references FILE")
    candidates = [override] if override else [name, os.path.join(os.path.dirname(os.path.abspath(path)), os.path.basename(name))]
    file = next((c for c in candidates if c and os.path.exists(c)), None)
    if file is None:
        raise trident_h5.OutputError(f"{path}: the references' file {name} is not there; give it with --references FILE")
    if kind == "hdf5":
        import h5py
        with h5py.File(file, "r") as f:
            points = f[keys["dataset"]][...]
    else:
        with open(file, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        points = np.array([[float(r[keys["latitude"]]), float(r[keys["longitude"]])] for r in rows])
    if len(points) != int(g.attrs["reference_count"]):
        raise trident_h5.OutputError(f"{path}: {file} holds {len(points)} points, the run had "
                                     f"{int(g.attrs['reference_count'])} references: another file?")
    return points


def segments(a, b):
    """Line segments from points a to points b ((lat, lon) rows) in (lon, lat); a pair more
    than 180 degrees of longitude apart is drawn twice, leaving each edge of the map."""
    out = []
    for (la0, lo0), (la1, lo1) in zip(a, b):
        if abs(lo1 - lo0) <= 180:
            out.append([(lo0, la0), (lo1, la1)])
        else:
            shift = 360.0 if lo1 < lo0 else -360.0
            out.append([(lo0, la0), (lo1 + shift, la1)])
            out.append([(lo0 - shift, la0), (lo1, la1)])
    return out


def draw(f, path, references=None, unit="km", bins=40, region=None):
    """(figure, (map axes, histogram axes), info: 'pairs' (matched rows), 'mutual' (their
    flags, or None for best), 'distance' (shown, in `unit`), 'stopped')."""
    g = f["knn"]
    if "match" not in g.attrs:
        raise trident_h5.OutputError(f"{path}: not a knn.match output (no /knn attribute 'match')")
    form = trident_h5.text(g.attrs["match"])
    obs = g["observations"][...]
    refs = reference_points(g, path, references)
    index = g["indices"][:, 0].astype(np.int64)
    done = trident_h5.knn_done(g)
    rows = np.flatnonzero(done & (index >= 0))
    unmatched = np.flatnonzero(done & (index < 0))
    mutual = g["mutual"][...].astype(bool)[rows] if form == "mutual" else None
    scale = 1000.0 if unit == "km" else 1.0
    distance = g["distances"][:, 0][rows] / scale
    stopped = trident_h5.stop_note(f, "knn")

    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection
    fig, (ax_map, ax_hist) = plt.subplots(1, 2, figsize=(13, 5), gridspec_kw={"width_ratios": [1.6, 1]})
    groups = [("mutual", "tab:blue", mutual), ("not mutual", "tab:orange", ~mutual)] if mutual is not None \
        else [("matched", "tab:blue", np.ones(rows.size, dtype=bool))]
    for label, colour, which in groups:
        lines = segments(obs[rows[which]], refs[index[rows[which]]])
        ax_map.add_collection(LineCollection(lines, colors=colour, linewidths=0.8, label=f"{label} ({int(which.sum())})"))
    ax_map.scatter(refs[:, 1], refs[:, 0], s=3, c="black", linewidths=0, label=f"references ({len(refs)})")
    ax_map.scatter(obs[rows, 1], obs[rows, 0], s=3, c="tab:green", linewidths=0, label="matched observations")
    ax_map.scatter(obs[unmatched, 1], obs[unmatched, 0], s=8, c="grey", marker="x", linewidths=0.6,
                   label=f"unmatched ({unmatched.size})")
    lat0, lat1, lon0, lon1 = region if region else (-90, 90, -180, 180)
    ax_map.set_xlim(lon0, lon1)
    ax_map.set_ylim(lat0, lat1)
    ax_map.set_aspect("equal" if not region else 1 / max(np.cos(np.radians(0.5 * (lat0 + lat1))), 1e-3))
    ax_map.set_xlabel("longitude (°)")
    ax_map.set_ylabel("latitude (°)")
    ax_map.legend(loc="lower left", fontsize=7, markerscale=2)
    limit = f"{float(g.attrs['max_distance']) / scale:g} {unit}" if "max_distance" in g.attrs \
        else f"each observation's {trident_h5.text(g.attrs['max_distance_column'])}"
    counts = (f"{int(g.attrs['matched'])} matched, {int(g.attrs['unmatched'])} unmatched, "
              f"{int(g.attrs['ambiguous'])} ambiguous")
    if mutual is not None:
        counts += f", {int(g.attrs['mutual_matches'])} mutual"
    notes = [f"match: {form} within {limit}", counts] + ([f"{stopped}: unfinished rows left out"] if stopped else [])
    ax_map.set_title("\n".join(notes), fontsize=10)
    hi = float(distance.max()) if distance.size else 1.0
    parts = [(d, label, colour) for label, colour, which in groups for d in [distance[which]]]
    ax_hist.hist([p[0] for p in parts], bins=bins, range=(0, hi if hi > 0 else 1.0), stacked=True,
                 color=[p[2] for p in parts], label=[p[1] for p in parts])
    ax_hist.set_xlabel(f"great-circle distance to the match ({unit})")
    ax_hist.set_ylabel("observations")
    ax_hist.set_title(f"{rows.size} match distances")
    ax_hist.legend()
    fig.tight_layout()
    return fig, (ax_map, ax_hist), {"pairs": rows, "mutual": mutual, "distance": distance, "stopped": stopped,
                                    "references": refs}


def run(a):
    """Draws the map and histogram of the output the arguments name."""
    f = trident_h5.open_output(a.output, "knn")
    trident_h5.use_agg()
    fig, _, _ = draw(f, a.output, a.references, a.unit, a.bins, a.region)
    png = a.png or trident_h5.default_png(a.output, "matches")
    fig.savefig(png, dpi=a.dpi)
    print(png)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("output", help="trident HDF5 output of a knn.match run")
    p.add_argument("-o", "--png", help="figure to write (default: OUTPUT.matches.png)")
    p.add_argument("--references", help="the references' point file, where the output's is not found")
    p.add_argument("--region", type=float, nargs=4, metavar=("LAT0", "LAT1", "LON0", "LON1"),
                   help="show only this part of the map (degrees)")
    p.add_argument("--unit", choices=("km", "m"), default="km", help="distance unit (default km)")
    p.add_argument("--bins", type=int, default=40, help="histogram bins (default 40)")
    p.add_argument("--dpi", type=int, default=100, help="resolution of the PNG (default 100)")
    trident_h5.run_command(p, run, argv)


if __name__ == "__main__":
    main()
