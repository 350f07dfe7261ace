#!/usr/bin/python3
"""Writes the small HDF5 inputs of the bad decks beside this script (they are committed;
run again with /usr/bin/python3, which has Debian's h5py, after changing them)."""
import os

import h5py
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))

with h5py.File(os.path.join(here, "points_nan.h5"), "w") as f:  # knn_hdf5_nan
    f["points"] = np.array([[10.0, 20.0], [30.0, np.nan], [-5.0, 5.0]])

def csr(f, values):
    g = f.create_group("A")
    g.attrs["shape"] = np.array([3, 3], dtype=np.int64)
    g["row_ptr"] = np.array([0, 1, 2, 3], dtype=np.int64)
    g["col_ind"] = np.array([0, 1, 2], dtype=np.int64)
    g["values"] = np.array(values, dtype=np.float64)

with h5py.File(os.path.join(here, "csr_nan.h5"), "w") as f:  # ridge_csr_nan
    csr(f, [1.0, np.inf, 3.0])

with h5py.File(os.path.join(here, "rhs_nan.h5"), "w") as f:  # ridge_rhs_nan
    csr(f, [1.0, 2.0, 3.0])
    f["b"] = np.array([1.0, np.nan, 3.0])

with h5py.File(os.path.join(here, "start_nan.h5"), "w") as f:  # diffusion_start_nan
    u = np.zeros((8, 8))
    u[5, 6] = np.nan
    f["u"] = u

with h5py.File(os.path.join(here, "points_ids.h5"), "w") as f:  # knn_ids_*
    f["points"] = np.array([[10.0, 20.0], [30.0, 40.0], [-5.0, 5.0]])
    f["ids_short"] = np.array([7, 8], dtype=np.int64)
    f["ids_float"] = np.array([1.0, 2.0, 3.0])
