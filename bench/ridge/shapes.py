#!/usr/bin/env python3
"""Writes the sparse matrices of bench/ridge/shapes.sh as HDF5 CSR groups (/A: row_ptr,
col_ind, values, attribute shape), the layout trident's ridge.matrix.hdf5 reads.

usage: bench/ridge/shapes.py FOLDER LOG2_NONZEROS [SHAPE ...]

Shapes (N = 2^LOG2_NONZEROS nonzeros, about; all but tall have N/128 columns, so that
the per-column work of an iteration, which grows with the columns and the λ, is the same):
  uniform    N/16 x N/128, 16 entries a row (the plain case the others are measured against)
  powerlaw   N/16 x N/128, Pareto row lengths (alpha 1.5), four rows completely dense
  densecols  N/16 x N/128, 16 a row, 8 of them in columns 0..7 (8 dense columns)
  banded     N/16 x N/128, 16 consecutive columns a row, the band following the diagonal
  blockdiag  N/16 x N/128, diagonal blocks of 2048 rows x 256 columns, 16 a row in its block
  tall       N/8 x 1024, 8 a row: a regression design with few features (A^T: 1024 long rows)
  wide       N/1024 x N/128, 1024 a row: few long rows (A^T: short rows)
Columns within a row are ascending and distinct, spread over the row's range with a
random offset per row (no sort: generation is linear). Values uniform in (0, 1], float32.
"""
import os
import sys

import h5py
import numpy as np

SHAPES = ["uniform", "powerlaw", "densecols", "banded", "blockdiag", "tall", "wide"]


def spread_columns(rng, lengths, first, span):
    """Per row i: lengths[i] distinct columns in [first[i], first[i] + span[i]), one in each
    of lengths[i] equal strata, rotated by a random offset within the row's range and put
    back in ascending order (span[i] >= lengths[i]). Returns (row_ptr, col_ind)."""
    lengths = np.asarray(lengths, dtype=np.int64)
    rows = lengths.size
    first = np.broadcast_to(np.asarray(first, dtype=np.int64), (rows,))
    span = np.broadcast_to(np.asarray(span, dtype=np.int64), (rows,))
    row_ptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(lengths, out=row_ptr[1:])
    n = int(row_ptr[-1])
    row = np.repeat(np.arange(rows, dtype=np.int64), lengths)
    k = np.arange(n, dtype=np.int64) - row_ptr[row]
    length, width = lengths[row], span[row]
    strata = (k * width) // length  # stratum k starts here: ascending, distinct
    stride = ((k + 1) * width) // length - strata  # at least 1
    col = strata + (rng.random(n) * stride).astype(np.int64)
    del strata, stride
    # Rotated by a random shift within the row's range: the entries that pass its end wrap
    # to its start. They are the row's last ones; moving them first keeps the row ascending.
    shift = (rng.random(rows) * span).astype(np.int64)
    col += shift[row]
    wrapped = col >= width
    col[wrapped] -= width[wrapped]
    count = np.bincount(row[wrapped], minlength=rows)[row]
    position = np.where(wrapped, k - (length - count), k + count)
    out = np.empty(n, dtype=np.int64)
    out[row_ptr[row] + position] = col + first[row]
    return row_ptr, out


def matrix(shape, log2_nonzeros, rng):
    n = 1 << log2_nonzeros
    if shape == "uniform":
        rows, columns = n // 16, n // 128
        return rows, columns, spread_columns(rng, np.full(rows, 16), 0, columns)
    if shape == "powerlaw":
        rows, columns = n // 16, n // 128
        dense = 4
        target = n - dense * columns
        u = 1.0 - rng.random(rows)
        scale = 16.0 / 3.0
        for _ in range(3):  # fit the scale so that the rows hold about the target
            lengths = np.minimum(columns, np.floor(scale / u ** (1 / 1.5))).astype(np.int64)
            scale *= target / lengths.sum()
        lengths = np.maximum(lengths, 1)
        lengths[rng.choice(rows, dense, replace=False)] = columns
        return rows, columns, spread_columns(rng, lengths, 0, columns)
    if shape == "densecols":
        rows, columns = n // 16, n // 128
        row_ptr, rest = spread_columns(rng, np.full(rows, 8), 8, columns - 8)
        col = np.empty(rows * 16, dtype=np.int64)
        col.reshape(rows, 16)[:, :8] = np.arange(8)
        col.reshape(rows, 16)[:, 8:] = rest.reshape(rows, 8)
        return rows, columns, (np.arange(rows + 1, dtype=np.int64) * 16, col)
    if shape == "banded":
        rows, columns = n // 16, n // 128
        first = np.clip(np.arange(rows, dtype=np.int64) * columns // rows - 8, 0, columns - 16)
        col = (first[:, None] + np.arange(16, dtype=np.int64)).reshape(-1)
        return rows, columns, (np.arange(rows + 1, dtype=np.int64) * 16, col)
    if shape == "blockdiag":
        rows, columns = n // 16, n // 128
        span = min(256, columns)
        first = np.arange(rows, dtype=np.int64) // (8 * span) * span
        return rows, columns, spread_columns(rng, np.full(rows, 16), first, np.full(rows, span))
    if shape == "tall":
        rows, columns = n // 8, 1024
        return rows, columns, spread_columns(rng, np.full(rows, 8), 0, columns)
    if shape == "wide":
        rows, columns = n // 1024, n // 128
        return rows, columns, spread_columns(rng, np.full(rows, min(1024, columns)), 0, columns)
    raise SystemExit(f"shapes.py: unknown shape {shape!r}; expected one of {', '.join(SHAPES)}")


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    folder, log2_nonzeros = sys.argv[1], int(sys.argv[2])
    shapes = sys.argv[3:] or SHAPES
    os.makedirs(folder, exist_ok=True)
    for shape in shapes:
        path = os.path.join(folder, f"{shape}_{log2_nonzeros}.h5")
        if os.path.exists(path):
            continue
        rng = np.random.default_rng([log2_nonzeros, SHAPES.index(shape)])
        rows, columns, (row_ptr, col) = matrix(shape, log2_nonzeros, rng)
        assert col.min() >= 0 and col.max() < columns, shape
        values = (1.0 - rng.random(col.size, dtype=np.float32)).astype(np.float32)
        with h5py.File(path + ".partial", "w") as f:
            g = f.create_group("A")
            g.attrs["shape"] = np.array([rows, columns], dtype=np.int64)
            g.create_dataset("row_ptr", data=row_ptr.astype(np.int64))
            g.create_dataset("col_ind", data=col.astype(np.int32))
            g.create_dataset("values", data=values)
        os.replace(path + ".partial", path)
        print(f"{path}: {rows} x {columns}, {col.size} nonzeros", flush=True)


if __name__ == "__main__":
    main()
