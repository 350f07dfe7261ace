#!/usr/bin/env python3
"""Point sets shaped like users' data for bench/knn/clustered.sh, as HDF5 files.

    make_clustered_points.py FOLDER [OBSERVATIONS [REFERENCES]]   (default 2^24 x 2^14)

Writes FOLDER/SET_obs.h5 and FOLDER/SET_refs.h5, each holding /points, an N x 2 float64
array of (latitude, longitude) in degrees, for the sets

  uniform      both uniform on the sphere
  square_10km  both uniform in one 10 km square (Paris), likewise 1km, 100m, 1m
  mixed        observations in a 1 km square; references half over the globe, half in it
  interleaved  observations alternate between a 1 km square and the globe; references
               half in the square, half over the globe
  pole         both in a 1 km square at the north pole
  dateline     both in a 1 km square centred on the dateline at the equator
  two_cities   both split between 1 km squares in Paris and Sydney, alternating

Squares are built on the tangent plane at their centre and projected back to the sphere,
so they work at the poles and across the dateline. Seeds are fixed.
"""
import os
import sys

import h5py
import numpy as np

R = 6371008.8


def uniform(n, rng):
    z = rng.uniform(-1.0, 1.0, n)
    return np.column_stack([np.degrees(np.arcsin(z)), rng.uniform(-180.0, 180.0, n)])


def square(n, lat, lon, side_m, rng):
    la, lo = np.radians(lat), np.radians(lon)
    c = np.array([np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)])
    e = np.array([-np.sin(lo), np.cos(lo), 0.0])
    nv = np.cross(c, e)
    a = rng.uniform(-0.5, 0.5, (n, 1)) * side_m / R
    b = rng.uniform(-0.5, 0.5, (n, 1)) * side_m / R
    v = c + a * e + b * nv
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return np.column_stack([np.degrees(np.arcsin(np.clip(v[:, 2], -1, 1))), np.degrees(np.arctan2(v[:, 1], v[:, 0]))])


def alternate(a, b):
    out = np.empty((len(a) + len(b), 2))
    out[0::2], out[1::2] = a, b
    return out


PARIS, SYDNEY = (48.8566, 2.3522), (-33.8688, 151.2093)


def sets(n_obs, n_ref):
    h_obs, h_ref = n_obs // 2, n_ref // 2
    yield "uniform", lambda r: uniform(n_obs, r), lambda r: uniform(n_ref, r)
    for name, side in (("square_10km", 1e4), ("square_1km", 1e3), ("square_100m", 100.0), ("square_1m", 1.0)):
        yield name, (lambda s: lambda r: square(n_obs, *PARIS, s, r))(side), \
            (lambda s: lambda r: square(n_ref, *PARIS, s, r))(side)
    yield "mixed", lambda r: square(n_obs, *PARIS, 1e3, r), \
        lambda r: np.vstack([uniform(h_ref, r), square(n_ref - h_ref, *PARIS, 1e3, r)])
    yield "interleaved", lambda r: alternate(square(n_obs - h_obs, *PARIS, 1e3, r), uniform(h_obs, r)), \
        lambda r: np.vstack([square(h_ref, *PARIS, 1e3, r), uniform(n_ref - h_ref, r)])
    yield "pole", lambda r: square(n_obs, 90.0, 0.0, 1e3, r), lambda r: square(n_ref, 90.0, 0.0, 1e3, r)
    yield "dateline", lambda r: square(n_obs, 0.0, 180.0, 1e3, r), lambda r: square(n_ref, 0.0, 180.0, 1e3, r)
    yield "two_cities", lambda r: alternate(square(n_obs - h_obs, *PARIS, 1e3, r), square(h_obs, *SYDNEY, 1e3, r)), \
        lambda r: alternate(square(n_ref - h_ref, *PARIS, 1e3, r), square(h_ref, *SYDNEY, 1e3, r))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    folder = sys.argv[1]
    n_obs = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 24
    n_ref = int(sys.argv[3]) if len(sys.argv) > 3 else 1 << 14
    only = os.environ.get("KNN_CLUSTERED_SETS", "").split()
    os.makedirs(folder, exist_ok=True)
    for seed, (name, make_obs, make_ref) in enumerate(sets(n_obs, n_ref)):
        if only and name not in only:
            continue
        rng = np.random.default_rng(1000 + seed)
        for kind, make in (("obs", make_obs), ("refs", make_ref)):
            points = np.ascontiguousarray(make(rng), dtype=np.float64)
            points[:, 1] = np.clip(points[:, 1], -180.0, 180.0)
            with h5py.File(os.path.join(folder, f"{name}_{kind}.h5"), "w") as f:
                f.create_dataset("points", data=points)
        print(name)


if __name__ == "__main__":
    main()
