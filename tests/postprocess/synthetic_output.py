#!/usr/bin/python3
"""Writes a stand-in trident output for a study whose small deck is not in inputs/ yet:
the layout trident writes (see README.cluster.md), made with h5py. The post-processing
test uses real trident outputs whenever the deck exists.

usage: synthetic_output.py knn|ridge FILE
"""
import sys

import h5py
import numpy as np


def provenance(f, study):
    f.attrs["deck"] = f"# synthetic {study} output made by synthetic_output.py\n"
    f.attrs["trident_version"] = "synthetic"
    f.attrs["mpi_ranks"] = np.int64(1)
    f.attrs["kokkos_version"] = "none"
    f.attrs["kokkos_backend"] = "none"
    f.attrs["devices"] = "rank 0: none"
    f.attrs["hdf5_version"] = h5py.version.hdf5_version
    f.attrs["mpi_library"] = "none"
    f.attrs["start_time"] = "2026-01-01T00:00:00Z"
    f.attrs["end_time"] = "2026-01-01T00:00:01Z"
    t = f.create_group("timings")
    t.attrs[study] = 1.0


def knn(f, rng):
    n, m, k, radius = 2000, 500, 4, 6371008.8
    def sphere(count):
        v = rng.normal(size=(count, 3))
        v /= np.linalg.norm(v, axis=1)[:, None]
        return v
    obs, ref = sphere(n), sphere(m)
    angle = np.arccos(np.clip(obs @ ref.T, -1, 1))
    idx = np.argsort(angle, axis=1)[:, :k]
    lat = np.degrees(np.arcsin(obs[:, 2]))
    lon = np.degrees(np.arctan2(obs[:, 1], obs[:, 0]))
    g = f.create_group("knn")
    g["indices"] = idx.astype(np.int32)
    g["distances"] = radius * np.take_along_axis(angle, idx, axis=1)
    g["observations"] = np.stack([lat, lon], axis=1)
    g.attrs["k"] = np.int64(k)
    g.attrs["radius"] = radius


def ridge(f, rng):
    a = rng.random((80, 60)) * (rng.random((80, 60)) < 0.2)
    b = rng.normal(3, 1, 80)
    lam = np.geomspace(0.01, 100, 10)
    res, sol = [], []
    for l in lam:
        x = np.linalg.solve(a.T @ a + l * l * np.eye(60), a.T @ b)
        res.append(np.linalg.norm(b - a @ x))
        sol.append(np.linalg.norm(x))
    g = f.create_group("ridge")
    g["lambda"], g["residual_norm"], g["solution_norm"] = lam, np.array(res), np.array(sol)
    g["iterations"] = np.full(10, 50, dtype=np.int64)
    g["stop_reason"] = np.ones(10, dtype=np.int32)
    c = g.create_group("corner")
    c.attrs["index"] = np.int64(4)
    c.attrs["lambda"] = lam[4]


def main():
    study, path = sys.argv[1:3]
    rng = np.random.default_rng(1)
    with h5py.File(path, "w") as f:
        provenance(f, study)
        {"knn": knn, "ridge": ridge}[study](f, rng)


if __name__ == "__main__":
    main()
