"""Nearest-neighbour distances of a knn run: a map of the observations coloured by the
great-circle distance to their nearest reference point, and a histogram of those distances.
Distances are shown in km (knn.radius is in metres); --unit m shows metres.

A distance of 0 (an observation on a reference: itself, when a set is searched against
itself) is skipped: each observation's nearest reference at a distance above 0 is shown
(--keep-self keeps the zeros). Distances spanning more than two decades are drawn on a log
scale. A stopped run's unfinished rows are left out, and the title says so."""
import argparse

import numpy as np

from trident_postprocess import trident_h5


def draw(f, path, neighbour=1, unit="km", keep_self=False, bins=50, max_points=200000):
    """The figure of the output `f` (named `path` in messages): (figure, (map axes,
    histogram axes), what was drawn: 'distance' (the values shown), 'log', 'skipped'
    (rows whose zero distance was skipped), 'stopped' (the stop note or None))."""
    g = f["knn"]
    n, k = g["distances"].shape
    if not 1 <= neighbour <= k:
        raise trident_h5.OutputError(f"{path}: --neighbour {neighbour} out of range, the file has k = {k}")
    distance, rows, skipped = trident_h5.knn_distances(g, neighbour, keep_self)
    distance = distance / (1000.0 if unit == "km" else 1.0)
    stopped = trident_h5.stop_note(f, "knn")
    if distance.size == 0:
        why = (f"{stopped}: no finished rows" if stopped and not trident_h5.knn_done(g).any()
               else f"every finished row's distances up to neighbour {neighbour} are 0 (each observation "
                    "is on a reference: itself?); --keep-self shows them")
        raise trident_h5.OutputError(f"{path}: nothing to draw: {why}")
    latlon = g["observations"][...][rows]
    show = np.arange(distance.size)
    if distance.size > max_points:  # an even subsample keeps the map readable and the file small
        show = np.linspace(0, distance.size - 1, max_points).astype(np.int64)
    log = trident_h5.use_log_scale(distance)
    lo, hi = trident_h5.distance_limits(distance, log)

    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm, Normalize
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("lightgrey")  # a kept zero on a log scale
    fig, (ax_map, ax_hist) = plt.subplots(1, 2, figsize=(13, 5),
                                          gridspec_kw={"width_ratios": [1.6, 1]})
    norm = LogNorm(lo, hi) if log else Normalize(lo, hi)
    sc = ax_map.scatter(latlon[show, 1], latlon[show, 0], c=distance[show], s=4, cmap=cmap,
                        norm=norm, linewidths=0, plotnonfinite=True)
    ax_map.set_xlim(-180, 180)
    ax_map.set_ylim(-90, 90)
    ax_map.set_aspect("equal")
    ax_map.set_xlabel("longitude (°)")
    ax_map.set_ylabel("latitude (°)")
    which = "nearest" if neighbour == 1 else f"neighbour {neighbour}"
    notes = []
    if stopped:
        notes.append(f"{stopped}: unfinished rows left out")
    if skipped:
        notes.append(f"{skipped} zero distances (self) skipped; --keep-self keeps them")
    zeros = int(np.count_nonzero(distance == 0))
    if zeros == distance.size:
        notes.append("every distance is 0")
    if log:
        notes.append(f"log scale: {trident_h5.decades(distance):.1f} decades"
                     + (f"; {zeros} zero distances not on it (grey)" if zeros else ""))
    shown = f"{distance.size} of {n}" if distance.size < n else f"{n}"
    ax_map.set_title(f"{shown} observations, distance to the {which} reference"
                     + ("" if not notes else "\n" + "\n".join(notes)), fontsize=10 if notes else None)
    fig.colorbar(sc, ax=ax_map, shrink=0.8, label=f"great-circle distance to the {which} reference ({unit})")
    if log:
        edges = np.geomspace(lo, hi, bins + 1)
        ax_hist.hist(distance[distance > 0], bins=edges, color="tab:blue")
        ax_hist.set_xscale("log")
    else:
        ax_hist.hist(distance, bins=bins, range=(lo, hi), color="tab:blue")
        ax_hist.set_xlim(lo, hi)
    median = float(np.median(distance))
    if median > 0 or not log:
        ax_hist.axvline(median, color="tab:red", lw=1.5, label=f"median {median:.4g} {unit}")
    else:  # a median of 0 (kept zeros) has no place on a log axis
        ax_hist.plot([], [], color="tab:red", lw=1.5, label=f"median 0 {unit}")
    ax_hist.set_xlabel(f"great-circle distance ({unit})")
    ax_hist.set_ylabel("observations")
    ax_hist.set_title(f"{which} distances, k = {k}" + (" (self skipped)" if skipped else ""))
    ax_hist.legend()
    fig.tight_layout()
    return fig, (ax_map, ax_hist), {"distance": distance, "log": log, "skipped": skipped,
                                    "stopped": stopped, "limits": (lo, hi)}


def run(a):
    """Draws the map and histogram of the output the arguments name."""
    f = trident_h5.open_output(a.output, "knn")
    trident_h5.use_agg()
    fig, _, _ = draw(f, a.output, a.neighbour, a.unit, a.keep_self, a.bins, a.max_points)
    png = a.png or trident_h5.default_png(a.output, "knn")
    fig.savefig(png, dpi=a.dpi)
    print(png)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("output", help="trident HDF5 output (with /knn)")
    p.add_argument("-o", "--png", help="figure to write (default: OUTPUT.knn.png)")
    p.add_argument("--neighbour", type=int, default=1,
                   help="which neighbour's distance to show, 1 = the nearest (default 1)")
    p.add_argument("--unit", choices=("km", "m"), default="km", help="distance unit (default km)")
    p.add_argument("--km", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for old scripts
    p.add_argument("--keep-self", action="store_true",
                   help="keep distances of 0 (an observation on a reference, e.g. itself) "
                        "instead of showing the nearest reference above 0")
    p.add_argument("--bins", type=int, default=50, help="histogram bins (default 50)")
    p.add_argument("--max-points", type=int, default=200000,
                   help="plot at most this many observations on the map (default 200000)")
    p.add_argument("--dpi", type=int, default=100, help="resolution of the PNG (default 100)")
    trident_h5.run_command(p, run, argv)


if __name__ == "__main__":
    main()
