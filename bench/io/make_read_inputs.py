#!/usr/bin/python3
"""Writes the inputs of bench/io/read_rates.sh into FOLDER (skipping files already there):
points.h5   /points, 2^22 x 2 float64 (latitude, longitude), uniform on the sphere
points.csv  the same points as CSV, header "latitude,longitude", 17 significant digits
matrix.mtx  Matrix Market, real general, 15000 x 15000 with 10^7 nonzeros (about 320 MB),
            rows ascending and columns ascending within a row (as scipy writes a CSR
            matrix), values uniform in [0, 1) with 17 significant digits.
matrix.h5   the same matrix as a CSR group /A (row_ptr, col_ind as int32 as scipy
            stores them, values float64, attribute shape), about 120 MB.
field.h5    /u, a 4096 x 4096 float64 start field for the diffusion study (128 MB).
Run with /usr/bin/python3 (Debian's numpy and h5py)."""
import os
import sys

import h5py
import numpy as np

folder = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(folder, exist_ok=True)
rng = np.random.default_rng(1)

rows = 1 << 22
z = rng.uniform(-1.0, 1.0, rows)
points = np.column_stack([np.degrees(np.arcsin(z)), rng.uniform(-180.0, 180.0, rows)])
if not os.path.exists(os.path.join(folder, "points.h5")):
    with h5py.File(os.path.join(folder, "points.h5"), "w") as f:
        f["points"] = points
if not os.path.exists(os.path.join(folder, "points.csv")):
    np.savetxt(os.path.join(folder, "points.csv"), points, fmt="%.17g", delimiter=",",
               header="latitude,longitude", comments="")

n, nonzeros = 15000, 10_000_000
if not all(os.path.exists(os.path.join(folder, name)) for name in ("matrix.mtx", "matrix.h5")):
    # Distinct (row, column) pairs, sorted: draw flat indices without replacement.
    flat = np.sort(rng.choice(n * n, size=nonzeros, replace=False))
    i, j = flat // n + 1, flat % n + 1
    values = rng.random(nonzeros)
    with h5py.File(os.path.join(folder, "matrix.h5"), "w") as f:
        g = f.create_group("A")
        g.attrs["shape"] = np.array([n, n], dtype=np.int64)
        g["row_ptr"] = np.concatenate([[0], np.cumsum(np.bincount(i - 1, minlength=n))]).astype(np.int32)
        g["col_ind"] = (j - 1).astype(np.int32)
        g["values"] = values
    with open(os.path.join(folder, "matrix.mtx"), "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n")
        f.write(f"{n} {n} {nonzeros}\n")
        step = 1_000_000
        for start in range(0, nonzeros, step):
            part = slice(start, start + step)
            np.savetxt(f, np.column_stack([i[part], j[part], values[part]]),
                       fmt=["%d", "%d", "%.17g"], delimiter=" ")

if not os.path.exists(os.path.join(folder, "field.h5")):
    with h5py.File(os.path.join(folder, "field.h5"), "w") as f:
        f["u"] = rng.random((4096, 4096))
