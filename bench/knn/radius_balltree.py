#!/usr/bin/env python3
"""scikit-learn's BallTree.query_radius (haversine) on the points radius_balltree.sh had
trident search with k: all, on the same number of CPU threads, its rows checked against
trident's.

    radius_balltree.py POINTS.h5 OUTPUT.h5 DISTANCE_M THREADS

POINTS.h5 holds /observations and /references, (latitude, longitude) pairs in degrees;
OUTPUT.h5 is trident's output (/knn/offsets, /knn/indices). Builds the tree and queries it,
the observations split into THREADS contiguous slices queried at once (the query leaves the
GIL). Prints "BUILD_SECONDS QUERY_SECONDS THREADS NEIGHBOURS CHECK"; CHECK is "same" when
every row holds the same references as trident's (as sets: the two order ties apart
differently), else "N_rows_differ".
"""
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import h5py
import numpy as np
from sklearn.neighbors import BallTree

EARTH = 6371008.8  # metres, trident's default knn.radius


def main():
    points, output, distance, threads = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
    with h5py.File(points, "r") as f:
        obs = np.radians(f["observations"][...])
        refs = np.radians(f["references"][...])
    n = len(obs)
    bounds = np.linspace(0, n, threads + 1).astype(np.int64)
    start = time.perf_counter()
    tree = BallTree(refs, metric="haversine")
    built = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        parts = list(pool.map(lambda i: tree.query_radius(obs[bounds[i]:bounds[i + 1]], r=distance / EARTH),
                              range(threads)))
    done = time.perf_counter()
    rows = [row for part in parts for row in part]
    with h5py.File(output, "r") as f:
        offsets = f["knn/offsets"][...]
        indices = f["knn/indices"][...]
    # references at the limit itself may fall either side of two haversine formulas' last
    # bits: such rows count as differing, which the check reports rather than hides
    differ = sum(1 for i in range(n) if set(rows[i].tolist()) != set(indices[offsets[i]:offsets[i + 1]].tolist()))
    found = sum(len(r) for r in rows)
    print(f"{built - start:.4f} {done - built:.4f} {threads} {found} {'same' if differ == 0 else str(differ) + '_rows_differ'}")


if __name__ == "__main__":
    main()
