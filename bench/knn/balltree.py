#!/usr/bin/env python3
"""scikit-learn's BallTree (haversine) on the points bench/knn/refs.sh had trident search,
on the same number of CPU threads, and its answer checked against trident's rows.

    knn_balltree.py PREFIX LOG2 K THREADS

Reads PREFIX.obs and PREFIX.LOG2.refs (float64 latitude, longitude pairs in degrees) and
PREFIX.LOG2.K.rows (trident_knn_refs: int32 indices, then float64 distances in metres, each
observations x k). Builds the tree and queries it, the observations split into THREADS
contiguous slices queried at once (BallTree.query leaves the GIL, as scikit-learn's own
NearestNeighbors(n_jobs) does). Prints "WALL_SECONDS CPU_SECONDS THREADS CHECK", the build
included in the seconds; CHECK is "same" (every row's indices equal), "same+N_ties" (N rows
differ only between neighbours at the same distance) or "N_rows_differ".
"""
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from sklearn.neighbors import BallTree

EARTH = 6371008.8  # metres, trident's default knn.radius and the benchmark's


def main():
    prefix, log2, k, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    obs = np.radians(np.fromfile(prefix + ".obs").reshape(-1, 2))
    refs = np.radians(np.fromfile(prefix + "." + log2 + ".refs").reshape(-1, 2))
    n = len(obs)
    bounds = np.linspace(0, n, threads + 1).astype(np.int64)
    wall, cpu = time.perf_counter(), time.process_time()
    tree = BallTree(refs, metric="haversine")
    with ThreadPoolExecutor(threads) as pool:
        parts = list(pool.map(lambda i: tree.query(obs[bounds[i]:bounds[i + 1]], k=k), range(threads)))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    distance = np.vstack([d for d, _ in parts]) * EARTH
    index = np.vstack([i for _, i in parts])

    rows = prefix + "." + log2 + "." + str(k) + ".rows"
    trident_index = np.fromfile(rows, dtype=np.int32, count=n * k).reshape(n, k)
    trident_distance = np.fromfile(rows, dtype=np.float64, offset=4 * n * k).reshape(n, k)
    # Both lists are sorted by distance, and each of trident's neighbours must lie at the
    # distance it reports. The haversine on (lat, lon) and trident's formula on unit vectors
    # round apart by ~1e-9 m (a unit vector's coordinates to 1e-16 of 6.4e6 m), so
    # neighbours closer than that to each other are ties for this check.
    def close(a, b):
        return np.abs(a - b) <= 1e-7 + 1e-9 * b

    chosen = refs[trident_index]
    lat, lon = obs[:, None, 0], obs[:, None, 1]
    h = np.sin((chosen[..., 0] - lat) / 2) ** 2 + \
        np.cos(lat) * np.cos(chosen[..., 0]) * np.sin((chosen[..., 1] - lon) / 2) ** 2
    recomputed = 2 * EARTH * np.arcsin(np.sqrt(np.minimum(h, 1.0)))
    differ = (index != trident_index).any(axis=1)
    wrong = (~close(distance, trident_distance) | ~close(recomputed, trident_distance)).any(axis=1)
    check = "same" if not differ.any() else f"same+{int(differ.sum())}_ties"
    if wrong.any():
        check = f"{int(wrong.sum())}_rows_differ"
    print(f"{wall:.3f} {cpu:.3f} {threads} {check}")


if __name__ == "__main__":
    main()
