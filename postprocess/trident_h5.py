"""Shared helpers for the post-processing scripts: reading trident's HDF5 outputs.

trident writes one HDF5 file per run: root attributes with the provenance (deck text,
versions, ranks, devices, start and end time), /timings (one attribute per phase,
seconds, slowest rank), and one group per study (/diffusion, /knn, /ridge).
"""
import os
import sys

import h5py
import numpy as np

# Colour-bar labels of the diffusion plots: u carries the start field's unit (the jagged and
# gaussian starts are dimensionless), and L(u) = 4u - (sum of the 4 neighbours) has u's unit.
FIELD_LABEL = "u (unit of the start field)"
LAPLACIAN_LABEL = "L(u) = 4u − Σ neighbours (unit of u)"


def text(value):
    """An HDF5 attribute as a Python str (h5py gives bytes, str or numpy scalars)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray) and value.dtype.kind in "SO" and value.size == 1:
        return text(value.reshape(-1)[0])
    return str(value)


def open_output(path, group=None):
    """Opens a trident output read-only; exits with a one-line message when it is not
    an HDF5 file or lacks the study group the script needs."""
    if not os.path.exists(path):
        sys.exit(f"{path}: no such file")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        sys.exit(f"{path}: not an HDF5 file ({e})")
    if group is not None and group not in f:
        studies = [g for g in ("diffusion", "knn", "ridge") if g in f]
        sys.exit(f"{path}: no /{group} group (this file has: {', '.join(studies) or 'no study'})")
    return f


def default_png(path, suffix):
    """results.h5 -> results.SUFFIX.png next to it."""
    base = path[:-3] if path.endswith(".h5") else path
    return f"{base}.{suffix}.png"


def use_agg():
    """Plots go to files: no display needed (batch nodes have none)."""
    import matplotlib
    matplotlib.use("Agg")
