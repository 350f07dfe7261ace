#!/usr/bin/python3
"""Writes inputs/data/ridge_deblur.h5, the problem of inputs/ridge_deblur.yaml: a 1-D Gaussian blur
A (400 x 400, each row the kernel exp(-(i - j)^2 / (2 * 4^2)) for |i - j| <= 12, scaled to sum
to 1) as a CSR group /A, a piecewise signal /x_true (a step, a ramp and a smooth bump), and
/b = A x_true + noise of standard deviation exactly the deck's noise_level, 0.005 (normal,
seed 64). The noise is known, as the discrepancy principle needs; /x_true lets a reader see
how far each rule's solution is from the truth. Needs numpy and h5py (Debian's python3)."""
import os

import h5py
import numpy as np

N, HALF, WIDTH, SIGMA = 400, 12, 4.0, 0.005


def problem():
    rows, cols, vals = [], [], []
    for i in range(N):
        j = np.arange(max(0, i - HALF), min(N, i + HALF + 1))
        k = np.exp(-((i - j) ** 2) / (2 * WIDTH ** 2))
        rows += [i] * len(j)
        cols += j.tolist()
        vals += (k / k.sum()).tolist()
    t = np.linspace(0, 1, N)
    x = np.where((t > 0.1) & (t < 0.3), 1.0, 0.0) + np.clip((t - 0.4) * 5, 0, 1) * (t < 0.6) \
        + 0.8 * np.exp(-((t - 0.8) / 0.05) ** 2)
    a = np.zeros((N, N))
    a[rows, cols] = vals
    b = a @ x + SIGMA * np.random.default_rng(64).standard_normal(N)
    return np.array(rows), np.array(cols), np.array(vals), x, b


def main():
    rows, cols, vals, x, b = problem()
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "ridge_deblur.h5")
    with h5py.File(path, "w") as f:
        g = f.create_group("A")
        g.attrs["shape"] = np.array([N, N], dtype=np.int64)
        g["row_ptr"] = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=N))]).astype(np.int64)
        g["col_ind"] = cols.astype(np.int32)
        g["values"] = vals
        f["b"] = b
        f["x_true"] = x
        f["b"].attrs["noise_level"] = SIGMA
    print(path)


if __name__ == "__main__":
    main()
