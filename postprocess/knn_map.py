#!/usr/bin/python3
"""Nearest-neighbour distances of a knn run: a map of the observations coloured by the
great-circle distance to their nearest reference point, and a histogram of those distances.
Distances are shown in km (knn.radius is in metres); --unit m shows metres."""
import argparse

import numpy as np

import trident_h5


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("output", help="trident HDF5 output (with /knn)")
    p.add_argument("-o", "--png", help="figure to write (default: OUTPUT.knn.png)")
    p.add_argument("--neighbour", type=int, default=1,
                   help="which neighbour's distance to show, 1 = the nearest (default 1)")
    p.add_argument("--unit", choices=("km", "m"), default="km", help="distance unit (default km)")
    p.add_argument("--km", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for old scripts
    p.add_argument("--bins", type=int, default=50, help="histogram bins (default 50)")
    p.add_argument("--max-points", type=int, default=200000,
                   help="plot at most this many observations on the map (default 200000)")
    p.add_argument("--dpi", type=int, default=100, help="resolution of the PNG (default 100)")
    a = p.parse_args()

    f = trident_h5.open_output(a.output, "knn")
    g = f["knn"]
    n, k = g["distances"].shape
    if not 1 <= a.neighbour <= k:
        raise SystemExit(f"{a.output}: --neighbour {a.neighbour} out of range, the file has k = {k}")
    unit = a.unit
    distance = g["distances"][:, a.neighbour - 1] / (1000.0 if unit == "km" else 1.0)
    latlon = g["observations"][...]
    show = np.arange(n)
    if n > a.max_points:  # an even subsample keeps the map readable and the file small
        show = np.linspace(0, n - 1, a.max_points).astype(np.int64)

    trident_h5.use_agg()
    import matplotlib.pyplot as plt
    fig, (ax_map, ax_hist) = plt.subplots(1, 2, figsize=(13, 5),
                                          gridspec_kw={"width_ratios": [1.6, 1]})
    sc = ax_map.scatter(latlon[show, 1], latlon[show, 0], c=distance[show], s=4,
                        cmap="viridis", linewidths=0)
    ax_map.set_xlim(-180, 180)
    ax_map.set_ylim(-90, 90)
    ax_map.set_aspect("equal")
    ax_map.set_xlabel("longitude (°)")
    ax_map.set_ylabel("latitude (°)")
    which = "nearest" if a.neighbour == 1 else f"neighbour {a.neighbour}"
    ax_map.set_title(f"{n} observations, distance to the {which} reference")
    fig.colorbar(sc, ax=ax_map, shrink=0.8, label=f"great-circle distance to the {which} reference ({unit})")
    ax_hist.hist(distance, bins=a.bins, color="tab:blue")
    ax_hist.axvline(np.median(distance), color="tab:red", lw=1.5,
                    label=f"median {np.median(distance):.4g} {unit}")
    ax_hist.set_xlabel(f"great-circle distance ({unit})")
    ax_hist.set_ylabel("observations")
    ax_hist.set_title(f"{which} distances, k = {k}")
    ax_hist.legend()
    fig.tight_layout()
    png = a.png or trident_h5.default_png(a.output, "knn")
    fig.savefig(png, dpi=a.dpi)
    print(png)


if __name__ == "__main__":
    main()
